// Naive dense matrix multiply C = A * B (row-major, n x n): one thread per
// output element, no tiling. Each thread streams a row of A (broadcast within
// a warp) and a column of B (coalesced across the warp), so the kernel is
// limited by the L1/L2 traffic that a tiled version would avoid.
__device__ __forceinline__ void mm_element(const float* __restrict__ a, const float* __restrict__ b,
                                           float* __restrict__ c, int n, int row, int col) {
  if (row >= n || col >= n) return;
  const float* a_row = a + (size_t)row * n;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc = fmaf(a_row[k], b[(size_t)k * n + col], acc);
  c[(size_t)row * n + col] = acc;
}

extern "C" __global__ void mm(const float* __restrict__ a, const float* __restrict__ b,
                              float* __restrict__ c, int n) {
  mm_element(a, b, c, n, blockIdx.y * blockDim.y + threadIdx.y, blockIdx.x * blockDim.x + threadIdx.x);
}

// Persistent threads (the QAWS paper's form): a resident 1D grid of 2D blocks
// walks the output tiles in row-major order, tile t where mm's block (t % tiles_x,
// t / tiles_x) would be.
extern "C" __global__ void mm_pt(const float* __restrict__ a, const float* __restrict__ b,
                                 float* __restrict__ c, int n) {
  const int tiles_x = (n + blockDim.x - 1) / blockDim.x, tiles = tiles_x * ((n + blockDim.y - 1) / blockDim.y);
  for (int t = blockIdx.x; t < tiles; t += gridDim.x)
    mm_element(a, b, c, n, (t / tiles_x) * blockDim.y + threadIdx.y, (t % tiles_x) * blockDim.x + threadIdx.x);
}
