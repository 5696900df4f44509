// Cooperative groups on divergent warps, the way real programs use them:
// warp-aggregated atomics on coalesced_threads() (one atomic per group, the
// leader's result shuffled to the members), per-key aggregation with
// labeled_partition (match.any), and a coalesced group's reduce, scan,
// shuffles and tiles, which nvcc builds on fns (the lane of a rank).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <climits>

namespace cg = cooperative_groups;

__device__ int aggregated_increment(int* counter) {
  cg::coalesced_group g = cg::coalesced_threads();
  int prev;
  if (g.thread_rank() == 0) prev = atomicAdd(counter, int(g.size()));
  return g.thread_rank() + g.shfl(prev, 0);
}

// Stream compaction of the positive values, in a grid-stride loop so that
// lanes leave the loop at different iterations.
extern "C" __global__ void filter_positive(int* dst, int* count, const int* src, int n) {
  for (int i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += gridDim.x * blockDim.x)
    if (src[i] > 0) dst[aggregated_increment(count)] = src[i];
}

// Each thread takes a slot of its bucket's counter: one atomic per bucket
// present in the warp.
extern "C" __global__ void bucket_slots(const int* keys, int n, int* counters, int* slot) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n) return;
  int bucket = keys[i] & 7;
  cg::coalesced_group active = cg::coalesced_threads();
  auto same = cg::labeled_partition(active, bucket);
  int prev;
  if (same.thread_rank() == 0) prev = atomicAdd(&counters[bucket], int(same.size()));
  slot[i] = same.thread_rank() + same.shfl(prev, 0);
}

// The maximum of a[0..n): a tile-wide reduce, then one atomic per warp.
extern "C" __global__ void max_reduce(const int* a, int n, int* result) {
  int m = INT_MIN;
  for (int i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += blockDim.x * gridDim.x) m = max(m, a[i]);
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  int r = cg::reduce(warp, m, cg::greater<int>());
  if (warp.thread_rank() == 0) atomicMax(result, r);
}

// The odd lanes of each warp form a coalesced group of 16; per thread: the
// group's float sum, inclusive scan, the value of rank + 3 (mod 16), shuffles
// down by 2 and up by 1, and its place in tiles of 4.
extern "C" __global__ void odd_lane_group(const float* in, float* sum, float* scan, int* rotated, int* down,
                                          int* up, int* tile) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (threadIdx.x & 1) {
    cg::coalesced_group g = cg::coalesced_threads();
    float v = in[i];
    sum[i] = cg::reduce(g, v, cg::plus<float>());
    scan[i] = cg::inclusive_scan(g, v);
    rotated[i] = g.shfl(i, (g.thread_rank() + 3) % g.size());
    down[i] = g.shfl_down(i, 2);
    up[i] = g.shfl_up(i, 1);
    auto t4 = cg::tiled_partition(g, 4);
    tile[i] = int(t4.meta_group_rank()) * 100 + int(t4.thread_rank()) * 10 + int(t4.size());
  }
}

// Sub-warp tiles of 16, 8 and 4 threads: every tile of a warp runs the same
// .sync instruction at once, each naming its own lanes in the membermask.
// Per thread and tile size: the tile's maximum, sum, ballot of v > 50, and
// any(v > 90) + 2 * all(v > 5).
template <int T>
__device__ void tile_ops(int v, int* out) {
  auto tile = cg::tiled_partition<T>(cg::this_thread_block());
  out[0] = cg::reduce(tile, v, cg::greater<int>());
  out[1] = cg::reduce(tile, v, cg::plus<int>());
  out[2] = int(tile.ballot(v > 50));
  out[3] = int(tile.any(v > 90)) + 2 * int(tile.all(v > 5));
}

extern "C" __global__ void sub_warp_tiles(const int* in, int* out) {
  const int i = threadIdx.x + blockIdx.x * blockDim.x;
  const int v = in[i];
  tile_ops<16>(v, out + i * 12);
  tile_ops<8>(v, out + i * 12 + 4);
  tile_ops<4>(v, out + i * 12 + 8);
}
