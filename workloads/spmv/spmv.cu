// Sparse matrix-vector product y = A x in three classic layouts:
//   spmv_csr_scalar: CSR, one thread per row (divergent trip counts, scattered loads);
//   spmv_csr_vector: CSR, one warp per row, lanes stride the row and combine
//                    their partial sums with a shuffle tree;
//   spmv_jds:        jagged diagonal storage: rows sorted by decreasing length
//                    (perm maps sorted position -> row), the k-th nonzero of
//                    every row stored contiguously ("jagged diagonal" k), so
//                    consecutive threads read consecutive words.

extern "C" __global__ void spmv_csr_scalar(const int* __restrict__ row_ptr,
                                           const int* __restrict__ col,
                                           const float* __restrict__ val,
                                           const float* __restrict__ x, float* __restrict__ y,
                                           int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  for (int k = row_ptr[row]; k < row_ptr[row + 1]; ++k) sum = fmaf(val[k], x[col[k]], sum);
  y[row] = sum;
}

extern "C" __global__ void spmv_csr_vector(const int* __restrict__ row_ptr,
                                           const int* __restrict__ col,
                                           const float* __restrict__ val,
                                           const float* __restrict__ x, float* __restrict__ y,
                                           int rows) {
  const int lane = threadIdx.x & 31;
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if (row >= rows) return;  // the whole warp leaves together
  const int begin = row_ptr[row], end = row_ptr[row + 1];
  float sum = 0.0f;
  for (int k = begin + lane; k < end; k += 32) sum = fmaf(val[k], x[col[k]], sum);
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0) y[row] = sum;
}

extern "C" __global__ void spmv_jds(const int* __restrict__ diag_start,
                                    const int* __restrict__ sorted_len,
                                    const int* __restrict__ perm, const int* __restrict__ col,
                                    const float* __restrict__ val, const float* __restrict__ x,
                                    float* __restrict__ y, int rows) {
  const int pos = blockIdx.x * blockDim.x + threadIdx.x;
  if (pos >= rows) return;
  const int len = sorted_len[pos];
  float sum = 0.0f;
  for (int d = 0; d < len; ++d) {
    int k = diag_start[d] + pos;
    sum = fmaf(val[k], x[col[k]], sum);
  }
  y[perm[pos]] = sum;
}
