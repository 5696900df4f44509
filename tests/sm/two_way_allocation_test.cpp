// GPU Maestro's 2-way (and 2n-way) resource allocation on the SM's pools
// (sm/two_way_allocation.h), and the synthetic register-fragmentation
// experiment of the paper's figure 6 (ASPLOS'17 3.3.1): measured here on the
// allocators the SM uses, for the one-ended first-fit (baseline) and 2-way.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "gpumux/sm/range_allocator.h"
#include "gpumux/sm/two_way_allocation.h"

namespace gpumux::sm {
namespace {

// One SM's register file and shared memory under 2-way allocation.
struct Pools {
  explicit Pools(uint32_t pairs, uint32_t registers = 65536, uint32_t shared = 98304)
      : regs(registers), smem(shared), two_way(pairs) {}
  bool fits(uint32_t kernel, uint32_t r) const { return two_way.fits(regs, smem, regs, kernel, r); }
  Range take(uint32_t kernel, uint32_t r) { return two_way.allocate(regs, smem, regs, kernel, r); }
  RangeAllocator regs, smem;
  TwoWayAllocation two_way;
};

TEST(TwoWayAllocation, KernelsGrowFromOppositeEndsOfThePool) {
  Pools p(1);
  Range a0 = p.take(7, 1000), a1 = p.take(7, 1000);
  Range b0 = p.take(9, 3000), b1 = p.take(9, 3000);
  EXPECT_EQ(a0.begin, 0u);
  EXPECT_EQ(a1.begin, 1000u);
  EXPECT_EQ(b0.end(), 65536u);
  EXPECT_EQ(b1.end(), 65536u - 3000);
  EXPECT_FALSE(p.two_way.from_top(p.regs, p.smem, 7));
  EXPECT_TRUE(p.two_way.from_top(p.regs, p.smem, 9));
  // A third kernel has no end until one of the two leaves the SM.
  EXPECT_FALSE(p.fits(11, 256));
  p.regs.release(a0);
  p.regs.release(a1);
  EXPECT_TRUE(p.fits(11, 256));
  EXPECT_EQ(p.take(11, 256).begin, 0u);  // the freed bottom end
}

TEST(TwoWayAllocation, AKernelLaunchesOnlyInItsSafeRegion) {
  Pools p(1, 10000);
  Range a0 = p.take(1, 2000), a1 = p.take(1, 2000), a2 = p.take(1, 2000);
  p.take(2, 3000);  // [7000, 10000)
  (void)a0;
  (void)a2;
  p.regs.release(a1);  // a hole [2000, 4000) inside kernel 1's region
  // 3000 free in total for kernel 2 but its safe region is [6000, 7000).
  EXPECT_FALSE(p.fits(2, 2000));
  EXPECT_TRUE(p.fits(2, 1000));
  // Kernel 1 refills its own hole first (lowest fit).
  EXPECT_EQ(p.take(1, 2000).begin, 2000u);
}

TEST(TwoWayAllocation, OneKernelAloneAllocatesLikeFirstFit) {
  // Spatial sharing mixed with 2-way: an SM with one kernel is unchanged.
  Pools p(1, 10000);
  RangeAllocator first_fit(10000);
  std::vector<Range> mine, theirs;
  for (uint32_t size : {1500u, 700u, 2300u, 1500u}) {
    mine.push_back(p.take(4, size));
    theirs.push_back(*first_fit.allocate(size));
  }
  p.regs.release(mine[1]);
  first_fit.release(theirs[1]);
  mine.push_back(p.take(4, 512));
  theirs.push_back(*first_fit.allocate(512));
  for (size_t i = 0; i < mine.size(); ++i) EXPECT_EQ(mine[i].begin, theirs[i].begin) << i;
}

TEST(TwoWayAllocation, TwoNWayGivesEachPairItsOwnPart) {
  Pools p(2, 8192);  // 4-way: parts [0, 4096) and [4096, 8192)
  EXPECT_EQ(p.take(1, 1024).begin, 0u);
  EXPECT_EQ(p.take(2, 1024).end(), 4096u);
  EXPECT_EQ(p.take(3, 1024).begin, 4096u);
  EXPECT_EQ(p.take(4, 1024).end(), 8192u);
  EXPECT_FALSE(p.fits(5, 256));
  // A kernel stays within its part even when the other part has room.
  EXPECT_TRUE(p.fits(1, 2048));
  EXPECT_FALSE(p.fits(1, 2304));
}

TEST(TwoWayAllocation, BoundaryTbsArePreemptedFirst) {
  // Bottom kernel: highest range first; top kernel: lowest range first.
  Range low{0, 100}, high{100, 100};
  EXPECT_TRUE(TwoWayAllocation::preempted_before(false, high, low));
  EXPECT_TRUE(TwoWayAllocation::preempted_before(true, low, high));
}

// Figure 6: kernels A and B share an SM (65536 registers, 32 TB slots) under
// even SMK, each with at most half of the registers and TB slots; A's TBs are
// placed first, then B's. After a repartition B launches one more TB, and A's
// TBs are preempted until enough registers are free in total. The share of
// the register file that is then free but unusable by B is the register
// fragmentation: 0 if B fits, nothing if A cannot free enough, and registers
// left over beyond B's whole TBs are under-utilised, not fragmented (the
// paper's z-axis excludes them), as in the SM's statistic.
// Baseline: one-ended first-fit, A's TBs preempted in random order (the
// paper's assumption), averaged over trials. 2-way: A from the bottom, B from
// the top, A's boundary TBs preempted first.
constexpr uint32_t kRegisters = 65536, kTbSlots = 32, kGranule = 256;

double fragmentation(uint32_t regs_a, uint32_t regs_b, bool two_way, std::mt19937& rng) {
  const uint32_t n_a = std::min(kTbSlots / 2, kRegisters / 2 / regs_a);
  const uint32_t n_b = std::min(kTbSlots / 2, kRegisters / 2 / regs_b);
  Pools p(1, kRegisters);
  RangeAllocator& rf = p.regs;
  auto take = [&](uint32_t kernel, uint32_t size) { return two_way ? p.take(kernel, size) : *rf.allocate(size); };
  auto fits_b = [&] { return two_way ? p.fits(2, regs_b) : rf.fits(regs_b); };
  std::vector<Range> a;
  for (uint32_t i = 0; i < n_a; ++i) a.push_back(take(1, regs_a));
  for (uint32_t i = 0; i < n_b; ++i) take(2, regs_b);
  if (two_way)
    std::sort(a.begin(), a.end(), [](const Range& x, const Range& y) {
      return TwoWayAllocation::preempted_before(false, x, y);
    });
  else
    std::shuffle(a.begin(), a.end(), rng);
  size_t next = 0;
  while (rf.capacity() - rf.used() < regs_b && next < a.size()) rf.release(a[next++]);
  const uint32_t free = rf.capacity() - rf.used();
  if (free < regs_b || fits_b()) return 0;
  return double(free / regs_b * regs_b) / kRegisters;
}

struct Figure6 {
  double max_share = 0;
  double mean_share = 0;
  double max_share_a_not_smaller = 0;  // over the points where A needs at least B's registers
  unsigned points = 0, fragmented_points = 0;
};

Figure6 figure6(bool two_way) {
  std::mt19937 rng(6);
  constexpr unsigned kTrials = 16;
  Figure6 f;
  for (uint32_t regs_a = 1024; regs_a <= 32768; regs_a += 1024)
    for (uint32_t regs_b = 1024; regs_b <= 32768; regs_b += 1024) {
      double sum = 0;
      for (unsigned t = 0; t < kTrials; ++t) sum += fragmentation(regs_a, regs_b, two_way, rng);
      const double share = sum / kTrials;
      ++f.points;
      f.fragmented_points += share > 0;
      f.mean_share += share;
      f.max_share = std::max(f.max_share, share);
      if (regs_a >= regs_b) f.max_share_a_not_smaller = std::max(f.max_share_a_not_smaller, share);
    }
  f.mean_share /= f.points;
  return f;
}

TEST(TwoWayAllocation, Figure6FragmentationWithFirstFitNoneWithTwoWay) {
  static_assert(32768 % kGranule == 0);
  const Figure6 base = figure6(false), two_way = figure6(true);
  // The paper: up to 50% (worst when A needs fewer than 32768 registers and
  // B close to 32768); none where A needs at least as many as B.
  EXPECT_GE(base.max_share, 0.45);
  EXPECT_LE(base.max_share, 0.50);
  EXPECT_GT(base.fragmented_points, base.points / 8);
  EXPECT_EQ(base.max_share_a_not_smaller, 0.0);
  // 2-way: B always finds the registers A released next to its own.
  EXPECT_EQ(two_way.fragmented_points, 0u);
  EXPECT_EQ(two_way.max_share, 0.0);
  RecordProperty("first_fit_max_share", std::to_string(base.max_share));
  RecordProperty("first_fit_mean_share", std::to_string(base.mean_share));
  RecordProperty("first_fit_fragmented_points", std::to_string(base.fragmented_points));
}

}  // namespace
}  // namespace gpumux::sm
