// Kernels for the functional engine's end-to-end tests (tests/exec/).
// Each exercises one engine feature; the tests compare with CPU references.
#include <cuda_fp16.h>

extern "C" __global__ void vecadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// Tiled matrix multiply with shared memory: C[n x n] = A * B, TILE x TILE blocks.
#define TILE 16
extern "C" __global__ void matmul_tiled(const float* A, const float* B, float* C, int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.f;
  for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
    int ac = t * TILE + threadIdx.x, br = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < n && ac < n) ? A[row * n + ac] : 0.f;
    Bs[threadIdx.y][threadIdx.x] = (br < n && col < n) ? B[br * n + col] : 0.f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < n) C[row * n + col] = acc;
}

// Sum reduction: warp shuffles, then one partial per warp in dynamic shared memory.
extern "C" __global__ void reduce_sum(const int* in, int* out, int n) {
  extern __shared__ int partial[];
  int v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x >> 5) ? partial[lane] : 0;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if (lane == 0) atomicAdd(out, v);
  }
}

// Histogram with shared-memory atomics, merged with global atomics.
extern "C" __global__ void histogram(const unsigned char* data, unsigned* bins, int n) {
  __shared__ unsigned local[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    if (local[i]) atomicAdd(&bins[i], local[i]);
}

// One BFS level: divergent per-vertex work over a CSR graph.
extern "C" __global__ void bfs_step(const int* row_ptr, const int* cols, int* level, int cur,
                                    int n, int* changed) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n || level[v] != cur) return;
  for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
    int u = cols[e];
    if (level[u] < 0) {
      level[u] = cur + 1;
      *changed = 1;
    }
  }
}

// Nested divergence, a loop with a divergent exit and an early return.
extern "C" __global__ void nested_divergence(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = in[i], r = 0;
  if (x & 1) {
    if (x & 2) r = 10; else r = 20;
    for (int k = 0; k < (x & 15); ++k) {
      if (k * x > 40) break;
      r += k;
    }
  } else {
    if (x % 3 == 0) { out[i] = -1; return; }
    r = x * 2;
  }
  out[i] = r + __popc(__activemask() & 0xf);
}

// A divergent call to a non-inlined recursive device function, with a local array.
__device__ __noinline__ int fib(int k) { return k < 2 ? k : fib(k - 1) + fib(k - 2); }
__device__ __noinline__ float poly(float x, int deg) {
  float c[8];
  for (int i = 0; i < 8; ++i) c[i] = 0.5f * i;
  float r = 0.f;
  for (int i = deg; i >= 0; --i) r = r * x + c[i & 7];
  return r;
}
extern "C" __global__ void device_calls(const int* in, int* fibs, float* polys, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (in[i] % 2) fibs[i] = fib(in[i] % 12);
  else fibs[i] = -in[i];
  polys[i] = poly(0.25f * (i % 7), in[i] % 8);
}

// Votes, ballots and double precision.
extern "C" __global__ void votes_and_doubles(const int* in, unsigned* ballots, int* flags,
                                              double* dsum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool p = i < n && in[i] > 0;
  unsigned b = __ballot_sync(0xffffffffu, p);
  int all = __all_sync(0xffffffffu, p), any = __any_sync(0xffffffffu, p);
  if ((threadIdx.x & 31) == 0) {
    ballots[i >> 5] = b;
    flags[i >> 5] = all * 2 + any;
  }
  if (i < n) {
    double x = in[i];
    dsum[i] = sqrt(x * x + 1.0) / 3.0 + (double)__float2half_rn(0.5f * in[i]);
  }
}

// Faults: an out-of-bounds store, and a barrier that can never complete.
extern "C" __global__ void oob_store(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i + n] = i;
}
extern "C" __global__ void barrier_deadlock(int* out) {
  if (threadIdx.x < 32) {
    asm volatile("bar.sync 1, 64;");
  }
  out[threadIdx.x] = 1;
}

// A module variable initialised with addresses of other variables (+ offsets).
__device__ int table_data[4] = {11, 22, 33, 44};
__device__ int* table_ptrs[2] = {table_data, table_data + 2};
extern "C" __global__ void pointer_table(int* out) {
  out[threadIdx.x] = table_ptrs[threadIdx.x & 1][threadIdx.x >> 1];
}
