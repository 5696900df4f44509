// The sharing policy maestro past two kernels: kernels paired in dispatch
// order, each group on a contiguous SM range in proportion to its kernels,
// the SM roles of each pair within its range, and a lone kernel alone on its
// SMs (fake kernels on the SMs of a gtx980 configuration; the quotas below
// follow from the TB needs, computed by hand in the comments).
#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "frontend/frontend_test_util.h"
#include "gpumux/frontend/policies/maestro_pair.h"
#include "gpumux/frontend/sharing_policy.h"

namespace gpumux::frontend {
namespace {

constexpr uint32_t kUnl = SharingPolicy::kUnlimited;

using fixtures::allowed;
using fixtures::kernel;
using fixtures::range;
using fixtures::Sms;

TEST(MaestroGroups, EachKernelsEvenShareOfTheSmsSummedPerGroup) {
  EXPECT_EQ(maestro::group_sms(2, 16), (std::vector<size_t>{16}));
  EXPECT_EQ(maestro::group_sms(3, 16), (std::vector<size_t>{11, 5}));  // shares 6 + 5, 5
  EXPECT_EQ(maestro::group_sms(3, 12), (std::vector<size_t>{8, 4}));
  EXPECT_EQ(maestro::group_sms(4, 16), (std::vector<size_t>{8, 8}));
  EXPECT_EQ(maestro::group_sms(5, 16), (std::vector<size_t>{7, 6, 3}));  // shares 4 + 3, 3 + 3, 3
}

TEST(MaestroGroups, ThreeKernelsAPairWithItsRolesBesideALoneKernel) {
  Sms s(16);
  auto p = make_sharing_policy("maestro");
  // a: 256 threads x 32 registers, 8 TBs on an empty SM (the trial kernel);
  // b: 128 threads, 16 TBs; c: 512 threads.
  auto a = kernel(0, 256), b = kernel(1, 128), c = kernel(2, 512);
  std::vector<ActiveKernel> act{{a.get(), 100, 0}, {b.get(), 100, 0}, {c.get(), 100, 0}};
  p->repartition(act, s.span());
  // The pair (a, b) on SMs 0-10, c alone on 11-15.
  EXPECT_EQ(allowed(*p, *c, s), range(11, 16));
  EXPECT_EQ(p->quota(*c, 11), kUnl);
  for (uint32_t i = 11; i < 16; ++i) EXPECT_EQ(p->quota(*a, i) + p->quota(*b, i), 0u) << "SM " << i;
  // Dedicated SMs 0 (a) and 1 (b).
  EXPECT_EQ(p->quota(*a, 0), kUnl);
  EXPECT_EQ(p->quota(*b, 0), 0u);
  EXPECT_EQ(p->quota(*a, 1), 0u);
  EXPECT_EQ(p->quota(*b, 1), kUnl);
  // Even split: half an SM holds 4 TBs of a (1024 threads), b fills the other
  // 1024 threads with 8; trial +1: 5 of a, 768 threads left: 6 of b; trial -1:
  // 3 of a, 1280 threads left: 10 of b.
  EXPECT_EQ(p->quota(*a, 2), 5u);
  EXPECT_EQ(p->quota(*b, 2), 6u);
  EXPECT_EQ(p->quota(*a, 3), 3u);
  EXPECT_EQ(p->quota(*b, 3), 10u);
  for (uint32_t i = 4; i < 11; ++i) {
    EXPECT_EQ(p->quota(*a, i), 4u) << "SM " << i;
    EXPECT_EQ(p->quota(*b, i), 8u) << "SM " << i;
    EXPECT_EQ(p->quota(*c, i), 0u) << "SM " << i;
  }
  // c has no TB left to place: (a, b) is a pair on every SM.
  act[2].tbs_left = 0;
  p->repartition(act, s.span());
  EXPECT_EQ(allowed(*p, *a, s), (std::vector<uint32_t>{0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(p->quota(*b, 15), 8u);
  EXPECT_TRUE(allowed(*p, *c, s).empty());
}

TEST(MaestroGroups, FourKernelsTwoPairsEachWithItsOwnRoles) {
  Sms s(16);
  auto p = make_sharing_policy("maestro");
  auto a = kernel(0, 256), b = kernel(1, 128), c = kernel(2, 128), d = kernel(3, 256);
  std::vector<ActiveKernel> act{{a.get(), 100, 0}, {b.get(), 100, 0}, {c.get(), 100, 0}, {d.get(), 100, 0}};
  p->repartition(act, s.span());
  EXPECT_EQ(allowed(*p, *b, s), range(1, 8));  // all of (a, b)'s SMs but a's dedicated SM 0
  EXPECT_EQ(allowed(*p, *c, s), (std::vector<uint32_t>{9, 10, 11, 12, 13, 14, 15}));
  // In (c, d) the trial kernel is d (8 TBs on an empty SM against c's 16): SM 8 is d's.
  EXPECT_EQ(p->quota(*d, 8), kUnl);
  EXPECT_EQ(p->quota(*c, 9), kUnl);
  EXPECT_EQ(p->quota(*d, 10), 5u);
  EXPECT_EQ(p->quota(*c, 12), 8u);
  EXPECT_EQ(p->quota(*a, 12), 0u);
}

// Role swaps (place_trials): SMs 0, 1 dedicated, 2 trial +1, 3 trial -1,
// 4-7 followers at q = 4 (quotas: trial kernel, other kernel).
std::vector<maestro::SmSlot> last_layout(bool dedicated) {
  std::vector<maestro::SmSlot> s(8);
  for (auto& x : s) x = {true, maestro::Quota{4, 8}, std::nullopt};
  if (dedicated) s[0] = {false, maestro::Quota{kUnl, 0}, std::nullopt}, s[1] = {false, maestro::Quota{0, kUnl}, std::nullopt};
  s[2] = {true, maestro::Quota{5, 6}, 0};
  s[3] = {true, maestro::Quota{3, 10}, 1};
  return s;
}

// Where place_trials puts trial +1 and trial -1, and how many swaps it counts.
struct Placed {
  std::optional<size_t> more, fewer;
  uint32_t swaps = 0;
  bool operator==(const Placed&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Placed& p) {
  auto sm = [](std::optional<size_t> i) { return i ? std::to_string(*i) : std::string("none"); };
  return os << "{+1 on " << sm(p.more) << ", -1 on " << sm(p.fewer) << ", " << p.swaps << " swaps}";
}
Placed place(const std::vector<maestro::SmSlot>& s, std::optional<maestro::Quota> more,
             std::optional<maestro::Quota> fewer, maestro::Quota follower) {
  Placed p;
  auto at = maestro::place_trials(s, {more, fewer}, follower, p.swaps);
  p.more = at[0], p.fewer = at[1];
  return p;
}

TEST(MaestroRoleSwaps, WithoutHistoryTheTrialRolesTakeSms2And3) {
  std::vector<maestro::SmSlot> s(8);
  for (size_t i = 2; i < 8; ++i) s[i].free = true;
  EXPECT_EQ(place(s, maestro::Quota{5, 6}, maestro::Quota{3, 10}, {4, 8}), (Placed{2, 3, 0}));
  // An unused role leaves its SM to the followers; the other keeps its own.
  EXPECT_EQ(place(s, std::nullopt, maestro::Quota{3, 10}, {4, 8}), (Placed{std::nullopt, 3, 0}));
}

TEST(MaestroRoleSwaps, AnUnchangedSplitKeepsEveryRoleWhereItWas) {
  EXPECT_EQ(place(last_layout(true), maestro::Quota{5, 6}, maestro::Quota{3, 10}, {4, 8}), (Placed{2, 3, 0}));
}

TEST(MaestroRoleSwaps, TrialPlusOneWinsItsSmBecomesAFollowerAndAFollowerTrialMinusOne) {
  // q 4 -> 5: followers {5, 6}; trial +1 {6, 4}; trial -1 {4, 8}, a follower's split.
  // Trial +1 goes to the old trial -1 SM (3), whose TBs change anyway; trial
  // -1 to the first follower (4), which keeps its TBs (a swap); SM 2 keeps
  // {5, 6} as a follower, preempting nothing.
  EXPECT_EQ(place(last_layout(false), maestro::Quota{6, 4}, maestro::Quota{4, 8}, {5, 6}), (Placed{3, 4, 1}));
}

TEST(MaestroRoleSwaps, TrialMinusOneWinsAndTheDedicatedSmsAreNotTaken) {
  // q 4 -> 3: followers {3, 10}; trial +1 {4, 8} (a follower's split); trial -1 {2, 12}.
  auto s = last_layout(true);
  EXPECT_EQ(place(s, maestro::Quota{4, 8}, maestro::Quota{2, 12}, {3, 10}), (Placed{4, 2, 1}));
  // With only SMs 2 and 3 free, a role no SM's TBs fit takes the other trial
  // SM (2), whose TBs change anyway, not SM 3, which has the followers' split.
  for (size_t i = 4; i < 8; ++i) s[i].free = false;
  EXPECT_EQ(place(s, std::nullopt, maestro::Quota{9, 1}, {3, 10}), (Placed{std::nullopt, 2, 0}));
}

TEST(MaestroRoleSwaps, OtherwiseAnSmWhoseTbsChangeAnywayBeforeAFollower) {
  // SMs 0 and 1 were dedicated and are free now; 2-7 have the followers' split.
  auto s = last_layout(true);
  s[0].free = s[1].free = true;
  for (size_t i = 2; i < 8; ++i) s[i] = {true, maestro::Quota{4, 8}, std::nullopt};
  EXPECT_EQ(place(s, maestro::Quota{9, 1}, maestro::Quota{8, 2}, {4, 8}), (Placed{0, 1, 0}));
  // Without such SMs: the places of the layout without history.
  s[0].free = s[1].free = false;
  EXPECT_EQ(place(s, maestro::Quota{9, 1}, maestro::Quota{8, 2}, {4, 8}), (Placed{2, 3, 0}));
}

}  // namespace
}  // namespace gpumux::frontend
