// Oversubscribed managed memory: a histogram-like sweep over an array larger
// than the device memory its run is given (the test's config sets
// vm.device_memory_bytes), passed over several times so that every pass
// evicts what the previous one brought. Slow under demand paging; the
// result still matches the CPU.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.h"

__global__ void scale_and_sum(int* data, int n, int factor, unsigned long long* sum) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  data[i] *= factor;
  atomicAdd(sum, (unsigned long long)data[i]);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 19;  // 2 MB by default
  const int passes = 3;
  int* data = nullptr;
  unsigned long long* sum = nullptr;
  CHECK_CUDA(cudaMallocManaged(&data, size_t(n) * sizeof(int)));
  CHECK_CUDA(cudaMallocManaged(&sum, sizeof *sum));
  std::vector<int> ref(n);
  for (int i = 0; i < n; ++i) data[i] = ref[i] = i % 13;
  *sum = 0;
  unsigned long long ref_sum = 0;
  for (int p = 0; p < passes; ++p) {
    scale_and_sum<<<(n + 255) / 256, 256>>>(data, n, p + 2, sum);
    CHECK_CUDA(cudaGetLastError());
    for (int i = 0; i < n; ++i) {
      ref[i] *= p + 2;
      ref_sum += (unsigned long long)ref[i];
    }
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) CHECK(data[i] == ref[i]);
  CHECK(*sum == ref_sum);
  CHECK_CUDA(cudaFree(data));
  CHECK_CUDA(cudaFree(sum));
  std::printf("PASS managed_oversubscribe\n");
  return 0;
}
