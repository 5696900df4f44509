// A sum reduction with dynamic shared memory; block results are added into a
// __device__ variable, scaled by a __constant__; symbol copies, function
// attributes and occupancy queries.
#include <vector>

#include "check.h"

__constant__ int scale;
__device__ unsigned long long total;
__device__ int block_sums[64];

__global__ void reduce(const int* in, int n) {
  extern __shared__ int buf[];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  buf[t] = i < n ? in[i] * scale : 0;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) {
    block_sums[blockIdx.x] = buf[0];
    atomicAdd(&total, (unsigned long long)buf[0]);
  }
}

int main() {
  const int n = 5000, threads = 128, blocks = (n + threads - 1) / threads;
  CHECK(blocks <= 64);
  std::vector<int> h(n);
  long long expect = 0;
  for (int i = 0; i < n; ++i) h[i] = (i * 7) % 13 - 3, expect += 3LL * h[i];
  int* d;
  CHECK_CUDA(cudaMalloc(&d, n * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  int three = 3;
  CHECK_CUDA(cudaMemcpyToSymbol(scale, &three, sizeof three));
  unsigned long long zero = 0;
  CHECK_CUDA(cudaMemcpyToSymbol(total, &zero, sizeof zero, 0, cudaMemcpyHostToDevice));
  size_t size = 0;
  CHECK_CUDA(cudaGetSymbolSize(&size, block_sums));
  CHECK(size == sizeof(int) * 64);

  cudaFuncAttributes attr;
  CHECK_CUDA(cudaFuncGetAttributes(&attr, reduce));
  CHECK(attr.maxThreadsPerBlock >= threads && attr.numRegs > 0);
  int per_sm = 0;
  CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce, threads, threads * sizeof(int)));
  CHECK(per_sm >= 1);
  int min_grid = 0, best_block = 0;
  CHECK_CUDA(cudaOccupancyMaxPotentialBlockSize(&min_grid, &best_block, reduce, 0, 0));
  CHECK(best_block >= 32 && best_block <= 1024 && min_grid >= 1);

  reduce<<<blocks, threads, threads * sizeof(int)>>>(d, n);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  unsigned long long got = 0;
  CHECK_CUDA(cudaMemcpyFromSymbol(&got, total, sizeof got));
  CHECK((long long)got == expect);
  // Read the block sums through the symbol's device address.
  int* sums_dev = nullptr;
  CHECK_CUDA(cudaGetSymbolAddress((void**)&sums_dev, block_sums));
  std::vector<int> sums(blocks);
  CHECK_CUDA(cudaMemcpy(sums.data(), sums_dev, blocks * sizeof(int), cudaMemcpyDeviceToHost));
  long long again = 0;
  for (int s : sums) again += s;
  CHECK(again == expect);
  // Partial symbol copy at an offset.
  int second = 0;
  CHECK_CUDA(cudaMemcpyFromSymbol(&second, block_sums, sizeof(int), sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(second == sums[1]);
  std::printf("sum %lld over %d blocks (%d per SM)\n", (long long)got, blocks, per_sm);
  std::printf("PASS reduction\n");
  return 0;
}
