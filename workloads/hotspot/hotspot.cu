// HotSpot: transient chip temperature from a compact RC thermal model. Each
// cell's temperature moves toward its neighbours' (lateral conduction), the
// ambient (vertical conduction) and up with its dissipated power. A launch
// advances `steps` time steps at once (a pyramid): a 16x16 block loads a tile
// with a halo of `steps` cells, every step computes one ring fewer, and only
// the centre (16 - 2 steps)^2 cells are written back. Cells on the chip edge
// use their own temperature for the missing neighbour.
#define BLOCK 16

extern "C" __global__ void __launch_bounds__(BLOCK * BLOCK)
hotspot_pyramid(const float* __restrict__ power, const float* __restrict__ temp_in,
                float* __restrict__ temp_out, int cols, int rows, int steps, float step_div_cap,
                float rx_inv, float ry_inv, float rz_inv, float ambient) {
  __shared__ float s_temp[BLOCK][BLOCK];
  __shared__ float s_power[BLOCK][BLOCK];

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int out_side = BLOCK - 2 * steps;
  const int gx = blockIdx.x * out_side - steps + tx;
  const int gy = blockIdx.y * out_side - steps + ty;
  const bool in_grid = gx >= 0 && gx < cols && gy >= 0 && gy < rows;
  if (in_grid) {
    s_temp[ty][tx] = temp_in[gy * cols + gx];
    s_power[ty][tx] = power[gy * cols + gx];
  }
  __syncthreads();

  for (int s = 0; s < steps; ++s) {
    // After s steps, the outer s+1 rings of the tile lack neighbours.
    const bool computes = in_grid && tx > s && tx < BLOCK - 1 - s && ty > s && ty < BLOCK - 1 - s;
    float next = 0.f;
    if (computes) {
      float t = s_temp[ty][tx];
      float north = gy > 0 ? s_temp[ty - 1][tx] : t;
      float south = gy < rows - 1 ? s_temp[ty + 1][tx] : t;
      float west = gx > 0 ? s_temp[ty][tx - 1] : t;
      float east = gx < cols - 1 ? s_temp[ty][tx + 1] : t;
      next = t + step_div_cap * (s_power[ty][tx] + (north + south - 2.f * t) * ry_inv +
                                 (east + west - 2.f * t) * rx_inv + (ambient - t) * rz_inv);
    }
    __syncthreads();  // every neighbour read before any cell is overwritten
    if (computes) s_temp[ty][tx] = next;
    __syncthreads();
  }

  if (in_grid && tx >= steps && tx < BLOCK - steps && ty >= steps && ty < BLOCK - steps)
    temp_out[gy * cols + gx] = s_temp[ty][tx];
}
