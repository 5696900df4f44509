// Device printf (vprintf) and assert (__assertfail): engine built-ins.
#include <cassert>
#include <cstdio>

extern "C" __global__ void say_hello(const int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) printf("thread %d sees %d\n", i, x[i]);
}

extern "C" __global__ void checked(int* x) {
  assert(x[threadIdx.x] >= 0);
  x[threadIdx.x] += 1;
}
