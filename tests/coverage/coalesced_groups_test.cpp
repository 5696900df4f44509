// Cooperative groups on divergent warps (tests/coverage/coalesced_groups.cu):
// warp-aggregated atomics, labeled partitions, a coalesced group's reduce,
// scan, shuffles and tiles (nvcc's fns), and sub-warp tiles whose .sync
// instructions name their own lanes, match the CPU on both backends. Also:
// freeing memory that a queued kernel uses waits for the kernel, as cudaFree
// does (CUB frees its temporary storage right after enqueueing a sort).
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <filesystem>

#include "backends_test_util.h"
#include "file_test_util.h"

namespace gpumux::test {
namespace {

runtime::Module& load(runtime::Context& ctx) {
  static const std::string ptx =
      read_file(std::filesystem::path(GPUMUX_SOURCE_DIR) / "tests/coverage/coalesced_groups.ptx");
  return ctx.load_module_string(ptx, "coalesced_groups.ptx");
}

std::vector<int32_t> random_ints(size_t n) {
  std::vector<int32_t> v(n);
  uint32_t s = 1;
  for (auto& x : v) x = int32_t(s = s * 1103515245u + 12345u);
  return v;
}

TEST(CoalescedGroups, WarpAggregatedCompactionThenMaximum) {
  const std::vector<int32_t> src = random_ints(20000);
  std::vector<int32_t> positive;
  for (int32_t x : src)
    if (x > 0) positive.push_back(x);
  on_both_backends("coalesced_groups", [&](runtime::Context& ctx) {
    runtime::Module& mod = load(ctx);
    runtime::DevPtr dsrc = upload(ctx, src), dst = ctx.malloc(src.size() * 4);
    runtime::DevPtr count = upload(ctx, std::vector<int32_t>{0}), max = upload(ctx, std::vector<int32_t>{INT_MIN});
    // 7 blocks of 96 threads: a grid-stride loop whose last round leaves warps partly active.
    ctx.launch(mod.kernel("filter_positive"), {7}, {96}, dst, count, dsrc, int32_t(src.size()));
    const int32_t n = read_back<int32_t>(ctx, count, 1)[0];
    ASSERT_EQ(size_t(n), positive.size());
    std::vector<int32_t> got = read_back<int32_t>(ctx, dst, size_t(n));
    std::sort(got.begin(), got.end());
    std::vector<int32_t> want = positive;
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want);  // each value once: every slot handed out exactly once
    ctx.launch(mod.kernel("max_reduce"), {5}, {128}, dst, n, max);
    EXPECT_EQ(read_back<int32_t>(ctx, max, 1)[0], want.back());
  });
}

TEST(CoalescedGroups, LabeledPartitionsTakeOneSlotEachPerBucket) {
  const std::vector<int32_t> keys = random_ints(3000);
  on_both_backends("coalesced_groups", [&](runtime::Context& ctx) {
    runtime::Module& mod = load(ctx);
    runtime::DevPtr dkeys = upload(ctx, keys), counters = upload(ctx, std::vector<int32_t>(8, 0));
    runtime::DevPtr slot = ctx.malloc(keys.size() * 4);
    ctx.launch(mod.kernel("bucket_slots"), {uint32_t((keys.size() + 255) / 256)}, {256}, dkeys,
               int32_t(keys.size()), counters, slot);
    const std::vector<int32_t> got_counters = read_back<int32_t>(ctx, counters, 8);
    const std::vector<int32_t> slots = read_back<int32_t>(ctx, slot, keys.size());
    for (int b = 0; b < 8; ++b) {
      std::vector<int32_t> taken;
      for (size_t i = 0; i < keys.size(); ++i)
        if ((keys[i] & 7) == b) taken.push_back(slots[i]);
      ASSERT_EQ(got_counters[size_t(b)], int32_t(taken.size())) << "bucket " << b;
      std::sort(taken.begin(), taken.end());
      for (size_t k = 0; k < taken.size(); ++k) ASSERT_EQ(taken[k], int32_t(k)) << "bucket " << b;
    }
  });
}

TEST(CoalescedGroups, ReduceScanShufflesAndTilesOfAnOddLaneGroup) {
  constexpr int kThreads = 256;
  std::vector<float> in(kThreads);
  for (int i = 0; i < kThreads; ++i) in[size_t(i)] = float(i % 13) * 0.5f;
  on_both_backends("coalesced_groups", [&](runtime::Context& ctx) {
    runtime::Module& mod = load(ctx);
    runtime::DevPtr din = upload(ctx, in);
    std::vector<runtime::DevPtr> out;
    for (int k = 0; k < 6; ++k) out.push_back(ctx.malloc(kThreads * 4));
    ctx.launch(mod.kernel("odd_lane_group"), {2}, {kThreads / 2}, din, out[0], out[1], out[2], out[3], out[4],
               out[5]);
    const auto sum = read_back<float>(ctx, out[0], kThreads), scan = read_back<float>(ctx, out[1], kThreads);
    const auto rotated = read_back<int32_t>(ctx, out[2], kThreads), down = read_back<int32_t>(ctx, out[3], kThreads);
    const auto up = read_back<int32_t>(ctx, out[4], kThreads), tile = read_back<int32_t>(ctx, out[5], kThreads);
    for (int w = 0; w < kThreads / 32; ++w) {
      float total = 0, prefix = 0;
      for (int r = 0; r < 16; ++r) total += in[size_t(w * 32 + 2 * r + 1)];
      for (int r = 0; r < 16; ++r) {  // the group's rank r is lane 2r + 1
        const size_t i = size_t(w * 32 + 2 * r + 1);
        prefix += in[i];
        EXPECT_NEAR(sum[i], total, 1e-4) << i;
        EXPECT_NEAR(scan[i], prefix, 1e-4) << i;
        EXPECT_EQ(rotated[i], w * 32 + 2 * ((r + 3) % 16) + 1) << i;
        EXPECT_EQ(down[i], r + 2 < 16 ? int32_t(i) + 4 : int32_t(i)) << i;
        EXPECT_EQ(up[i], r >= 1 ? int32_t(i) - 2 : int32_t(i)) << i;
        EXPECT_EQ(tile[i], (r / 4) * 100 + (r % 4) * 10 + 4) << i;
      }
    }
  });
}

// Tiles of 16, 8 and 4 threads reduce, ballot and vote over their own lanes
// only (every tile of a warp runs each .sync instruction at once).
TEST(CoalescedGroups, SubWarpTilesComputeOverTheirOwnLanes) {
  constexpr int kThreads = 256;
  std::vector<int32_t> in(kThreads);
  uint32_t s = 7;
  for (auto& v : in) v = int32_t(((s = s * 1103515245u + 12345u) >> 8) % 100);
  on_both_backends("coalesced_groups", [&](runtime::Context& ctx) {
    runtime::Module& mod = load(ctx);
    runtime::DevPtr din = upload(ctx, in), out = ctx.malloc(kThreads * 12 * 4);
    ctx.launch(mod.kernel("sub_warp_tiles"), {2}, {kThreads / 2}, din, out);
    const std::vector<int32_t> got = read_back<int32_t>(ctx, out, kThreads * 12);
    int slot = 0;
    for (int size : {16, 8, 4}) {
      for (int t = 0; t < kThreads / size; ++t) {
        int32_t max = -1, sum = 0, any = 0, all = 1;
        uint32_t ballot = 0;
        for (int j = 0; j < size; ++j) {
          const int32_t v = in[size_t(t * size + j)];
          max = std::max(max, v);
          sum += v;
          ballot |= uint32_t(v > 50) << j;
          any |= v > 90;
          all &= v > 5;
        }
        for (int j = 0; j < size; ++j) {
          const size_t i = size_t(t * size + j) * 12 + size_t(slot);
          ASSERT_EQ(got[i], max) << "tile of " << size << ", thread " << t * size + j;
          ASSERT_EQ(got[i + 1], sum) << "tile of " << size << ", thread " << t * size + j;
          ASSERT_EQ(uint32_t(got[i + 2]), ballot) << "tile of " << size << ", thread " << t * size + j;
          ASSERT_EQ(got[i + 3], any + 2 * all) << "tile of " << size << ", thread " << t * size + j;
        }
      }
      slot += 4;
    }
  });
}

// A kernel still queued when its input is freed: the free waits for it.
TEST(CoalescedGroups, FreeingMemoryAQueuedKernelUsesWaitsForTheKernel) {
  const std::vector<int32_t> src = random_ints(5000);
  const auto positives = size_t(std::count_if(src.begin(), src.end(), [](int32_t x) { return x > 0; }));
  on_both_backends("coalesced_groups", [&](runtime::Context& ctx) {
    runtime::Module& mod = load(ctx);
    runtime::DevPtr dsrc = upload(ctx, src), dst = ctx.malloc(src.size() * 4);
    runtime::DevPtr count = upload(ctx, std::vector<int32_t>{0});
    ctx.launch(mod.kernel("filter_positive"), {4}, {128}, dst, count, dsrc, int32_t(src.size()));
    ctx.free(dsrc);
    ctx.free(dst);
    ctx.synchronize();
    EXPECT_EQ(size_t(read_back<int32_t>(ctx, count, 1)[0]), positives);
  });
}

}  // namespace
}  // namespace gpumux::test
