// The enhanced warp scheduler's parts (ISCA'17 3.3): per-kernel quota
// counters and the wrapper that hides kernels without quota from the base
// scheduler.
#include "gpumux/sm/warp_scheduler/quota_warp_scheduler.h"

#include <gtest/gtest.h>

#include <vector>

namespace gpumux::sm {
namespace {

WarpView view(uint16_t slot, uint32_t kernel, bool ready = true) {
  WarpView v;
  v.slot = slot;
  v.kernel = kernel;
  v.age = slot;
  v.ready = ready;
  return v;
}

TEST(KernelQuotas, ChargedByActiveThreadsAndThrottledAtZero) {
  KernelQuotas q;
  EXPECT_TRUE(q.allows(7));  // no counter: not throttled
  q.charge(7, 32);           // and nothing to charge
  EXPECT_FALSE(q.remaining(7).has_value());
  q.set(7, 40, true);
  EXPECT_TRUE(q.allows(7));
  q.charge(7, 32);
  EXPECT_EQ(q.remaining(7), 8);
  EXPECT_TRUE(q.allows(7));
  q.charge(7, 12);  // a diverged warp: 12 active threads; overshoots below zero
  EXPECT_EQ(q.remaining(7), -4);
  EXPECT_FALSE(q.allows(7));
  q.set(7, 40, true);  // the next epoch resets it
  EXPECT_TRUE(q.allows(7));
  q.clear();
  EXPECT_FALSE(q.remaining(7).has_value());
}

TEST(KernelQuotas, NonQosRefilledOnlyOnceEveryQosCounterIsUsedUp) {
  KernelQuotas q;
  q.set(1, 64, true);   // QoS
  q.set(2, 32, false);  // non-QoS
  q.charge(2, 32);
  EXPECT_FALSE(q.allows(2));  // the QoS kernel still has quota
  EXPECT_EQ(q.remaining(2), 0);
  q.charge(1, 64);
  EXPECT_FALSE(q.allows(1));  // a QoS kernel is never refilled
  EXPECT_TRUE(q.allows(2));   // refilled by its quota
  EXPECT_EQ(q.remaining(2), 32);
  EXPECT_EQ(q.remaining(1), 0);
}

// Rollover-Time: a non-QoS quota of 0 waits for the QoS counters, then is not throttled.
TEST(KernelQuotas, ANonQosQuotaOfZeroWaitsForTheQosKernelsThenRunsFree) {
  KernelQuotas q;
  q.set(1, 64, true);
  q.set(2, 0, false);
  EXPECT_FALSE(q.allows(2));
  q.charge(1, 64);
  EXPECT_TRUE(q.allows(2));
  q.charge(2, 1000);
  EXPECT_TRUE(q.allows(2));
}

// Elastic epochs end once every counter is used up (a non-QoS one: refilled).
TEST(KernelQuotas, AllUsedOnceEveryCounterIsUsedUpOrRefilled) {
  KernelQuotas q;
  EXPECT_TRUE(q.empty());
  q.set(1, 64, true);
  q.set(2, 32, false);
  EXPECT_FALSE(q.all_used());
  q.charge(1, 64);
  EXPECT_FALSE(q.all_used());
  q.charge(2, 32);
  EXPECT_TRUE(q.all_used());
  EXPECT_TRUE(q.allows(2));  // refilled
  EXPECT_TRUE(q.all_used());
  q.set(2, 32, false);  // a new epoch
  EXPECT_FALSE(q.all_used());
}

TEST(QuotaWarpScheduler, AKernelAtZeroQuotaDoesNotIssue) {
  KernelQuotas q;
  QuotaWarpScheduler s(make_warp_scheduler("gto", SmParams{}), q);
  std::vector<WarpView> warps = {view(0, 1), view(1, 2), view(2, 1)};
  q.set(1, 0, true);
  q.set(2, 100, false);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(s.pick(warps), 1);  // only kernel 2's warp
  q.set(2, 0, true);
  EXPECT_EQ(s.pick(warps), -1);  // ready warps, none allowed: throttled
  q.set(1, 5, true);
  int p = s.pick(warps);
  EXPECT_TRUE(p == 0 || p == 2) << p;  // the base scheduler chooses among kernel 1's warps
  std::vector<WarpView> only_throttled_ready = {view(0, 1, false), view(1, 2)};
  EXPECT_EQ(s.pick(only_throttled_ready), -1);
}

TEST(QuotaWarpScheduler, KeepsTheBaseOrderAmongAllowedWarps) {
  KernelQuotas q;
  QuotaWarpScheduler s(make_warp_scheduler("lrr", SmParams{}), q);
  std::vector<WarpView> warps = {view(0, 1), view(1, 2), view(2, 1), view(3, 1)};
  q.set(2, 0, true);
  std::vector<int> order;
  for (int i = 0; i < 4; ++i) order.push_back(s.pick(warps));
  EXPECT_EQ(order, (std::vector<int>{0, 2, 3, 0}));  // round robin over kernel 1's warps
}

}  // namespace
}  // namespace gpumux::sm
