// Kernels for the timing model's validation tests (tests/timing/). Each one
// isolates a mechanism: streaming bandwidth, issue rate, latency hiding,
// shared-memory bank conflicts, coalescing and cache reuse.

// Streaming copy: one float per thread, grid-stride.
extern "C" __global__ void stream_copy(const float* in, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = in[i];
}

// Streaming reduction: each thread sums a grid-stride slice, one store at the end.
extern "C" __global__ void stream_sum(const float* in, float* out, int n) {
  float acc = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += in[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Independent FMA chains: 4 per thread, `iters` rounds; no memory until the end.
extern "C" __global__ void fma_chains(float* out, int iters) {
  float a = threadIdx.x, b = a + 1.f, c = a + 2.f, d = a + 3.f;
  for (int i = 0; i < iters; ++i) {
    a = a * 0.999f + 0.5f;
    b = b * 0.999f + 0.5f;
    c = c * 0.999f + 0.5f;
    d = d * 0.999f + 0.5f;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a + b + c + d;
}

// One dependent FMA chain: each instruction waits for the previous result.
extern "C" __global__ void fma_dependent(float* out, int iters) {
  float a = threadIdx.x;
  for (int i = 0; i < iters; ++i) a = a * 0.999f + 0.5f;
  out[blockIdx.x * blockDim.x + threadIdx.x] = a;
}

// Shared-memory reads with a stride of `stride` words: conflict degree
// gcd-dependent (stride 1: none, 2: 2-way, ..., 32: 32-way).
extern "C" __global__ void smem_stride(float* out, int stride, int iters) {
  __shared__ float buf[32 * 33];
  for (int i = threadIdx.x; i < 32 * 33; i += blockDim.x) buf[i] = i;
  __syncthreads();
  float acc = 0.f;
  int idx = (threadIdx.x * stride) % (32 * 32);
  for (int i = 0; i < iters; ++i) {
    acc += buf[idx];
    idx = (idx + 1) % (32 * 32);  // keeps the stride pattern, defeats hoisting
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Global reads with a stride of `stride` floats between lanes.
extern "C" __global__ void strided_read(const float* in, float* out, int stride) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = in[(long long)t * stride];
}

// Reads the same `window` floats `rounds` times: reuse served by the caches.
extern "C" __global__ void reuse_read(const float* in, float* out, int window, int rounds) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.f;
  for (int r = 0; r < rounds; ++r) acc += in[(t + r * 32) % window];
  out[t] = acc;
}
