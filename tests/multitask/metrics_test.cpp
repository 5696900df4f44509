#include "gpumux/multitask/metrics.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "gpumux/core/error.h"

namespace gpumux::multitask {
namespace {

TEST(Metrics, HandComputedTwoApps) {
  std::vector<AppTimes> in = {{"a", 150, 100}, {"b", 500, 200}};
  WorkloadMetrics m = compute_metrics(in);
  ASSERT_EQ(m.apps.size(), 2u);
  EXPECT_EQ(m.apps[0].name, "a");
  EXPECT_DOUBLE_EQ(m.apps[0].ntt, 1.5);
  EXPECT_DOUBLE_EQ(m.apps[1].ntt, 2.5);
  EXPECT_DOUBLE_EQ(m.apps[0].progress, 1 / 1.5);
  EXPECT_DOUBLE_EQ(m.apps[1].progress, 0.4);
  EXPECT_DOUBLE_EQ(m.antt, 2.0);
  EXPECT_NEAR(m.stp, 1.0667, 1e-4);  // 2/3 + 2/5 = 16/15
  EXPECT_DOUBLE_EQ(m.stp, 16.0 / 15.0);
  EXPECT_DOUBLE_EQ(m.fairness, 0.6);  // 0.4 / (2/3)
}

TEST(Metrics, ThreeAppsAndNoSlowdown) {
  std::vector<AppTimes> in = {{"x", 10, 10}, {"y", 30, 10}, {"z", 20, 10}};
  WorkloadMetrics m = compute_metrics(in);
  EXPECT_DOUBLE_EQ(m.antt, 2.0);                      // (1 + 3 + 2) / 3
  EXPECT_DOUBLE_EQ(m.stp, 1.0 + 1.0 / 3 + 0.5);
  EXPECT_DOUBLE_EQ(m.fairness, 1.0 / 3);              // min NP 1/3, max NP 1

  std::vector<AppTimes> alone = {{"solo", 42, 42}};
  WorkloadMetrics s = compute_metrics(alone);
  EXPECT_DOUBLE_EQ(s.stp, 1);
  EXPECT_DOUBLE_EQ(s.antt, 1);
  EXPECT_DOUBLE_EQ(s.fairness, 1);
}

TEST(Metrics, EqualSlowdownsAreFair) {
  std::vector<AppTimes> in = {{"a", 200, 100}, {"b", 900, 450}, {"c", 6, 3}};
  WorkloadMetrics m = compute_metrics(in);
  EXPECT_DOUBLE_EQ(m.fairness, 1.0);
  EXPECT_DOUBLE_EQ(m.antt, 2.0);
  EXPECT_DOUBLE_EQ(m.stp, 1.5);
}

TEST(Metrics, RejectsEmptyAndNonPositiveTimes) {
  EXPECT_THROW(compute_metrics({}), ApiError);
  double nan = std::numeric_limits<double>::quiet_NaN();
  double inf = std::numeric_limits<double>::infinity();
  for (AppTimes bad : {AppTimes{"bad", 0, 1}, AppTimes{"bad", 1, 0}, AppTimes{"bad", -5, 1}, AppTimes{"bad", 1, -1},
                       AppTimes{"bad", nan, 1}, AppTimes{"bad", 1, inf}}) {
    std::vector<AppTimes> in = {{"ok", 1, 1}, bad};
    try {
      compute_metrics(in);
      ADD_FAILURE() << "no error for shared " << bad.shared << " alone " << bad.alone;
    } catch (const ApiError& e) {
      EXPECT_NE(std::string(e.what()).find("'bad'"), std::string::npos) << e.what();
    }
  }
}

TEST(Metrics, Json) {
  std::vector<AppTimes> in = {{"a", 150, 100}, {"b", 500, 200}, {"a", 100, 100}};
  nlohmann::json j = to_json(compute_metrics(in));
  EXPECT_DOUBLE_EQ(j["antt"].get<double>(), (1.5 + 2.5 + 1) / 3);
  EXPECT_TRUE(j.contains("stp"));
  EXPECT_TRUE(j.contains("fairness"));
  EXPECT_DOUBLE_EQ(j["ntt"]["a"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(j["ntt"]["b"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(j["ntt"]["a#2"].get<double>(), 1.0);  // repeated names keep their entries
  ASSERT_EQ(j["apps"].size(), 3u);
  EXPECT_EQ(j["apps"][1]["name"], "b");
  EXPECT_DOUBLE_EQ(j["apps"][1]["progress"].get<double>(), 0.4);
  EXPECT_DOUBLE_EQ(j["apps"][1]["shared"].get<double>(), 500);
  EXPECT_DOUBLE_EQ(j["apps"][1]["alone"].get<double>(), 200);
  EXPECT_EQ(nlohmann::json::parse(j.dump()), j);
}

}  // namespace
}  // namespace gpumux::multitask
