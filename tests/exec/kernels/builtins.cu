// Kernels for the built-in device functions (tests/exec/builtins_test.cpp):
// printf, assert, malloc and free as CUDA programs call them.
#include <cassert>
#include <cstdio>

// Every conversion the engine formats; one line per thread, return values kept.
extern "C" __global__ void printf_formats(const char* word, int* ret) {
  int t = threadIdx.x;
  long l = -1234567890123L * (t + 1);
  unsigned long long big = 0xfedcba9876543210ULL + t;
  ret[t] = printf("t%d: %i %u %x %X %o %c %s %5.2f %e %g %ld %lld %lu %llx|%-6d|%06.1f|%+d|%.3s|%%\n",
                  t, -t, 4000000000u + t, 255 + t, 255 + t, 8 + t, 'a' + t, word, 3.14159f * t,
                  12345.678 * (t + 1), 0.0001 * (t + 1), l, l * 2, (unsigned long)(t + 7), big, t,
                  2.25f + t, t, word);
}

// Only some lanes print; the text comes out in lane order.
extern "C" __global__ void printf_divergent(int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t % 3 == 0 && t < n) printf("block %d thread %d\n", blockIdx.x, threadIdx.x);
  if (t == 0) printf("no arguments\n");
}

extern "C" __global__ void printf_pointer(const int* p) { printf("[%p]\n", p); }

extern "C" __global__ void checked_increment(int* x) {
  assert(x[threadIdx.x] >= 0);
  x[threadIdx.x] += 1;
}

// Each thread allocates n ints, fills them and publishes the pointer.
extern "C" __global__ void heap_fill(int** slots, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int* p = (int*)malloc(n * sizeof(int));
  if (p)
    for (int i = 0; i < n; ++i) p[i] = t * 100 + i;
  slots[t] = p;
}

// A later launch reads the blocks back and frees them.
extern "C" __global__ void heap_sum_free(int** slots, int n, int* sums) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int* p = slots[t];
  int s = -1;
  if (p) {
    s = 0;
    for (int i = 0; i < n; ++i) s += p[i];
    free(p);
  }
  sums[t] = s;
}

extern "C" __global__ void heap_free_twice(int** slots) {
  free(slots[threadIdx.x]);
  free(slots[threadIdx.x]);
}
