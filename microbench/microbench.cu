// gpumux microbenchmark suite: kernels that time one mechanism each with
// %clock64 (docs/calibration.md). Every latency kernel runs its dependent
// chain twice, kSteps then 2 * kSteps steps of straight-line code (fully
// unrolled: no loop counter or branch competes with the chain), and reports
// both spans: the host takes the difference, so the constant cost of reading
// the clock and of the store that waits for the chain's last result cancels.
#include <cstdint>

constexpr int kSteps = 32;

// A compiler barrier for memory: the store before it (which needs the chain's
// result) issues before the clock is read.
__device__ __forceinline__ long long clk() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) : : "memory");
  return t;
}

// ---- pointer chasing: each element holds the address of the next --------
// `warm` untimed steps first (load the chain into the caches), then kSteps and 2 * kSteps.
extern "C" __global__ void chase_global(const uint64_t* start, int warm, long long* out, volatile uint64_t* sink) {
  const uint64_t* p = start;
  for (int i = 0; i < warm; ++i) p = (const uint64_t*)*p;
  *sink = (uint64_t)p;
  long long t0 = clk();
#pragma unroll
  for (int i = 0; i < kSteps; ++i) p = (const uint64_t*)*p;
  *sink = (uint64_t)p;
  long long t1 = clk();
#pragma unroll
  for (int i = 0; i < 2 * kSteps; ++i) p = (const uint64_t*)*p;
  *sink = (uint64_t)p;
  long long t2 = clk();
  out[0] = t1 - t0;
  out[1] = t2 - t1;
}

// Shared memory: element i holds the byte offset of the next element.
extern "C" __global__ void chase_shared(const unsigned* chain, int len, long long* out, volatile unsigned* sink) {
  __shared__ unsigned s[1024];
  for (int i = 0; i < len; ++i) s[i] = chain[i];
  __syncthreads();
  const char* base = (const char*)s;
  unsigned j = 0;
  long long t0 = clk();
#pragma unroll
  for (int i = 0; i < kSteps; ++i) j = *(volatile const unsigned*)(base + j);
  *sink = j;
  long long t1 = clk();
#pragma unroll
  for (int i = 0; i < 2 * kSteps; ++i) j = *(volatile const unsigned*)(base + j);
  *sink = j;
  long long t2 = clk();
  out[0] = t1 - t0;
  out[1] = t2 - t1;
}

// Constant memory: element i holds the index of the next element.
__constant__ unsigned cchain[1024];
extern "C" __global__ void chase_const(long long* out, volatile unsigned* sink) {
  unsigned j = 0;
  for (int i = 0; i < 1024; ++i) j = cchain[j];  // warm: the whole chain once
  *sink = j;
  long long t0 = clk();
#pragma unroll
  for (int i = 0; i < kSteps; ++i) j = cchain[j];
  *sink = j;
  long long t1 = clk();
#pragma unroll
  for (int i = 0; i < 2 * kSteps; ++i) j = cchain[j];
  *sink = j;
  long long t2 = clk();
  out[0] = t1 - t0;
  out[1] = t2 - t1;
}

// ---- shared-memory bank conflicts: lane l of every warp reads word l*stride
// Eight independent loads per iteration from every warp of the TB keep the
// banks busy: the span over the loads is the cost of one warp load.
extern "C" __global__ void shared_stride(int stride, int n, long long* out, volatile unsigned* sink) {
  __shared__ unsigned s[32 * 33];
  for (int i = threadIdx.x; i < 32 * 33; i += blockDim.x) s[i] = i;
  __syncthreads();
  volatile unsigned* vs = s;
  unsigned a = ((threadIdx.x % 32) * stride) % (32 * 32);
  unsigned acc = 0;
  long long t0 = clk();
  for (int i = 0; i < n; ++i) {
    unsigned v0 = vs[a], v1 = vs[a + 1], v2 = vs[a + 2], v3 = vs[a + 3];
    unsigned v4 = vs[a + 4], v5 = vs[a + 5], v6 = vs[a + 6], v7 = vs[a + 7];
    acc += v0 ^ v1 ^ v2 ^ v3 ^ v4 ^ v5 ^ v6 ^ v7;
  }
  sink[threadIdx.x] = acc;
  long long t1 = clk();
  if (threadIdx.x % 32 == 0) {
    out[2 * (threadIdx.x / 32)] = t0;
    out[2 * (threadIdx.x / 32) + 1] = t1;
  }
}

