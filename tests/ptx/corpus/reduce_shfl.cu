// Sum / max reductions: warp shuffles inside a warp, shared memory across warps,
// one atomic per block into the global result.
__device__ __forceinline__ float warp_sum(float v) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}

__device__ __forceinline__ int warp_max(int v) {
  for (int m = 1; m < 32; m <<= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, m));
  return v;
}

extern "C" __global__ void reduce_sum_f32(const float* in, float* out, unsigned n) {
  __shared__ float partial[32];
  float v = 0.0f;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    v += in[i];
  v = warp_sum(v);
  unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x + 31) / 32 ? partial[lane] : 0.0f;
    v = warp_sum(v);
    if (lane == 0) atomicAdd(out, v);
  }
}

extern "C" __global__ void reduce_max_i32(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : INT_MIN;
  v = warp_max(v);
  if ((threadIdx.x & 31) == 0) atomicMax(out, v);
}

// Inclusive warp scan with __shfl_up_sync, then broadcast of the warp total with __shfl_sync.
extern "C" __global__ void warp_scan_u32(const unsigned* in, unsigned* out, unsigned* totals) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[i];
  unsigned lane = threadIdx.x & 31;
  for (int d = 1; d < 32; d <<= 1) {
    unsigned up = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += up;
  }
  out[i] = v;
  unsigned total = __shfl_sync(0xffffffffu, v, 31);
  if (lane == 0) totals[i / 32] = total;
}
