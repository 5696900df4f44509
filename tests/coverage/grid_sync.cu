// Grid-wide barriers of cooperative groups, as a program launched with
// cudaLaunchCooperativeKernel uses them: a scan over the whole grid whose
// blocks wait at this_grid().sync() for each other's block sums. Outside a
// cooperative launch the grid has no barrier workspace and sync() traps.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// `rounds` inclusive prefix sums of data (n_per_block ints per block) in
// place: each block scans its part and publishes its total, a grid barrier,
// each block adds the totals of the blocks before it, a grid barrier before
// the next round overwrites the totals.
extern "C" __global__ void grid_scan(int* data, int* block_sums, int n_per_block, int rounds) {
  cg::grid_group grid = cg::this_grid();
  __shared__ int offset;
  int* mine = data + blockIdx.x * n_per_block;
  for (int r = 0; r < rounds; ++r) {
    if (threadIdx.x == 0) {
      int acc = 0;
      for (int i = 0; i < n_per_block; ++i) mine[i] = acc += mine[i];
      block_sums[blockIdx.x] = acc;
    }
    grid.sync();
    if (threadIdx.x == 0) {
      int off = 0;
      for (unsigned b = 0; b < blockIdx.x; ++b) off += block_sums[b];
      offset = off;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < n_per_block; i += blockDim.x) mine[i] += offset;
    grid.sync();
  }
}