// ---- arithmetic: dependent-issue latency (one thread) --------------------
// The chain x = op(x) runs kSteps then 2 * kSteps times; the store of x
// orders the clock.
#define DEP_CHAIN(NAME, T, STEP)                                                 \
  extern "C" __global__ void NAME(T a, T b, long long* out, volatile T* sink) { \
    T x = a;                                                                     \
    long long t0 = clk();                                                        \
    _Pragma("unroll") for (int i = 0; i < kSteps; ++i) { STEP; }                 \
    *sink = x;                                                                   \
    long long t1 = clk();                                                        \
    _Pragma("unroll") for (int i = 0; i < 2 * kSteps; ++i) { STEP; }             \
    *sink = x;                                                                          \
    long long t2 = clk();                                                               \
    out[0] = t1 - t0;                                                                   \
    out[1] = t2 - t1;                                                                   \
  }

DEP_CHAIN(lat_fp32, float, x = fmaf(x, a, b))
DEP_CHAIN(lat_fp64, double, x = fma(x, a, b))
DEP_CHAIN(lat_int, int, x = x * a + b)
DEP_CHAIN(lat_sfu, float, x = __sinf(x))
DEP_CHAIN(lat_cvt, float, x = __int2float_rn(__float2int_rn(x)))

// ---- arithmetic throughput: every thread of one TB runs 4 independent chains
// (16 steps of each per loop iteration, so the loop's own instructions take
// few issue slots). Each warp's lane 0 records its start and end; the host
// takes the span from the first start to the last end.
#define THROUGHPUT(NAME, T, STEP)                                                          \
  extern "C" __global__ void NAME(T a, T b, int n, long long* out, volatile T* sink) {    \
    T x0 = a + T(threadIdx.x), x1 = x0 + b, x2 = x1 + b, x3 = x2 + b;                     \
    __syncthreads();                                                                       \
    long long t0 = clk();                                                                  \
    for (int i = 0; i < n; ++i) {                                                          \
      _Pragma("unroll") for (int k = 0; k < 16; ++k) {                                     \
        { T& x = x0; STEP; } { T& x = x1; STEP; } { T& x = x2; STEP; } { T& x = x3; STEP; } \
      }                                                                                    \
    }                                                                                      \
    sink[threadIdx.x] = x0 + x1 + x2 + x3;                                                 \
    long long t1 = clk();                                                                  \
    if (threadIdx.x % 32 == 0) {                                                           \
      out[2 * (threadIdx.x / 32)] = t0;                                                    \
      out[2 * (threadIdx.x / 32) + 1] = t1;                                                \
    }                                                                                      \
  }

THROUGHPUT(thr_fp32, float, x = fmaf(x, a, b))
THROUGHPUT(thr_fp64, double, x = fma(x, a, b))
THROUGHPUT(thr_int, int, x = x * a + b)
THROUGHPUT(thr_sfu, float, x = __sinf(x))

// ---- tensor cores: mma.sync m16n8k16, f16 inputs, f32 accumulators --------
// Whole warps (mma is warp-wide). The A and B fragments are four and two
// distinct registers made from the host's f16x2 words; D = A * B + D.
__device__ __forceinline__ void mma(float4& d, uint4 a, uint2 b) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d.x), "+f"(d.y), "+f"(d.z), "+f"(d.w)
      : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b.x), "r"(b.y));
}
__device__ __forceinline__ float sum(float4 d) { return d.x + d.y + d.z + d.w; }

// One warp; each mma accumulates into the previous one's results.
extern "C" __global__ void lat_mma(unsigned a, unsigned b, long long* out, volatile float* sink) {
  uint4 fa = make_uint4(a, a ^ 1u, a ^ 2u, a ^ 3u);
  uint2 fb = make_uint2(b, b ^ 1u);
  float4 d = make_float4(0.f, 0.f, 0.f, 0.f);
  // One untimed mma, stored: the fragments are built before the clock starts.
  mma(d, fa, fb);
  sink[threadIdx.x] = sum(d);
  long long t0 = clk();
#pragma unroll
  for (int i = 0; i < kSteps; ++i) mma(d, fa, fb);
  sink[threadIdx.x] = sum(d);
  long long t1 = clk();
#pragma unroll
  for (int i = 0; i < 2 * kSteps; ++i) mma(d, fa, fb);
  sink[threadIdx.x] = sum(d);
  long long t2 = clk();
  if (threadIdx.x == 0) {
    out[0] = t1 - t0;
    out[1] = t2 - t1;
  }
}

// Every warp of one TB: 4 independent accumulator chains, 16 steps of each
// per loop iteration, timed like the THROUGHPUT kernels.
extern "C" __global__ void thr_mma(unsigned a, unsigned b, int n, long long* out, volatile float* sink) {
  uint4 fa = make_uint4(a, a ^ 1u, a ^ 2u, a ^ 3u);
  uint2 fb = make_uint2(b, b ^ 1u);
  float4 d0 = make_float4(float(threadIdx.x), 0.f, 0.f, 0.f), d1 = d0, d2 = d0, d3 = d0;
  __syncthreads();
  long long t0 = clk();
  for (int i = 0; i < n; ++i) {
#pragma unroll
    for (int k = 0; k < 16; ++k) {
      mma(d0, fa, fb);
      mma(d1, fa, fb);
      mma(d2, fa, fb);
      mma(d3, fa, fb);
    }
  }
  sink[threadIdx.x] = sum(d0) + sum(d1) + sum(d2) + sum(d3);
  long long t1 = clk();
  if (threadIdx.x % 32 == 0) {
    out[2 * (threadIdx.x / 32)] = t0;
    out[2 * (threadIdx.x / 32) + 1] = t1;
  }
}

