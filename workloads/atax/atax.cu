// y = A^T (A x) for a rows x cols matrix A (row-major) in two kernels with
// opposite access patterns:
//   atax_rows: tmp = A x, one thread per row walks its row (strided across the
//              warp: each lane touches a different row, uncoalesced), with x
//              staged through shared memory a tile at a time;
//   atax_cols: y = A^T tmp, one thread per column walks down its column
//              (coalesced across the warp).
// The _pt kernels are their persistent-thread forms (the QAWS paper's): a
// resident grid whose blocks loop over the blocks of rows or columns.
#define X_TILE 256

// Rows first..first+blockDim.x-1; every thread of the block calls it (barriers).
__device__ __forceinline__ void atax_row_block(const float* __restrict__ a, const float* __restrict__ x,
                                               float* __restrict__ tmp, int rows, int cols, int first,
                                               float* x_tile) {
  int row = first + threadIdx.x;
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

__device__ __forceinline__ void atax_col(const float* __restrict__ a, const float* __restrict__ tmp,
                                         float* __restrict__ y, int rows, int cols, int col) {
  if (col >= cols) return;
  float acc = 0.0f;
  for (int i = 0; i < rows; ++i) acc = fmaf(a[(size_t)i * cols + col], tmp[i], acc);
  y[col] = acc;
}

extern "C" __global__ void atax_rows(const float* __restrict__ a, const float* __restrict__ x,
                                     float* __restrict__ tmp, int rows, int cols) {
  __shared__ float x_tile[X_TILE];
  atax_row_block(a, x, tmp, rows, cols, blockIdx.x * blockDim.x, x_tile);
}

extern "C" __global__ void atax_cols(const float* __restrict__ a, const float* __restrict__ tmp,
                                     float* __restrict__ y, int rows, int cols) {
  atax_col(a, tmp, y, rows, cols, blockIdx.x * blockDim.x + threadIdx.x);
}

extern "C" __global__ void atax_rows_pt(const float* __restrict__ a, const float* __restrict__ x,
                                        float* __restrict__ tmp, int rows, int cols) {
  __shared__ float x_tile[X_TILE];
  for (int first = blockIdx.x * blockDim.x; first < rows; first += gridDim.x * blockDim.x)
    atax_row_block(a, x, tmp, rows, cols, first, x_tile);
}

extern "C" __global__ void atax_cols_pt(const float* __restrict__ a, const float* __restrict__ tmp,
                                        float* __restrict__ y, int rows, int cols) {
  for (int col = blockIdx.x * blockDim.x + threadIdx.x; col < cols; col += gridDim.x * blockDim.x)
    atax_col(a, tmp, y, rows, cols, col);
}
