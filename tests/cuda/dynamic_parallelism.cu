// Dynamic parallelism in an unmodified program built with -rdc=true: a
// parent launches one child grid per block, sized to the block's segment,
// and a tail launch that checks what the children wrote.
#include <vector>

#include "check.h"

__global__ void fill_segment(int* out, int begin, int len) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < len) out[begin + i] = (begin + i) * 2 + 1;
}

__global__ void count_filled(const int* out, int n, int* filled) {
  int count = 0;
  for (int i = 0; i < n; ++i) count += out[i] == i * 2 + 1;
  *filled = count;
}

__global__ void parent(int* out, int segment, int n, int* filled) {
  int begin = blockIdx.x * segment, len = min(segment, n - begin);
  if (threadIdx.x == 0 && len > 0) {
    fill_segment<<<(len + 63) / 64, 64>>>(out, begin, len);
    if (blockIdx.x == 0) count_filled<<<1, 1, 0, cudaStreamTailLaunch>>>(out, n, filled);
  }
}

int main() {
  const int n = 1000, segment = 300, blocks = (n + segment - 1) / segment;
  int *out, *filled;
  CHECK_CUDA(cudaMalloc(&out, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&filled, sizeof(int)));
  CHECK_CUDA(cudaMemset(out, 0, n * sizeof(int)));
  parent<<<blocks, 32>>>(out, segment, n, filled);
  CHECK_CUDA(cudaGetLastError());
  std::vector<int> h(n);
  int count = 0;
  CHECK_CUDA(cudaMemcpy(h.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(&count, filled, sizeof count, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(h[i] == i * 2 + 1);
  CHECK(count == n);
  std::printf("PASS dynamic_parallelism\n");
  return 0;
}
