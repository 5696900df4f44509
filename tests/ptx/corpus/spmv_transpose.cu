// Sparse matrix-vector product (CSR, scalar and warp-per-row vector kernels) and
// a shared-memory matrix transpose with padding (SDK style).
extern "C" __global__ void spmv_csr_scalar(int rows, const int* row_ptr, const int* cols,
                                           const float* vals, const float* x, float* y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = row_ptr[r]; j < row_ptr[r + 1]; ++j) s += vals[j] * x[cols[j]];
    y[r] = s;
  }
}

extern "C" __global__ void spmv_csr_vector(int rows, const int* row_ptr, const int* cols,
                                           const double* vals, const double* x, double* y) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x & 31;
  if (warp >= rows) return;
  double s = 0.0;
  for (int j = row_ptr[warp] + lane; j < row_ptr[warp + 1]; j += 32) s += vals[j] * __ldg(&x[cols[j]]);
  for (int off = 16; off > 0; off /= 2) s += __shfl_down_sync(0xffffffffu, s, off);
  if (lane == 0) y[warp] = s;
}

#define TDIM 32
#define BROWS 8
extern "C" __global__ void transpose_padded(float* out, const float* in, int w, int h) {
  __shared__ float tile[TDIM][TDIM + 1];
  int x = blockIdx.x * TDIM + threadIdx.x;
  int y = blockIdx.y * TDIM + threadIdx.y;
  for (int j = 0; j < TDIM; j += BROWS)
    if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
  __syncthreads();
  x = blockIdx.y * TDIM + threadIdx.x;
  y = blockIdx.x * TDIM + threadIdx.y;
  for (int j = 0; j < TDIM; j += BROWS)
    if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ __launch_bounds__(256, 2) void kmeans_assign(const float* pts, const float* centers,
                                                                  int* assign, int n, int k, int dims) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int best = 0;
  float best_d = 3.402823466e38f;
  for (int c = 0; c < k; ++c) {
    float d = 0.0f;
    for (int j = 0; j < dims; ++j) {
      float t = pts[i * dims + j] - centers[c * dims + j];
      d += t * t;
    }
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  assign[i] = best;
}
