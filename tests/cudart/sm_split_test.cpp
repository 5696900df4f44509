// The SM split of green contexts (src/gpumux/cudart/driver/sm_split.h):
// granularity per compute capability, group sizes, the remainder, the group
// count limit and the impossible requests.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "gpumux/cudart/driver/sm_split.h"

namespace {

using gpumux::cudart::driver::sm_granularity;
using gpumux::cudart::driver::SmGranularity;
using gpumux::cudart::driver::split_sms_by_count;
using gpumux::cudart::driver::SplitStatus;

std::vector<uint32_t> sms(uint32_t first, uint32_t count) {
  std::vector<uint32_t> v(count);
  std::iota(v.begin(), v.end(), first);
  return v;
}

TEST(SmSplit, GranularityFollowsTheDocumentedGuideline) {
  auto eq = [](SmGranularity g, uint32_t min, uint32_t mult) { return g.min_sms == min && g.multiple == mult; };
  EXPECT_TRUE(eq(sm_granularity(6, false), 2, 2));
  EXPECT_TRUE(eq(sm_granularity(7, false), 2, 2));
  EXPECT_TRUE(eq(sm_granularity(8, false), 4, 2));
  EXPECT_TRUE(eq(sm_granularity(9, false), 8, 8));
  EXPECT_TRUE(eq(sm_granularity(10, false), 8, 8));
  EXPECT_TRUE(eq(sm_granularity(8, true), 1, 1));
  EXPECT_TRUE(eq(sm_granularity(9, true), 1, 1));
}

TEST(SmSplit, MinCountRoundsUpToTheMinimumAndTheMultiple) {
  const std::vector<uint32_t> all = sms(0, 16);
  const SmGranularity cc8 = sm_granularity(8, false), cc9 = sm_granularity(9, false);
  EXPECT_EQ(split_sms_by_count(all, 0, 0, cc8).group_sms, 4u);  // 0: the minimum
  EXPECT_EQ(split_sms_by_count(all, 0, 1, cc8).group_sms, 4u);
  EXPECT_EQ(split_sms_by_count(all, 0, 5, cc8).group_sms, 6u);
  EXPECT_EQ(split_sms_by_count(all, 0, 6, cc8).group_sms, 6u);
  EXPECT_EQ(split_sms_by_count(all, 0, 3, cc9).group_sms, 8u);
  EXPECT_EQ(split_sms_by_count(all, 0, 9, cc9).group_sms, 16u);
  EXPECT_EQ(split_sms_by_count(all, 0, 3, sm_granularity(8, true)).group_sms, 3u);
}

TEST(SmSplit, GroupsTakeTheInputsSmsInOrderAndLeaveTheRest) {
  auto s = split_sms_by_count(sms(0, 16), 0, 5, sm_granularity(8, false));
  ASSERT_EQ(s.status, SplitStatus::Ok) << s.error;
  ASSERT_EQ(s.groups.size(), 2u);
  EXPECT_EQ(s.groups[0], sms(0, 6));
  EXPECT_EQ(s.groups[1], sms(6, 6));
  EXPECT_EQ(s.remaining, sms(12, 4));
  // An input that is not SMs 0..n-1 (a green context's resource split again).
  const std::vector<uint32_t> odd = {1, 3, 5, 7, 9, 11, 13};
  s = split_sms_by_count(odd, 0, 2, sm_granularity(7, false));
  ASSERT_EQ(s.groups.size(), 3u);
  EXPECT_EQ(s.groups[2], (std::vector<uint32_t>{9, 11}));
  EXPECT_EQ(s.remaining, (std::vector<uint32_t>{13}));
}

TEST(SmSplit, AtMostTheRequestedGroups) {
  auto s = split_sms_by_count(sms(0, 80), 3, 8, sm_granularity(8, false));
  ASSERT_EQ(s.groups.size(), 3u);
  EXPECT_EQ(s.groups[2], sms(16, 8));
  EXPECT_EQ(s.remaining, sms(24, 56));
  EXPECT_EQ(split_sms_by_count(sms(0, 80), 0, 8, sm_granularity(8, false)).groups.size(), 10u);  // no limit
  auto exact = split_sms_by_count(sms(0, 16), 0, 8, sm_granularity(9, false));
  EXPECT_EQ(exact.groups.size(), 2u);
  EXPECT_TRUE(exact.remaining.empty());
}

TEST(SmSplit, ImpossibleRequestsAreErrors) {
  auto beyond = split_sms_by_count(sms(0, 16), 0, 17, sm_granularity(8, false));
  EXPECT_EQ(beyond.status, SplitStatus::InvalidValue);
  EXPECT_NE(beyond.error.find("minCount 17"), std::string::npos) << beyond.error;
  // 15 SMs at a multiple of 8: minCount 9 needs 16.
  auto rounded = split_sms_by_count(sms(0, 15), 0, 9, sm_granularity(9, false));
  EXPECT_EQ(rounded.status, SplitStatus::InvalidConfiguration);
  EXPECT_NE(rounded.error.find("takes 16"), std::string::npos) << rounded.error;
  // Fewer SMs than the minimum group.
  EXPECT_EQ(split_sms_by_count(sms(0, 3), 0, 0, sm_granularity(8, false)).status, SplitStatus::InvalidConfiguration);
  EXPECT_TRUE(split_sms_by_count(sms(0, 3), 0, 0, sm_granularity(8, false)).groups.empty());
}

}  // namespace
