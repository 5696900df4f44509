// Double-precision kernels: conjugate-gradient pieces (dot products, axpy) and a
// Jacobi iteration with division, square roots and a convergence norm.
__device__ double atomic_add_f64(double* addr, double v) { return atomicAdd(addr, v); }

extern "C" __global__ void ddot(const double* x, const double* y, double* result, int n) {
  __shared__ double sums[256];
  double acc = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc = fma(x[i], y[i], acc);
  sums[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sums[threadIdx.x] += sums[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomic_add_f64(result, sums[0]);
}

extern "C" __global__ void daxpby(double a, const double* x, double b, double* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b * y[i];
}

extern "C" __global__ void jacobi_step(const double* A, const double* b, const double* x_old,
                                       double* x_new, double* residual, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n) return;
  double sigma = 0.0;
  for (int j = 0; j < n; ++j)
    if (j != row) sigma += A[row * n + j] * x_old[j];
  double diag = A[row * n + row];
  double xn = (b[row] - sigma) / diag;
  x_new[row] = xn;
  double d = xn - x_old[row];
  atomicAdd(residual, d * d);
}

extern "C" __global__ void normalize_f64(double* v, const double* norm2, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double inv = rsqrt(*norm2);
  double r = 1.0 / sqrt(*norm2 + 1e-300);
  if (i < n) v[i] = v[i] * inv + 0.0 * r + copysign(0.0, v[i]) + fabs(v[i]) * 0.0 + floor(v[i]) * 0.0;
}

extern "C" __global__ void f64_conversions(const double* in, long long* out_i, float* out_f,
                                           unsigned long long* out_u, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double d = in[i];
  out_i[i] = __double2ll_rn(d) + (long long)trunc(d) + llround(d);
  out_f[i] = __double2float_rz(d) + (float)d;
  out_u[i] = __double_as_longlong(d) ^ (unsigned long long)(d * 3.0) ^ (unsigned long long)__hiloint2double(1, 2);
}
