// Read-only cache loads (__ldg), volatile shared-memory warp reduction (legacy
// pattern), memory fences, clock reads, and block-wide vote barriers.
extern "C" __global__ void ldg_gather(const float* __restrict__ src, const int* __restrict__ idx,
                                      float* dst, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = __ldg(&src[__ldg(&idx[i])]) + __ldg(reinterpret_cast<const float4*>(src) + (i & 7)).w;
}

extern "C" __global__ void volatile_reduce(const int* in, int* out) {
  __shared__ volatile int sdata[128];
  unsigned tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * 128 + tid];
  __syncthreads();
  if (tid < 64) sdata[tid] += sdata[tid + 64];
  __syncthreads();
  if (tid < 32) {
    sdata[tid] += sdata[tid + 32];
    sdata[tid] += sdata[tid + 16];
    sdata[tid] += sdata[tid + 8];
    sdata[tid] += sdata[tid + 4];
    sdata[tid] += sdata[tid + 2];
    sdata[tid] += sdata[tid + 1];
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

extern "C" __global__ void fences_and_clocks(int* flag, int* data, long long* times) {
  long long t0 = clock64();
  unsigned c0 = clock();
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    data[0] = 42;
    __threadfence_system();
    atomicExch(flag, 1);
  } else if (threadIdx.x == 0) {
    while (atomicAdd(flag, 0) == 0) __nanosleep(100);
    __threadfence();
    data[blockIdx.x] = data[0];
  }
  int c = __syncthreads_count(data[0] > 0);
  int a = __syncthreads_and(c > 1);
  int o = __syncthreads_or(a);
  times[blockIdx.x * blockDim.x + threadIdx.x] = clock64() - t0 + (clock() - c0) + o;
}

extern "C" __global__ void named_barriers(float* x) {
  // Producer warps and consumer warps synchronise on named barrier 1.
  __shared__ float buf[64];
  if (threadIdx.x < 64) {
    buf[threadIdx.x] = x[threadIdx.x] * 2.0f;
    asm volatile("bar.arrive 1, 128;");
  } else {
    asm volatile("bar.sync 1, 128;");
    x[threadIdx.x] = buf[threadIdx.x - 64];
  }
  asm volatile("barrier.sync 2;");
  asm volatile("membar.cta;");
  asm volatile("fence.acq_rel.gpu;");
  asm volatile("fence.sc.cta;");
  asm volatile("prefetch.global.L2 [%0];" ::"l"(x));
}
