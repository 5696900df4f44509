// QoS goals end to end: two applications share the SMs (smk-even); the one
// with a qos_goal gets nearer its goal IPC under the naive quota scheme than
// without quotas, and both still compute the right results.
#include <gtest/gtest.h>

#include <filesystem>

#include "gpumux/multitask/runner.h"
#include "multitask/run_test_util.h"

namespace gpumux::multitask {
namespace {

WorkloadFile shared_pair(const std::string& scheme) {
  WorkloadFile w;
  w.gpu = std::string(GPUMUX_SOURCE_DIR) + "/configs/gtx980.toml";
  w.overrides = {"gpu.num_sms=4", "qos.epoch_cycles=1000", "frontend.check_invariants=true"};
  w.policy = "smk-even";
  w.quota_scheme = scheme;
  w.apps = {test::benchmark_app("binomial", 0.9), test::benchmark_app("lbm")};
  return w;
}

RunOptions options(const std::filesystem::path& cache) {
  RunOptions o = test::no_baselines();  // the QoS app's isolated run is made anyway: its goal needs it
  o.cache_dir = cache;
  return o;
}

using test::expect_all_passed;

// The mean achieved-over-goal ratio of the QoS app's launches.
double mean_ratio(const RunResult& r) {
  double sum = 0;
  for (const KernelQos& q : r.qos) sum += q.ratio();
  return r.qos.empty() ? 0 : sum / double(r.qos.size());
}

TEST(MultiAppQos, NaiveQuotasRaiseTheQosKernelsIpcTowardItsGoal) {
  std::filesystem::path cache = std::filesystem::temp_directory_path() / "gpumux-qos-run-test";
  std::filesystem::remove_all(cache);
  RunResult without = run_workload(shared_pair(""), options(cache));
  RunResult with = run_workload(shared_pair("naive"), options(cache));
  expect_all_passed(without);
  expect_all_passed(with);
  ASSERT_FALSE(without.qos.empty());
  ASSERT_FALSE(with.qos.empty());
  for (const KernelQos& q : with.qos) {
    EXPECT_EQ(q.app, 0u);  // only the app with a goal
    EXPECT_GT(q.goal_ipc, 0);
  }
  EXPECT_EQ(with.qos.front().goal_ipc, without.qos.front().goal_ipc);  // from the same isolated run
  EXPECT_GT(mean_ratio(with), mean_ratio(without));
  nlohmann::json j = to_json(with);
  EXPECT_EQ(j.at("quota_scheme"), "naive");
  EXPECT_EQ(j.at("qos").size(), with.qos.size());
  EXPECT_NE(format_summary(with).find("QoS (naive): launch"), std::string::npos);
  std::filesystem::remove_all(cache);
}

// Every quota scheme, Rollover-Time and Spart run the example pair to its
// end with correct results and a QoS result for the app with the goal.
TEST(MultiAppQos, EverySchemeRunsThePairMedium) {
  std::filesystem::path cache = std::filesystem::temp_directory_path() / "gpumux-qos-schemes-test";
  std::filesystem::remove_all(cache);
  for (const std::string scheme : {"history", "elastic", "rollover", "rollover-time", "spart"}) {
    SCOPED_TRACE(scheme);
    WorkloadFile w = shared_pair(scheme);
    if (scheme == "spart") w.policy = "spart";
    RunResult r = run_workload(w, options(cache));
    expect_all_passed(r);
    ASSERT_FALSE(r.qos.empty());
    EXPECT_GT(r.qos.front().ipc, 0);
    EXPECT_GT(r.qos.front().cycles, 0u);
    // Each launch counts its own instructions: together at most the app's.
    double launches = 0;
    for (const KernelQos& q : r.qos) launches += q.ipc * double(q.cycles);
    EXPECT_LE(launches, double(r.apps[0].thread_insts) * (1 + 1e-9));
  }
  WorkloadFile spart_alone = shared_pair("spart");  // the manager without its policy
  EXPECT_THROW(validate(spart_alone), LoadError);
  std::filesystem::remove_all(cache);
}

}  // namespace
}  // namespace gpumux::multitask
