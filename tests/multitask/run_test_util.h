// Shared checks of multiprogrammed runs.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string_view>
#include <string>
#include <utility>
#include <vector>

#include "gpumux/multitask/runner.h"
#include "multitask/run_test_util.h"

namespace gpumux::multitask::test {

// Options of a run without the applications' isolated runs: the tests that
// check the shared run only.
inline RunOptions no_baselines() {
  RunOptions o;
  o.baselines = false;
  return o;
}

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

// A test's own benchmark `spec` (static: it outlives the run) as application `name`.
inline AppSpec spec_app(const std::string& name, const workloads::WorkloadSpec& spec) {
  AppSpec a;
  a.name = name;
  a.benchmark = &spec;
  return a;
}

// An application named `name` whose kernel stores out of bounds: its run
// faults with "invalid global write access".
inline AppSpec faulting_app(const std::string& name = "faulty") {
  static constexpr std::string_view kPtx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry oob(.param .u64 p)
{
  .reg .b64 %rd<3>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [p];
  add.u64 %rd2, %rd1, 16777216;
  mov.u32 %r1, 7;
  st.global.u32 [%rd2], %r1;
  ret;
}
)";
  auto run = [](runtime::Context& ctx, runtime::Module& mod, workloads::Size, uint64_t) -> workloads::CheckResult {
    runtime::DevPtr p = ctx.malloc(4096);
    ctx.launch(mod.kernel("oob"), {4}, {64}, p);
    ctx.synchronize();
    return {true, "no fault?"};
  };
  static const workloads::WorkloadSpec kSpec{"oob", "out-of-bounds store", "test", kPtx,
                                             {"4 TBs", "4 TBs", "4 TBs", "4 TBs"}, +run};
  return spec_app(name, kSpec);
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
