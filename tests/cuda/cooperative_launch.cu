// Cooperative launch: a grid as large as the GPU holds at once synchronizes
// with cooperative_groups' grid.sync() between the phases of a reduction that
// every block then reads back; a grid one block too large is refused with
// cudaErrorCooperativeLaunchTooLarge; a grid.sync() in an ordinary launch
// traps. Prints "PASS cooperative_launch" when every check holds.
#include <cooperative_groups.h>

#include <cstdio>
#include <vector>

#include "check.h"

namespace cg = cooperative_groups;

constexpr int kThreads = 128;

// Block b's sum of its grid-stride share of `in`, in partial[b].
__device__ void block_sum(const int* in, int n, int* partial) {
  __shared__ int sums[kThreads];
  int s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += in[i];
  sums[threadIdx.x] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) sums[threadIdx.x] += sums[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
}

// `rounds` times: the blocks' partial sums, a grid barrier, block 0 adds them
// up into totals[round], a grid barrier, every block subtracts the mean plus
// the round from its elements (so the next round sums what this round left).
__global__ void phased_sum(int* data, int n, int* partial, int* totals, int rounds) {
  cg::grid_group grid = cg::this_grid();
  for (int r = 0; r < rounds; ++r) {
    block_sum(data, n, partial);
    grid.sync();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
      int t = 0;
      for (unsigned b = 0; b < gridDim.x; ++b) t += partial[b];
      totals[r] = t;
    }
    grid.sync();
    // Every block must see block 0's total.
    int dec = totals[r] / n + r;
    for (int i = int(grid.thread_rank()); i < n; i += int(grid.size())) data[i] -= dec;
    grid.sync();
  }
}

void not_a_kernel() {}

__global__ void ordinary_grid_sync(int* p) {
  p[0] = 1;
  cg::this_grid().sync();  // no workspace outside a cooperative launch: traps
}

int main() {
  int coop = 0, sms = 0, per_sm = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
  CHECK(coop == 1);
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  CHECK(prop.cooperativeLaunch == 1);
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, phased_sum, kThreads, 0));
  CHECK(sms > 0 && per_sm > 0);
  int blocks = sms * per_sm;  // the largest co-resident grid

  const int n = blocks * kThreads * 2, rounds = 3;
  std::vector<int> host(n);
  for (int i = 0; i < n; ++i) host[i] = 1000 + i % 7;
  int *data, *partial, *totals;
  CHECK_CUDA(cudaMalloc(&data, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&partial, blocks * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&totals, rounds * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(data, host.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  int n_arg = n, rounds_arg = rounds;
  void* args[] = {&data, &n_arg, &partial, &totals, &rounds_arg};
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  CHECK_CUDA(cudaLaunchCooperativeKernel((void*)phased_sum, dim3(blocks), dim3(kThreads), args, 0, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));

  // The same rounds on the CPU.
  std::vector<int> expect_totals(rounds);
  for (int r = 0; r < rounds; ++r) {
    int t = 0;
    for (int v : host) t += v;
    expect_totals[r] = t;
    for (int& v : host) v -= t / n + r;
  }
  std::vector<int> got_totals(rounds), got(n);
  CHECK_CUDA(cudaMemcpy(got_totals.data(), totals, rounds * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(got.data(), data, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int r = 0; r < rounds; ++r) {
    if (got_totals[r] != expect_totals[r])
      std::fprintf(stderr, "round %d: total %d, expected %d\n", r, got_totals[r], expect_totals[r]);
    CHECK(got_totals[r] == expect_totals[r]);
  }
  for (int i = 0, shown = 0; i < n && shown < 5; ++i)
    if (got[i] != host[i]) std::fprintf(stderr, "data[%d] = %d, expected %d\n", i, got[i], host[i]), ++shown;
  CHECK(got == host);

  // A second launch on the default stream, with fewer blocks, starts from fresh barriers.
  CHECK_CUDA(cudaLaunchCooperativeKernel((void*)phased_sum, dim3(sms), dim3(kThreads), args, 0, nullptr));
  CHECK_CUDA(cudaDeviceSynchronize());

  // Too large: one block more than fits at once. Not sticky.
  CHECK_ERR(cudaLaunchCooperativeKernel((void*)phased_sum, dim3(blocks + 1), dim3(kThreads), args, 0, nullptr),
            cudaErrorCooperativeLaunchTooLarge);
  CHECK_ERR(cudaGetLastError(), cudaErrorCooperativeLaunchTooLarge);
  CHECK_ERR(cudaLaunchCooperativeKernel((void*)phased_sum, dim3(blocks), dim3(kThreads), nullptr, 0, nullptr),
            cudaErrorInvalidValue);
  CHECK_ERR(cudaLaunchCooperativeKernel((void*)not_a_kernel, dim3(1), dim3(1), args, 0, nullptr),
            cudaErrorInvalidDeviceFunction);
  CHECK_ERR(cudaLaunchCooperativeKernel((void*)phased_sum, dim3(0), dim3(kThreads), args, 0, nullptr),
            cudaErrorInvalidConfiguration);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidConfiguration);
  CHECK_CUDA(cudaGetLastError());

  // grid.sync() outside a cooperative launch is a trap, as on a GPU (sticky: last).
  ordinary_grid_sync<<<2, 32>>>(partial);
  CHECK_ERR(cudaDeviceSynchronize(), cudaErrorLaunchFailure);

  std::printf("PASS cooperative_launch (%d blocks of %d threads, %d rounds)\n", blocks, kThreads, rounds);
  return 0;
}
