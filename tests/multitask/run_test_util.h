// Shared checks of multiprogrammed runs.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpumux/multitask/runner.h"

namespace gpumux::multitask::test {

// Library benchmark `bench` as an application named after it, with a QoS goal if given.
inline AppSpec benchmark_app(const std::string& bench, std::optional<double> goal = std::nullopt) {
  AppSpec a;
  a.benchmark = workloads::find_workload(bench);
  EXPECT_NE(a.benchmark, nullptr) << bench;
  a.name = bench;
  a.qos_goal = goal;
  return a;
}

// `apps` under `policy` on the gtx980 preset file.
inline WorkloadFile gtx980_workload(std::vector<AppSpec> apps, const std::string& policy) {
  WorkloadFile w;
  w.gpu = std::string(GPUMUX_SOURCE_DIR) + "/configs/gtx980.toml";
  w.policy = policy;
  w.apps = std::move(apps);
  return w;
}

// Every application ran and every run passed its CPU check.
inline void expect_all_passed(const RunResult& r) {
  for (const AppOutcome& a : r.apps) {
    EXPECT_TRUE(a.error.empty()) << a.name << ": " << a.error;
    ASSERT_FALSE(a.runs.empty()) << a.name;
    for (const AppRun& run : a.runs) EXPECT_TRUE(run.passed) << a.name << ": " << run.detail;
  }
}

}  // namespace gpumux::multitask::test
