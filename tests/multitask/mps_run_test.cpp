// The sharing policy mps end to end: a client's active-thread percentage caps
// the SMs its kernels run on, read back from the per-SM statistics (TBs
// completed per SM and kernel), and both clients pass their CPU checks; a
// client's device fault reaches the other clients unless fault isolation is on.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "multitask/run_test_util.h"

namespace gpumux::multitask {
namespace {

using test::benchmark_app;
using test::expect_all_passed;

// The SMs on which some kernel of application `app` completed a TB.
std::set<uint32_t> sms_used(const RunResult& r, const std::string& app, uint32_t num_sms) {
  std::set<uint32_t> used;
  const nlohmann::json& stats = r.stats.at("stats");
  for (uint32_t s = 0; s < num_sms; ++s) {
    const nlohmann::json& by_key = stats.at("sm" + std::to_string(s)).at("tbs_done").at("by_key");
    for (const auto& [label, n] : by_key.items())
      if (label.starts_with(app + ".") && n.get<uint64_t>() > 0) used.insert(s);
  }
  return used;
}

RunResult run_pair(std::map<uint32_t, uint32_t> percent_by_app) {
  WorkloadFile w = test::gtx980_workload({benchmark_app("sgemm"), benchmark_app("hotspot")}, "mps");
  w.policy_options.mps_percent_by_app = std::move(percent_by_app);
  w.overrides = {"gpu.num_sms=8", "frontend.check_invariants=true"};
  RunOptions o = test::no_baselines();
  RunResult r = run_workload(w, o);
  expect_all_passed(r);
  return r;
}

// 25% of 8 SMs: sgemm's TBs run on 2 SMs, hotspot (no limit) on every SM.
TEST(MpsRun, APercentageCapsTheClientsSms) {
  RunResult r = run_pair({{0, 25}});
  EXPECT_EQ(sms_used(r, "sgemm", 8), (std::set<uint32_t>{0, 1}));
  EXPECT_EQ(sms_used(r, "hotspot", 8).size(), 8u);
}

// Each limited client's range starts where the previous one's ends, and a
// share is rounded up to whole SMs: 20% and 80% of 8 SMs are 2 and 7 SMs,
// so the second range wraps around onto the first one's SM 0.
TEST(MpsRun, RangesFollowEachOtherAndWrapAround) {
  RunResult r = run_pair({{0, 20}, {1, 80}});
  EXPECT_EQ(sms_used(r, "sgemm", 8), (std::set<uint32_t>{0, 1}));
  EXPECT_EQ(sms_used(r, "hotspot", 8), (std::set<uint32_t>{2, 3, 4, 5, 6, 7, 0}));
}

// [policy] active_thread_percentage is the control daemon's default, for
// every client without its own: 50% each gives two clients the halves.
TEST(MpsRun, TheDaemonsDefaultLimitsEveryClient) {
  WorkloadFile w = parse_workload(
      "[policy]\nname = \"mps\"\nactive_thread_percentage = 50\n[[app]]\nbenchmark = \"sgemm\"\nsize = \"tiny\"\n"
      "[[app]]\nbenchmark = \"hotspot\"\nsize = \"tiny\"\n",
      "w.toml");
  w.overrides = {"gpu.num_sms=8", "frontend.check_invariants=true"};
  RunOptions o = test::no_baselines();
  RunResult r = run_workload(w, o);
  expect_all_passed(r);
  std::set<uint32_t> sgemm = sms_used(r, "sgemm", 8);
  EXPECT_FALSE(sgemm.empty());
  EXPECT_TRUE(std::all_of(sgemm.begin(), sgemm.end(), [](uint32_t s) { return s < 4; }));
  EXPECT_EQ(sms_used(r, "hotspot", 8), (std::set<uint32_t>{4, 5, 6, 7}));
}

// NVIDIA's MPS: a fatal fault of one client reaches every client of the
// server, whose running and later kernels fail with the same error.
TEST(MpsRun, AClientsFaultReachesEveryClient) {
  WorkloadFile w = test::gtx980_workload({benchmark_app("sgemm"), test::faulting_app(), benchmark_app("stencil")}, "mps");
  RunOptions o = test::no_baselines();
  o.overrides = {"frontend.check_invariants=true"};
  RunResult r = run_workload(w, o);
  ASSERT_EQ(r.apps.size(), 3u);
  EXPECT_NE(r.apps[1].error.find("invalid global write access"), std::string::npos) << r.apps[1].error;
  for (size_t i : {0u, 2u}) {
    EXPECT_NE(r.apps[i].error.find("invalid global write access"), std::string::npos) << r.apps[i].error;
    EXPECT_NE(r.apps[i].error.find("raised by kernel faulty.oob of another MPS client"), std::string::npos)
        << r.apps[i].name << ": " << r.apps[i].error;
  }
  // With fault isolation the others run on and pass their checks.
  w.policy_options.mps_fault_isolation = true;
  r = run_workload(w, o);
  EXPECT_NE(r.apps[1].error.find("invalid global write access"), std::string::npos) << r.apps[1].error;
  for (size_t i : {0u, 2u}) {
    EXPECT_TRUE(r.apps[i].error.empty()) << r.apps[i].name << ": " << r.apps[i].error;
    ASSERT_EQ(r.apps[i].runs.size(), 1u);
    EXPECT_TRUE(r.apps[i].runs[0].passed) << r.apps[i].runs[0].detail;
  }
}

// The server takes clients again once every client the fault reached has
// exited: an application arriving after sgemm and the faulting client ended
// runs normally and passes its check.
TEST(MpsRun, AClientArrivingAfterTheAffectedOnesExitedRunsNormally) {
  RunOptions o = test::no_baselines();
  o.overrides = {"frontend.check_invariants=true"};
  WorkloadFile first = test::gtx980_workload({benchmark_app("sgemm"), test::faulting_app()}, "mps");
  const RunResult before = run_workload(first, o);
  for (const AppOutcome& a : before.apps) ASSERT_FALSE(a.error.empty()) << a.name;  // both ended by the fault
  AppSpec late = benchmark_app("stencil");
  late.arrival = before.cycles + 1000;
  WorkloadFile w = test::gtx980_workload({benchmark_app("sgemm"), test::faulting_app(), late}, "mps");
  RunResult r = run_workload(w, o);
  ASSERT_EQ(r.apps.size(), 3u);
  EXPECT_NE(r.apps[0].error.find("raised by kernel faulty.oob of another MPS client"), std::string::npos)
      << r.apps[0].error;
  EXPECT_TRUE(r.apps[2].error.empty()) << r.apps[2].error;
  ASSERT_EQ(r.apps[2].runs.size(), 1u);
  EXPECT_TRUE(r.apps[2].runs[0].passed) << r.apps[2].runs[0].detail;
}

}  // namespace
}  // namespace gpumux::multitask
