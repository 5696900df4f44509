// 5-point Jacobi stencil on a 2D grid with a shared-memory tile plus halo.
#define BX 32
#define BY 8

extern "C" __global__ void jacobi5(const float* __restrict__ in, float* __restrict__ out, int nx,
                                   int ny) {
  __shared__ float tile[BY + 2][BX + 2];
  int x = blockIdx.x * BX + threadIdx.x;
  int y = blockIdx.y * BY + threadIdx.y;
  int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
  bool inside = x < nx && y < ny;
  tile[ty][tx] = inside ? in[y * nx + x] : 0.0f;
  if (threadIdx.x == 0) tile[ty][0] = (x > 0 && y < ny) ? in[y * nx + x - 1] : 0.0f;
  if (threadIdx.x == BX - 1) tile[ty][BX + 1] = (x + 1 < nx && y < ny) ? in[y * nx + x + 1] : 0.0f;
  if (threadIdx.y == 0) tile[0][tx] = (y > 0 && x < nx) ? in[(y - 1) * nx + x] : 0.0f;
  if (threadIdx.y == BY - 1) tile[BY + 1][tx] = (y + 1 < ny && x < nx) ? in[(y + 1) * nx + x] : 0.0f;
  __syncthreads();
  if (!inside) return;
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    out[y * nx + x] = tile[ty][tx];
    return;
  }
  out[y * nx + x] =
      0.2f * (tile[ty][tx] + tile[ty - 1][tx] + tile[ty + 1][tx] + tile[ty][tx - 1] + tile[ty][tx + 1]);
}

// 3D 7-point stencil marching along z, keeping the column in registers.
extern "C" __global__ void heat3d(const double* in, double* out, int nx, int ny, int nz, double c0,
                                  double c1) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  size_t plane = size_t(nx) * ny;
  double below = in[plane * 0 + y * nx + x];
  double cur = in[plane * 1 + y * nx + x];
  for (int z = 1; z < nz - 1; ++z) {
    double above = in[plane * (z + 1) + y * nx + x];
    size_t idx = plane * z + y * nx + x;
    out[idx] = c0 * cur + c1 * (in[idx - 1] + in[idx + 1] + in[idx - nx] + in[idx + nx] + below + above);
    below = cur;
    cur = above;
  }
}
