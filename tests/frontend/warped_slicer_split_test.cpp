// The split choice of the sharing policy warped-slicer on synthetic scaling
// curves, each expected split found by hand from the sum of normalised
// performance (curve(t) / max curve).
#include "gpumux/frontend/policies/warped_slicer_split.h"

#include <gtest/gtest.h>

#include <vector>

namespace gpumux::frontend::warped_slicer {
namespace {

// At most `slots` TBs per SM in all (a TB-slot budget).
auto within(uint32_t slots) {
  return [slots](std::span<const uint32_t> tbs) {
    uint32_t n = 0;
    for (uint32_t t : tbs) n += t;
    return n <= slots;
  };
}

TEST(WarpedSlicerSplit, ProfileCountsCoverOneToMax) {
  EXPECT_EQ(profile_counts(8, 4), (std::vector<uint32_t>{1, 2, 3, 4, 4, 4, 4, 4}));
  EXPECT_EQ(profile_counts(4, 4), (std::vector<uint32_t>{1, 2, 3, 4}));
  EXPECT_EQ(profile_counts(3, 8), (std::vector<uint32_t>{1, 5, 8}));  // 1 + 3.5 rounds to 5
  EXPECT_EQ(profile_counts(2, 16), (std::vector<uint32_t>{1, 16}));
  EXPECT_EQ(profile_counts(1, 6), (std::vector<uint32_t>{6}));
  EXPECT_TRUE(profile_counts(0, 6).empty());
}

TEST(WarpedSlicerSplit, InterpolatesBetweenAndAfterSamples) {
  // Samples at 2 (two SMs: 4 and 6, mean 5) and 4 (9); 0 at 0 TBs.
  std::vector<std::pair<uint32_t, double>> s = {{4, 9.0}, {2, 4.0}, {2, 6.0}};
  Curve c = interpolate(s, 6);
  ASSERT_EQ(c.size(), 7u);
  EXPECT_DOUBLE_EQ(c[0], 0.0);
  EXPECT_DOUBLE_EQ(c[1], 2.5);
  EXPECT_DOUBLE_EQ(c[2], 5.0);
  EXPECT_DOUBLE_EQ(c[3], 7.0);
  EXPECT_DOUBLE_EQ(c[4], 9.0);
  EXPECT_DOUBLE_EQ(c[5], 9.0);  // beyond the last sample: its value
  EXPECT_DOUBLE_EQ(c[6], 9.0);
}

TEST(WarpedSlicerSplit, SaturatingKernelGivesWayToScalingOne) {
  // A memory-bound kernel saturates at 2 TBs, with 90% at 1; a compute-bound
  // one scales linearly to 6. With 6 slots: (1, 5) gives 0.9 + 5/6 = 1.733,
  // (2, 4) 1 + 4/6 = 1.667, (3, 3) 1 + 3/6 = 1.5.
  Curve mem = {0, 0.9, 1.0, 1.0, 1.0, 1.0, 1.0};
  Curve com = {0, 1, 2, 3, 4, 5, 6};
  std::vector<Curve> curves = {mem, com};
  Split s = best_split(curves, within(6));
  EXPECT_EQ(s.tbs, (std::vector<uint32_t>{1, 5}));  // 0.9 + 5/6
  EXPECT_NEAR(s.performance, 0.9 + 5.0 / 6.0, 1e-12);
  // Without the steep first TB the memory kernel keeps 2: (2, 4) = 1 + 4/6 beats (1, 5) = 0.5 + 5/6.
  curves[0] = {0, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0};
  s = best_split(curves, within(6));
  EXPECT_EQ(s.tbs, (std::vector<uint32_t>{2, 4}));
  EXPECT_NEAR(s.performance, 1.0 + 4.0 / 6.0, 1e-12);
}

TEST(WarpedSlicerSplit, NonConcaveCurveFindsTheTrueOptimum) {
  // Kernel 0 only pays off with all 4 TBs (a greedy filling stalls at its
  // first TB, worth nothing); kernel 1 is flat after 1 TB.
  std::vector<Curve> curves = {{0, 0, 0, 0, 1.0}, {0, 1.0, 1.0, 1.0, 1.0}};
  Split s = best_split(curves, within(5));
  EXPECT_EQ(s.tbs, (std::vector<uint32_t>{4, 1}));
  EXPECT_DOUBLE_EQ(s.performance, 2.0);
}

TEST(WarpedSlicerSplit, TiesGoToTheFairerThenTheFirstSplit) {
  // Linear curves to 4 with 4 slots: (1, 3), (2, 2) and (3, 1) all sum to 1;
  // the fairer (2, 2) (minimum 1/2) wins.
  std::vector<Curve> linear = {{0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}};
  EXPECT_EQ(best_split(linear, within(4)).tbs, (std::vector<uint32_t>{2, 2}));
  // Flat curves: every split scores 2 with minimum 1; the first, (1, 1), stands.
  std::vector<Curve> flat = {{0, 1, 1, 1}, {0, 1, 1, 1}};
  EXPECT_EQ(best_split(flat, within(6)).tbs, (std::vector<uint32_t>{1, 1}));
}

TEST(WarpedSlicerSplit, ThreeKernelsAndNoFit) {
  std::vector<Curve> curves = {{0, 1, 2}, {0, 1, 1}, {0, 1, 2, 3}};
  Split s = best_split(curves, within(5));
  // (2, 1, 2): 1 + 1 + 2/3 = 2.667 beats (1, 1, 3): 0.5 + 1 + 1 = 2.5.
  EXPECT_EQ(s.tbs, (std::vector<uint32_t>{2, 1, 2}));
  EXPECT_TRUE(best_split(curves, within(2)).tbs.empty());  // one TB each does not fit
  // A kernel that issued nothing while profiled (flat 0) still gets a TB.
  std::vector<Curve> idle = {{0, 0, 0}, {0, 1, 2}};
  EXPECT_EQ(best_split(idle, within(3)).tbs, (std::vector<uint32_t>{1, 2}));
}

}  // namespace
}  // namespace gpumux::frontend::warped_slicer
