#include "gpumux/experiments/plan.h"

#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include "gpumux/core/error.h"
#include "gpumux/multitask/workload_file.h"

namespace gpumux::experiments {
namespace {

Study tiny(const std::string& scale) {
  return load_study(std::filesystem::path(GPUMUX_SOURCE_DIR) / "tests/experiments/fixtures/tiny-study", scale);
}

TEST(ExperimentPlan, AloneAndClassificationRunsComeFirstThenTheMixes) {
  std::vector<PlannedRun> runs = plan_study(tiny("quick"), "/tmp/out");
  // 2 benchmarks alone + 2 classification runs, then 2 ordered pairs x 2 policies.
  ASSERT_EQ(runs.size(), 8u);
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(runs[i].task.wave, i < 4 ? 0 : 1) << runs[i].task.label;
    EXPECT_EQ(runs[i].task.dir, std::filesystem::path("/tmp/out/runs") / runs[i].task.key);
    multitask::WorkloadFile w = multitask::parse_workload(runs[i].workload_toml, "w", ".");
    EXPECT_EQ(w.apps.size(), i < 4 ? 1u : 2u);
    for (const auto& a : w.apps) EXPECT_EQ(a.seed, 1u);  // every app uses the mix's seed
  }
  EXPECT_EQ(runs[0].task.label, "alone pc seed 1");
  EXPECT_EQ(runs[2].task.label, "alone pc gpu.num_sms=1 seed 1");
  EXPECT_EQ(runs[4].task.label, "pc+vecadd fcfs seed 1");
  EXPECT_EQ(runs[7].task.label, "vecadd+pc quota-2 seed 1");
  multitask::WorkloadFile quota = multitask::parse_workload(runs[7].workload_toml, "w", ".");
  EXPECT_EQ(quota.policy, "smk-quota");
  EXPECT_EQ(quota.policy_options.tb_quota_by_app.at(0), 2u);
}

TEST(ExperimentPlan, KeysArePureFunctionsOfTheRun) {
  std::vector<PlannedRun> a = plan_study(tiny("quick"), "/tmp/a"), b = plan_study(tiny("quick"), "/tmp/b");
  std::vector<PlannedRun> full = plan_study(tiny("full"), "/tmp/a");  // seeds 1 and 2
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].task.key, b[i].task.key);
  EXPECT_EQ(full.size(), 4u + 2u + 8u);  // alone per seed, classification once, mixes per seed
  std::set<std::string> keys;
  for (const auto& r : full) EXPECT_TRUE(keys.insert(r.task.key).second) << r.task.label;
  // A config override changes the key of the run it applies to.
  EXPECT_NE(a[0].key_text.find("config\n"), std::string::npos);
}

TEST(ExperimentPlan, PendingTasksWriteTheFoldersAndSkipRunsWithResults) {
  std::filesystem::path out = std::filesystem::path(testing::TempDir()) / "plan-pending";
  std::filesystem::remove_all(out);
  std::vector<PlannedRun> runs = plan_study(tiny("smoke"), out);
  EXPECT_EQ(pending_tasks(runs).size(), runs.size());
  EXPECT_TRUE(std::filesystem::exists(runs[0].task.dir / "workload.toml"));
  std::ofstream(runs[0].task.dir / "run.json") << "{}";
  EXPECT_TRUE(has_result(runs[0]));
  EXPECT_EQ(pending_tasks(runs).size(), runs.size() - 1);
  // A folder holding another run's key is never reused.
  std::ofstream(runs[1].task.dir / "key.txt") << "something else";
  EXPECT_THROW(pending_tasks(runs), ApiError);
  std::filesystem::remove_all(out);
}

}  // namespace
}  // namespace gpumux::experiments
