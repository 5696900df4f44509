// The convergence detector of until = "converged" on synthetic per-window
// instruction counts: a steady rate converges, a drifting one never does, one
// that swings in long phases does not until the swings average out.
#include "gpumux/multitask/convergence.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace gpumux::multitask {
namespace {

constexpr Cycle kWindow = 1000;

// Feeds windows of kWindow cycles; returns the window (1-based) it converged
// after, or 0 if it never did.
size_t feed(RateConvergence& c, const std::vector<std::vector<uint64_t>>& per_window) {
  for (size_t k = 0; k < per_window.size(); ++k) {
    c.add_window(Cycle(k + 1) * kWindow, per_window[k]);
    if (c.converged()) return k + 1;
  }
  return 0;
}

TEST(RateConvergence, SteadyRatesConvergeAfterTheStatedWindows) {
  RateConvergence c({0.01, 5}, {0, 0});
  std::vector<std::vector<uint64_t>> w(50, {2000, 500});
  EXPECT_EQ(feed(c, w), 5u);  // exact rates: the first 5 estimates are already equal
  EXPECT_DOUBLE_EQ(c.estimate(0).ipc, 2.0);
  EXPECT_DOUBLE_EQ(c.estimate(1).ipc, 0.5);
  EXPECT_EQ(c.estimate(0).spread, 0.0);
  EXPECT_FALSE(c.estimate(0).batch_half_width);  // 5 windows: too few for 10 batches of 2
}

TEST(RateConvergence, NoisyRatesConvergeWithASmallBatchMeansInterval) {
  RateConvergence c({0.02, 10}, {0});
  std::vector<std::vector<uint64_t>> w;
  for (size_t k = 0; k < 400; ++k) w.push_back({k % 2 ? 900u : 1100u});  // 1.0 +- 10% per window
  size_t at = feed(c, w);
  ASSERT_GT(at, 10u);
  RateEstimate e = c.estimate(0);
  EXPECT_NEAR(e.ipc, 1.0, 0.02);
  EXPECT_LE(e.spread, 0.02);
  EXPECT_FALSE(e.batch_half_width);  // fewer than 20 windows
  for (size_t k = at; k < 100; ++k) c.add_window(Cycle(k + 1) * kWindow, w[k]);
  e = c.estimate(0);
  ASSERT_TRUE(e.batch_half_width);  // 10 batches of 10 windows, each of mean 1.0
  EXPECT_LT(*e.batch_half_width, 0.01);
  EXPECT_GE(e.bound(), e.spread);
}

TEST(RateConvergence, ADriftingRateNeverConverges) {
  RateConvergence c({0.01, 10}, {0});
  std::vector<std::vector<uint64_t>> w;
  for (size_t k = 0; k < 300; ++k) w.push_back({uint64_t(100 * std::pow(1.1, double(k) / 10))});  // +1%/window
  EXPECT_EQ(feed(c, w), 0u);
  EXPECT_FALSE(c.converged(0));
  EXPECT_GT(c.estimate(0).spread, 0.01);
}

TEST(RateConvergence, LongPhasesHoldOffConvergenceUntilTheyAverageOut) {
  // 20 windows at 2.0, 20 at 0.5, repeated (mean 1.25): over 30 windows the
  // running estimate swings by more than 5% for the first periods.
  std::vector<std::vector<uint64_t>> w;
  for (size_t k = 0; k < 400; ++k) w.push_back({(k / 20) % 2 ? 500u : 2000u});
  RateConvergence c({0.05, 30}, {0});
  size_t at = feed(c, w);
  EXPECT_GT(at, 80u);  // not within the first two periods
  ASSERT_GT(at, 0u);
  RateEstimate e = c.estimate(0);
  EXPECT_NEAR(e.ipc, 1.25, 0.07);
  // The batch-means interval shows the phases: far wider than the spread.
  ASSERT_TRUE(e.batch_half_width);
  EXPECT_GT(*e.batch_half_width, e.spread);
  // The limitation: fewer windows than a phase see one phase as steady.
  RateConvergence short_rule({0.05, 10}, {0});
  EXPECT_EQ(feed(short_rule, w), 10u);
  EXPECT_DOUBLE_EQ(short_rule.estimate(0).ipc, 2.0);
}

TEST(RateConvergence, WaitsForEveryAppFromItsArrivalAndSkipsRetiredOnes) {
  RateConvergence c({0.01, 3}, {0, 5000});
  std::vector<std::vector<uint64_t>> w(6, {1000, 0});
  EXPECT_EQ(feed(c, w), 0u);  // app 1 arrived at 5000 but issued nothing
  EXPECT_TRUE(c.converged(0));
  EXPECT_EQ(c.estimate(1).ipc, 0.0);
  c.retire(1);
  EXPECT_TRUE(c.converged());
}

TEST(RateConvergence, RejectsBadRulesAndWindows) {
  EXPECT_THROW(RateConvergence({0.0, 5}, {0}), std::invalid_argument);
  EXPECT_THROW(RateConvergence({1.0, 5}, {0}), std::invalid_argument);
  EXPECT_THROW(RateConvergence({0.1, 1}, {0}), std::invalid_argument);
  RateConvergence c({0.1, 2}, {0});
  c.add_window(1000, std::vector<uint64_t>{5});
  EXPECT_THROW(c.add_window(1000, std::vector<uint64_t>{5}), std::invalid_argument);     // not after the last
  EXPECT_THROW(c.add_window(2000, std::vector<uint64_t>{5, 5}), std::invalid_argument);  // one count per app
}

TEST(RateConvergence, MetricBoundsFollowEachAppsBound) {
  ConvergenceReport r;
  r.apps = {{1.0, 0.02, 0.04}, {2.0, 0.01, std::nullopt}};
  WorkloadMetrics m = compute_metrics(std::vector<AppTimes>{{"a", 2.0, 1.0}, {"b", 4.0, 1.0}});
  set_metric_bounds(r, m);
  // progress 0.5 x 0.04 + 0.25 x 0.01; NTT (2 x 0.04 + 4 x 0.01) / 2.
  EXPECT_DOUBLE_EQ(*r.stp_bound, 0.5 * 0.04 + 0.25 * 0.01);
  EXPECT_DOUBLE_EQ(*r.antt_bound, (2 * 0.04 + 4 * 0.01) / 2);
}

}  // namespace
}  // namespace gpumux::multitask
