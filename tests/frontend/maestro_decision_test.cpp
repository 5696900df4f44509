// The decision of the sharing policy maestro on synthetic CPI inputs, each
// expected value computed by hand from ANTT = 1/2 sum CPI_MK / CPI_SK and
// STP = sum CPI_SK / CPI_MK (spatial: each kernel has one SM of two).
#include "gpumux/frontend/policies/maestro_decision.h"

#include <gtest/gtest.h>

#include <limits>

namespace gpumux::frontend::maestro {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(MaestroDecision, ObjectivesOfOneGroup) {
  // Progress 2/4 = 0.5 and 4/8 = 0.5: STP 1, ANTT (2 + 2) / 2 = 2.
  EXPECT_DOUBLE_EQ(objective(Objective::Stp, {2, 4}, {4, 8}), 1.0);
  EXPECT_DOUBLE_EQ(objective(Objective::Antt, {2, 4}, {4, 8}), 2.0);
  // Spatial at the isolated CPI: each kernel runs at full speed on half the SMs.
  EXPECT_DOUBLE_EQ(objective(Objective::Stp, {2, 4}, {2, 4}, 2), 1.0);
  EXPECT_DOUBLE_EQ(objective(Objective::Antt, {2, 4}, {2, 4}, 2), 2.0);
  // A kernel that issued nothing: no progress, infinite slowdown.
  EXPECT_DOUBLE_EQ(objective(Objective::Stp, {1, 1}, {2, kInf}), 0.5);
  EXPECT_EQ(objective(Objective::Antt, {1, 1}, {2, kInf}), kInf);
}

TEST(MaestroDecision, UnevenTrialWinsOverFollowersAndSpatial) {
  EpochCpi e;
  e.isolated = {2, 4};
  e.followers = CpiPair{4, 8};     // STP 0.5 + 0.5 = 1;        ANTT (2 + 2) / 2 = 2
  e.trial_more = CpiPair{3, 10};   // STP 0.667 + 0.4 = 1.067;  ANTT (1.5 + 2.5) / 2 = 2
  e.trial_fewer = CpiPair{5, 5};   // STP 0.4 + 0.8 = 1.2;      ANTT (2.5 + 1.25) / 2 = 1.875
  e.spatial = CpiPair{2, 4};       // STP 1;                    ANTT 2
  Decision stp = decide(Objective::Stp, e);
  EXPECT_EQ(stp.choice, Choice::TrialFewer);
  EXPECT_DOUBLE_EQ(stp.objective, 1.2);
  Decision antt = decide(Objective::Antt, e);
  EXPECT_EQ(antt.choice, Choice::TrialFewer);
  EXPECT_DOUBLE_EQ(antt.objective, 1.875);
}

TEST(MaestroDecision, AnttAndStpCanDisagreeAndTiesKeepTheFollowers) {
  EpochCpi e;
  e.isolated = {1, 1};
  e.followers = CpiPair{2, 2};     // STP 1;                    ANTT 2
  e.trial_more = CpiPair{1.1, 4};  // STP 0.909 + 0.25 = 1.159; ANTT (1.1 + 4) / 2 = 2.55
  e.spatial = CpiPair{1, 1};       // STP 1;                    ANTT 2 (a tie with the followers)
  EXPECT_EQ(decide(Objective::Stp, e).choice, Choice::TrialMore);
  Decision antt = decide(Objective::Antt, e);
  EXPECT_EQ(antt.choice, Choice::Followers);
  EXPECT_DOUBLE_EQ(antt.objective, 2.0);
}

TEST(MaestroDecision, SpatialWinsUnderHeavyInterference) {
  EpochCpi e;
  e.isolated = {1, 1};
  e.followers = CpiPair{3, 3};      // STP 2/3;  ANTT 3
  e.trial_more = CpiPair{2.5, 4};   // STP 0.4 + 0.25 = 0.65; ANTT 3.25
  e.trial_fewer = CpiPair{4, 2.8};  // STP 0.25 + 0.357 = 0.607; ANTT 3.4
  e.spatial = CpiPair{1.2, 1.2};    // progress 1 / 1.2 / 2 = 0.4167 each: STP 0.833, ANTT 2.4
  Decision stp = decide(Objective::Stp, e);
  EXPECT_EQ(stp.choice, Choice::Spatial);
  EXPECT_NEAR(stp.objective, 0.8333333, 1e-6);
  Decision antt = decide(Objective::Antt, e);
  EXPECT_EQ(antt.choice, Choice::Spatial);
  EXPECT_DOUBLE_EQ(antt.objective, 2.4);
}

TEST(MaestroDecision, AStarvedKernelLosesToSpatial) {
  EpochCpi e;
  e.isolated = {1, 1};
  e.followers = CpiPair{2, kInf};  // STP 0.5; ANTT infinite
  e.spatial = CpiPair{1, 1};       // STP 1;   ANTT 2
  EXPECT_EQ(decide(Objective::Antt, e).choice, Choice::Spatial);
  EXPECT_EQ(decide(Objective::Stp, e).choice, Choice::Spatial);
}

TEST(MaestroDecision, WithoutIsolatedCpiOrFollowersNothingChanges) {
  EpochCpi e;
  e.isolated = {1, kInf};  // the other kernel issued nothing on its dedicated SM
  e.followers = CpiPair{2, 2};
  e.spatial = CpiPair{1, 1};
  EXPECT_EQ(decide(Objective::Stp, e).choice, Choice::Followers);
  EpochCpi no_followers;
  no_followers.isolated = {1, 1};
  no_followers.spatial = CpiPair{1, 1};
  EXPECT_EQ(decide(Objective::Stp, no_followers).choice, Choice::Followers);
}

TEST(MaestroDecision, StabilityIsARelativeChangeBound) {
  EXPECT_TRUE(stable({1, 2}, {1.04, 1.92}, 0.05));  // 4% and 4%
  EXPECT_FALSE(stable({1, 2}, {1.06, 2}, 0.05));    // 6%
  EXPECT_FALSE(stable({1, kInf}, {1, kInf}, 0.05));  // nothing measured
}

TEST(MaestroDecision, ObjectiveNames) {
  EXPECT_EQ(objective_named("antt"), Objective::Antt);
  EXPECT_EQ(objective_named("stp"), Objective::Stp);
  EXPECT_FALSE(objective_named("ipc"));
}

}  // namespace
}  // namespace gpumux::frontend::maestro
