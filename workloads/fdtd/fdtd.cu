// 2D finite-difference time-domain (Yee scheme, TE mode) on an nx x ny grid,
// row-major. Each timestep is three dependent kernels: the electric field
// components ey and ex are advanced from the curl of hz, then hz from the
// curl of (ex, ey). The first row of ey is driven by a source waveform.
// Updates use explicit fmaf so the host reference can reproduce them bit for bit.

extern "C" __global__ void fdtd_update_ey(float* __restrict__ ey, const float* __restrict__ hz,
                                          const float* __restrict__ source, int t, int nx,
                                          int ny) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= nx || j >= ny) return;
  size_t idx = (size_t)i * ny + j;
  if (i == 0)
    ey[idx] = source[t];  // hard source on the boundary row
  else
    ey[idx] = fmaf(-0.5f, hz[idx] - hz[idx - ny], ey[idx]);
}

extern "C" __global__ void fdtd_update_ex(float* __restrict__ ex, const float* __restrict__ hz,
                                          int nx, int ny) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= nx || j >= ny || j == 0) return;  // column 0 is a fixed (PEC) boundary
  size_t idx = (size_t)i * ny + j;
  ex[idx] = fmaf(-0.5f, hz[idx] - hz[idx - 1], ex[idx]);
}

extern "C" __global__ void fdtd_update_hz(float* __restrict__ hz, const float* __restrict__ ex,
                                          const float* __restrict__ ey, int nx, int ny) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= nx - 1 || j >= ny - 1) return;
  size_t idx = (size_t)i * ny + j;
  float curl = ex[idx + 1] - ex[idx] + ey[idx + ny] - ey[idx];
  hz[idx] = fmaf(-0.7f, curl, hz[idx]);
}
