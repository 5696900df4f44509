// Naive dense matrix multiply C = A * B (row-major, n x n): one thread per
// output element, no tiling. Each thread streams a row of A (broadcast within
// a warp) and a column of B (coalesced across the warp), so the kernel is
// limited by the L1/L2 traffic that a tiled version would avoid.
extern "C" __global__ void mm(const float* __restrict__ a, const float* __restrict__ b,
                              float* __restrict__ c, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= n || col >= n) return;
  const float* a_row = a + (size_t)row * n;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc = fmaf(a_row[k], b[(size_t)k * n + col], acc);
  c[(size_t)row * n + col] = acc;
}
