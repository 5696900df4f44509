// Atomics built from atomicCAS loops: float max, a spin lock protecting a
// critical section, atomicExch, and 64-bit/sub-word CAS patterns.
__device__ float atomic_max_float(float* addr, float value) {
  int* ai = reinterpret_cast<int*>(addr);
  int old = *ai, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= value) break;
    old = atomicCAS(ai, assumed, __float_as_int(value));
  } while (assumed != old);
  return __int_as_float(old);
}

extern "C" __global__ void max_float(const float* x, float* result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomic_max_float(result, x[i]);
}

extern "C" __global__ void locked_accumulate(int* lock, double* acc, const double* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  // One lane per warp at a time to avoid intra-warp spin deadlock on old GPUs.
  for (int lane = 0; lane < 32; ++lane) {
    if ((threadIdx.x & 31) == lane) {
      while (atomicCAS(lock, 0, 1) != 0) {
      }
      __threadfence();
      *acc += x[i];
      __threadfence();
      atomicExch(lock, 0);
    }
  }
}

extern "C" __global__ void atomics_zoo(unsigned* u, int* s, unsigned long long* ull, float* f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicInc(&u[0], 1000u);
  atomicDec(&u[1], 1000u);
  atomicAnd(&u[2], ~(1u << (i & 31)));
  atomicOr(&u[3], 1u << (i & 31));
  atomicXor(&u[4], i);
  atomicMin(&s[0], -i);
  atomicMax(&s[1], i);
  atomicSub(&s[2], 3);
  atomicCAS(&ull[0], 0ull, (unsigned long long)i);
  atomicAdd(&ull[1], (unsigned long long)i);
  atomicMax(&ull[2], (unsigned long long)i * 7);
  atomicExch(&f[0], (float)i);
  f[1 + (i & 3)] = atomicAdd(&f[5], 1.0f);
  s[3 + i] = atomicAdd_block(&s[8], 1);
  atomicAdd_system(&u[5], 2u);
}
