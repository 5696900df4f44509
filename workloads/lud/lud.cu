// Blocked right-looking LU decomposition without pivoting, in place on an
// n x n row-major matrix (n a multiple of B): for each block step k the host
// launches lud_diagonal (factor tile (k,k)), lud_perimeter (the row-panel
// tiles U(k,j) and column-panel tiles L(i,k) against it) and lud_internal
// (trailing update A(i,j) -= L(i,k) U(k,j)). L has an implicit unit diagonal.
#define B 16

extern "C" __global__ void lud_diagonal(float* __restrict__ a, int n, int k) {
  __shared__ float t[B][B];
  const int r = threadIdx.y, c = threadIdx.x;
  float* tile = a + (size_t)k * B * n + (size_t)k * B;
  t[r][c] = tile[(size_t)r * n + c];
  __syncthreads();
  for (int p = 0; p < B - 1; ++p) {
    if (r > p && c == p) t[r][p] /= t[p][p];
    __syncthreads();
    if (r > p && c > p) t[r][c] -= t[r][p] * t[p][c];
    __syncthreads();
  }
  tile[(size_t)r * n + c] = t[r][c];
}

// Blocks [0, m): row-panel tile U(k, k+1+b) = L(k,k)^-1 A(k, ...).
// Blocks [m, 2m): column-panel tile L(k+1+b, k) = A(..., k) U(k,k)^-1.
extern "C" __global__ void lud_perimeter(float* __restrict__ a, int n, int k) {
  __shared__ float diag[B][B];
  __shared__ float t[B][B];
  const int r = threadIdx.y, c = threadIdx.x;
  const int m = n / B - k - 1;
  const bool row_panel = blockIdx.x < m;
  const int other = k + 1 + (row_panel ? blockIdx.x : blockIdx.x - m);
  float* tile = row_panel ? a + (size_t)k * B * n + (size_t)other * B
                          : a + (size_t)other * B * n + (size_t)k * B;
  diag[r][c] = a[((size_t)k * B + r) * n + (size_t)k * B + c];
  t[r][c] = tile[(size_t)r * n + c];
  __syncthreads();
  if (row_panel) {
    // Forward substitution down the rows with the unit lower triangle.
    for (int p = 0; p < B - 1; ++p) {
      if (r > p) t[r][c] -= diag[r][p] * t[p][c];
      __syncthreads();
    }
  } else {
    // Column by column against the upper triangle.
    for (int p = 0; p < B; ++p) {
      if (c == p) t[r][p] /= diag[p][p];
      __syncthreads();
      if (c > p) t[r][c] -= t[r][p] * diag[p][c];
      __syncthreads();
    }
  }
  tile[(size_t)r * n + c] = t[r][c];
}

extern "C" __global__ void lud_internal(float* __restrict__ a, int n, int k) {
  __shared__ float l[B][B];
  __shared__ float u[B][B];
  const int r = threadIdx.y, c = threadIdx.x;
  const int ti = k + 1 + blockIdx.y, tj = k + 1 + blockIdx.x;
  l[r][c] = a[((size_t)ti * B + r) * n + (size_t)k * B + c];
  u[r][c] = a[((size_t)k * B + r) * n + (size_t)tj * B + c];
  __syncthreads();
  float sum = 0.0f;
#pragma unroll
  for (int p = 0; p < B; ++p) sum += l[r][p] * u[p][c];
  a[((size_t)ti * B + r) * n + (size_t)tj * B + c] -= sum;
}
