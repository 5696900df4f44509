// y = A^T (A x) for a rows x cols matrix A (row-major) in two kernels with
// opposite access patterns:
//   atax_rows: tmp = A x, one thread per row walks its row (strided across the
//              warp: each lane touches a different row, uncoalesced), with x
//              staged through shared memory a tile at a time;
//   atax_cols: y = A^T tmp, one thread per column walks down its column
//              (coalesced across the warp).
#define X_TILE 256

extern "C" __global__ void atax_rows(const float* __restrict__ a, const float* __restrict__ x,
                                     float* __restrict__ tmp, int rows, int cols) {
  __shared__ float x_tile[X_TILE];
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  const float* a_row = a + (size_t)row * cols;
  float acc = 0.0f;
  for (int base = 0; base < cols; base += X_TILE) {
    // The whole block stages the next piece of x; every thread reads all of it.
    for (int j = threadIdx.x; j < X_TILE; j += blockDim.x)
      x_tile[j] = (base + j < cols) ? x[base + j] : 0.0f;
    __syncthreads();
    if (row < rows) {
      int len = min(X_TILE, cols - base);
      for (int j = 0; j < len; ++j) acc = fmaf(a_row[base + j], x_tile[j], acc);
    }
    __syncthreads();
  }
  if (row < rows) tmp[row] = acc;
}

extern "C" __global__ void atax_cols(const float* __restrict__ a, const float* __restrict__ tmp,
                                     float* __restrict__ y, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= cols) return;
  float acc = 0.0f;
  for (int i = 0; i < rows; ++i) acc = fmaf(a[(size_t)i * cols + col], tmp[i], acc);
  y[col] = acc;
}
