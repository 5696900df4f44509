// Speckle-reducing anisotropic diffusion on a rows x cols image (row-major).
// Each iteration runs three kernels:
//   srad_stats:  sum and sum of squares of the region of interest, in double,
//                reduced per block with warp shuffles then shared memory; the
//                host combines the block partials into the speckle scale q0^2;
//   srad_coeff:  per pixel, the four directional differences and the
//                diffusion coefficient from the instantaneous coefficient of
//                variation (image tile with a clamped halo in shared memory);
//   srad_update: divergence of the coefficient-weighted differences (needs
//                the coefficients of the south and east neighbours) updates
//                the image.
#define TILE 16
#define STATS_THREADS 256

extern "C" __global__ void srad_stats(const float* __restrict__ image, int cols, int roi_row0,
                                      int roi_col0, int roi_rows, int roi_cols,
                                      double* __restrict__ partials) {
  __shared__ double warp_sum[STATS_THREADS / 32], warp_sq[STATS_THREADS / 32];
  double sum = 0.0, sq = 0.0;
  const int roi_size = roi_rows * roi_cols;
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < roi_size; k += gridDim.x * blockDim.x) {
    int r = roi_row0 + k / roi_cols, c = roi_col0 + k % roi_cols;
    double v = image[(size_t)r * cols + c];
    sum += v;
    sq += v * v;
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    sum += __shfl_down_sync(0xffffffffu, sum, offset);
    sq += __shfl_down_sync(0xffffffffu, sq, offset);
  }
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (lane == 0) {
    warp_sum[warp] = sum;
    warp_sq[warp] = sq;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    double s = 0.0, q = 0.0;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w) {
      s += warp_sum[w];
      q += warp_sq[w];
    }
    partials[2 * blockIdx.x] = s;
    partials[2 * blockIdx.x + 1] = q;
  }
}

extern "C" __global__ void srad_coeff(const float* __restrict__ image, float* __restrict__ coeff,
                                      float* __restrict__ d_north, float* __restrict__ d_south,
                                      float* __restrict__ d_west, float* __restrict__ d_east,
                                      int rows, int cols, float q0sqr) {
  __shared__ float tile[TILE + 2][TILE + 2];
  const int row0 = blockIdx.y * TILE - 1, col0 = blockIdx.x * TILE - 1;
  const int tid = threadIdx.y * TILE + threadIdx.x;
  // Cooperative load of the tile and its halo; outside the image the nearest
  // edge pixel stands in (zero-flux boundary).
  for (int k = tid; k < (TILE + 2) * (TILE + 2); k += TILE * TILE) {
    int tr = k / (TILE + 2), tc = k % (TILE + 2);
    int r = min(max(row0 + tr, 0), rows - 1), c = min(max(col0 + tc, 0), cols - 1);
    tile[tr][tc] = image[(size_t)r * cols + c];
  }
  __syncthreads();
  const int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
  if (r >= rows || c >= cols) return;
  const int ty = threadIdx.y + 1, tx = threadIdx.x + 1;
  const float center = tile[ty][tx];
  const float dn = tile[ty - 1][tx] - center, ds = tile[ty + 1][tx] - center;
  const float dw = tile[ty][tx - 1] - center, de = tile[ty][tx + 1] - center;
  const float inv = 1.0f / center;
  const float grad2 = (dn * dn + ds * ds + dw * dw + de * de) * inv * inv;
  const float lap = (dn + ds + dw + de) * inv;
  const float num = 0.5f * grad2 - 0.0625f * lap * lap;
  const float den = 1.0f + 0.25f * lap;
  const float qsqr = num / (den * den);
  float c_val = 1.0f / (1.0f + (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr)));
  c_val = fminf(fmaxf(c_val, 0.0f), 1.0f);
  const size_t idx = (size_t)r * cols + c;
  coeff[idx] = c_val;
  d_north[idx] = dn;
  d_south[idx] = ds;
  d_west[idx] = dw;
  d_east[idx] = de;
}

extern "C" __global__ void srad_update(float* __restrict__ image, const float* __restrict__ coeff,
                                       const float* __restrict__ d_north,
                                       const float* __restrict__ d_south,
                                       const float* __restrict__ d_west,
                                       const float* __restrict__ d_east, int rows, int cols,
                                       float lambda) {
  __shared__ float c_tile[TILE + 1][TILE + 1];  // this tile plus one row south, one column east
  const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
  const int tid = threadIdx.y * TILE + threadIdx.x;
  for (int k = tid; k < (TILE + 1) * (TILE + 1); k += TILE * TILE) {
    int tr = k / (TILE + 1), tc = k % (TILE + 1);
    int r = min(row0 + tr, rows - 1), c = min(col0 + tc, cols - 1);
    c_tile[tr][tc] = coeff[(size_t)r * cols + c];
  }
  __syncthreads();
  const int r = row0 + threadIdx.y, c = col0 + threadIdx.x;
  if (r >= rows || c >= cols) return;
  const size_t idx = (size_t)r * cols + c;
  const float c_here = c_tile[threadIdx.y][threadIdx.x];
  const float c_south = c_tile[threadIdx.y + 1][threadIdx.x];
  const float c_east = c_tile[threadIdx.y][threadIdx.x + 1];
  const float div = c_here * d_north[idx] + c_south * d_south[idx] + c_here * d_west[idx] +
                    c_east * d_east[idx];
  image[idx] = image[idx] + 0.25f * lambda * div;
}
