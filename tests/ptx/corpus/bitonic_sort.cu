// Bitonic sorting network over 1024 keys per block in shared memory, plus a
// global-memory step kernel for larger arrays.
#define N_SHARED 1024

__device__ __forceinline__ void cmp_swap(unsigned& a, unsigned& b, bool dir) {
  if ((a > b) == dir) {
    unsigned t = a;
    a = b;
    b = t;
  }
}

extern "C" __global__ void bitonic_sort_shared(unsigned* keys) {
  __shared__ unsigned s[N_SHARED];
  unsigned* base = keys + blockIdx.x * N_SHARED;
  for (int i = threadIdx.x; i < N_SHARED; i += blockDim.x) s[i] = base[i];
  for (unsigned size = 2; size <= N_SHARED; size <<= 1) {
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      for (unsigned t = threadIdx.x; t < N_SHARED / 2; t += blockDim.x) {
        unsigned pos = 2 * t - (t & (stride - 1));
        bool dir = ((pos & size) == 0);
        cmp_swap(s[pos], s[pos + stride], dir);
      }
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < N_SHARED; i += blockDim.x) base[i] = s[i];
}

extern "C" __global__ void bitonic_step_global(unsigned long long* keys, unsigned j, unsigned k) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned ixj = i ^ j;
  if (ixj > i) {
    unsigned long long a = keys[i], b = keys[ixj];
    bool up = (i & k) == 0;
    if ((a > b) == up) {
      keys[i] = b;
      keys[ixj] = a;
    }
  }
}