// ---- atomics: a dependent chain of atomic adds to one word (one thread) --
// The returned value (masked by the host's 0) forms the next address.
__device__ __forceinline__ void atomic_chain(unsigned* words, unsigned mask, long long* out, volatile unsigned* sink) {
  unsigned v = 0;
  long long t0 = clk();
#pragma unroll
  for (int i = 0; i < kSteps; ++i) v = atomicAdd(words + (v & mask), 1u);
  *sink = v;
  long long t1 = clk();
#pragma unroll
  for (int i = 0; i < 2 * kSteps; ++i) v = atomicAdd(words + (v & mask), 1u);
  *sink = v;
  long long t2 = clk();
  out[0] = t1 - t0;
  out[1] = t2 - t1;
}

extern "C" __global__ void lat_atomic_global(unsigned* word, unsigned mask, long long* out, volatile unsigned* sink) {
  atomic_chain(word, mask, out, sink);
}

extern "C" __global__ void lat_atomic_shared(unsigned mask, long long* out, volatile unsigned* sink) {
  __shared__ unsigned words[32];
  if (threadIdx.x < 32) words[threadIdx.x] = 0;
  __syncthreads();
  atomic_chain(words, mask, out, sink);
}

// ---- bandwidth ------------------------------------------------------------
// Thread 0 of every TB records its TB's start and end (after a barrier that
// follows the TB's last use of its loads or stores); the host divides the
// bytes by the span from the first start to the last end.
__device__ __forceinline__ void tb_times(long long t0, long long* out) {
  __syncthreads();
  long long t1 = clk();
  if (threadIdx.x == 0) {
    out[2 * blockIdx.x] = t0;
    out[2 * blockIdx.x + 1] = t1;
  }
}

// Grid-stride read of n float4.
extern "C" __global__ void bw_read(const float4* a, long long n, long long* out, volatile float* sink) {
  long long t0 = clk();
  float acc = 0.f;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    float4 v = a[i];
    acc += v.x + v.y + v.z + v.w;
  }
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
  tb_times(t0, out);
}

extern "C" __global__ void bw_write(float4* a, long long n, long long* out) {
  long long t0 = clk();
  float4 v = make_float4(1.f, 2.f, 3.f, 4.f);
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    a[i] = v;
  __threadfence();  // the stores are acknowledged before the TB's end is read
  tb_times(t0, out);
}

extern "C" __global__ void bw_copy(const float4* a, float4* b, long long n, long long* out) {
  long long t0 = clk();
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    b[i] = a[i];
  __threadfence();
  tb_times(t0, out);
}

// TB b reads `window` float4 starting at b * offset (wrapping at n, with a
// compare rather than a 64-bit remainder, a long instruction sequence), `passes`
// times: with offset * TBs below the window the TBs share lines (L2 reuse);
// the first pass is untimed when warm is set (the window then stays in L1).
extern "C" __global__ void bw_window(const float4* a, long long n, long long window, long long offset, int passes,
                                     int warm, long long* out, volatile float* sink) {
  float acc = 0.f;
  long long first = blockIdx.x * offset % n;
  if (warm) {
    for (long long i = threadIdx.x; i < window; i += blockDim.x) {
      long long k = first + i;
      float4 v = a[k < n ? k : k - n];
      acc += v.x;
    }
    sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    __syncthreads();
  }
  long long t0 = clk();
  for (int p = 0; p < passes; ++p)
    for (long long i = threadIdx.x; i < window; i += blockDim.x) {
      long long k = first + i;
      float4 v = a[k < n ? k : k - n];
      acc += v.x + v.y + v.z + v.w;
    }
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
  tb_times(t0, out);
}

// ---- launch overhead and barriers ------------------------------------------
extern "C" __global__ void empty_kernel() {}

// kSteps then 2 * kSteps barriers; thread 0 reports both spans.
extern "C" __global__ void barrier_loop(long long* out) {
  __syncthreads();
  long long t0 = clk();
#pragma unroll
  for (int i = 0; i < kSteps; ++i) __syncthreads();
  long long t1 = clk();
#pragma unroll
  for (int i = 0; i < 2 * kSteps; ++i) __syncthreads();
  long long t2 = clk();
  if (threadIdx.x == 0) {
    out[0] = t1 - t0;
    out[1] = t2 - t1;
  }
}
