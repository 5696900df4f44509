// 3D 7-point Jacobi stencil on an nx x ny x nz grid (x fastest), one sweep per
// launch, ping-ponging between two buffers. Each thread owns an (x, y) column
// and marches up in z: the planes below and above stay in registers, the
// current plane goes through a shared-memory tile (with a one-cell halo) so
// the four in-plane neighbours are read from shared memory. Boundary cells
// are copied unchanged so both buffers keep the fixed boundary.
#define TILE_X 32
#define TILE_Y 8

extern "C" __global__ void stencil7(const float* __restrict__ in, float* __restrict__ out, int nx,
                                    int ny, int nz, float c_center, float c_neighbor) {
  __shared__ float plane[TILE_Y + 2][TILE_X + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * TILE_X + tx;
  const int y = blockIdx.y * TILE_Y + ty;
  const int sx = tx + 1, sy = ty + 1;
  const bool in_grid = x < nx && y < ny;
  const bool interior_xy = x > 0 && x < nx - 1 && y > 0 && y < ny - 1;
  const size_t plane_size = (size_t)nx * ny;
  const size_t column = (size_t)y * nx + x;

  float below = 0.0f, current = 0.0f;
  if (in_grid) {
    below = in[column];
    current = in[column + plane_size];
    out[column] = below;
    size_t top = column + (size_t)(nz - 1) * plane_size;
    out[top] = in[top];
  }
  for (int z = 1; z < nz - 1; ++z) {
    const size_t c = column + (size_t)z * plane_size;
    const float above = in_grid ? in[c + plane_size] : 0.0f;
    __syncthreads();  // everyone is done reading the previous plane
    plane[sy][sx] = current;
    if (tx == 0) plane[sy][0] = (y < ny && x > 0 && x - 1 < nx) ? in[c - 1] : 0.0f;
    if (tx == TILE_X - 1) plane[sy][TILE_X + 1] = (y < ny && x + 1 < nx) ? in[c + 1] : 0.0f;
    if (ty == 0) plane[0][sx] = (x < nx && y > 0 && y - 1 < ny) ? in[c - nx] : 0.0f;
    if (ty == TILE_Y - 1) plane[TILE_Y + 1][sx] = (x < nx && y + 1 < ny) ? in[c + nx] : 0.0f;
    __syncthreads();
    if (in_grid) {
      if (interior_xy) {
        float sum = plane[sy][sx - 1] + plane[sy][sx + 1] + plane[sy - 1][sx] +
                    plane[sy + 1][sx] + below + above;
        out[c] = fmaf(c_neighbor, sum, c_center * current);
      } else {
        out[c] = current;
      }
    }
    below = current;
    current = above;
  }
}
