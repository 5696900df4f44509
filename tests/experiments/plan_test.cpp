#include "gpumux/experiments/plan.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "gpumux/core/error.h"
#include "gpumux/multitask/workload_file.h"
#include "workload.h"

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
  std::vector<PlannedRun> paper = plan_study(tiny("paper"), "/tmp/a");  // seeds 1 and 2
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].task.key, b[i].task.key);
  EXPECT_EQ(paper.size(), 4u + 2u + 8u);  // alone per seed, classification once, mixes per seed
  std::set<std::string> keys;
  for (const auto& r : paper) EXPECT_TRUE(keys.insert(r.task.key).second) << r.task.label;
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

Study study(const std::string& sweep) {
  return parse_study("[sweep]\nsize = \"tiny\"\n" + sweep + "\n[scale.quick]\n[scale.paper]\n", "s.toml", ".", "quick");
}

std::vector<PlannedRun> mix_runs(const std::vector<PlannedRun>& runs) {
  std::vector<PlannedRun> m;
  for (const PlannedRun& r : runs)
    if (r.kind == PlannedRun::Kind::Mix) m.push_back(r);
  return m;
}

// --sample N: a seeded sample of the scale's mixes, the same for the same seed,
// a subset of any larger sample, with every policy and the baselines its
// mixes need; refused outside 1..M.
TEST(ExperimentPlan, ASampleIsASeededSubsetOfTheMixes) {
  Study s = study("policies = [\"fcfs\", \"smk-even\"]\npairs = { of = [\"pc\", \"vecadd\", \"lbm\", \"histo\"] }");
  const std::vector<Mix> all = scale_mixes(s);
  ASSERT_EQ(all.size(), 12u);  // ordered pairs of 4
  auto sampled = [&](uint32_t n, uint64_t seed) {
    s.sample = MixSample{n, seed};
    std::vector<std::string> labels;
    for (const Mix& m : sample_mixes(s, all)) labels.push_back(mix_label(m));
    return labels;
  };
  std::vector<std::string> three = sampled(3, 1), five = sampled(5, 1);
  EXPECT_EQ(three.size(), 3u);
  EXPECT_EQ(sampled(3, 1), three);  // deterministic
  for (const std::string& m : three) EXPECT_NE(std::find(five.begin(), five.end(), m), five.end()) << m;
  EXPECT_NE(sampled(3, 2), three);  // another seed, another sample (for these 12 mixes and seeds)
  EXPECT_EQ(sampled(12, 7).size(), 12u);
  for (uint32_t bad : {0u, 13u}) {
    s.sample = MixSample{bad, 1};
    try {
      sample_mixes(s, all);
      ADD_FAILURE() << bad;
    } catch (const LoadError& e) {
      EXPECT_NE(std::string(e.what()).find("the quick scale has 12 mixes; a sample takes 1 to 12"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(sample_text(MixSample{3, 1}, 12), "sampled 3 of 12 mixes (seed 1)");

  // The plan: every policy of each sampled mix, and the isolated runs of its benchmarks only.
  s.sample = MixSample{2, 1};
  std::vector<PlannedRun> runs = plan_study(s, "/tmp/out");
  std::set<std::string> mixes, benchmarks, alone;
  for (const PlannedRun& r : runs) {
    if (r.kind != PlannedRun::Kind::Mix) {
      alone.insert(r.mix());
      continue;
    }
    mixes.insert(r.mix());
    for (const MixApp& a : r.apps) benchmarks.insert(a.benchmark);
  }
  const std::vector<std::string> two = sampled(2, 1);
  EXPECT_EQ(mixes, (std::set<std::string>(two.begin(), two.end())));
  EXPECT_EQ(mix_runs(runs).size(), 2u * 2u);
  EXPECT_EQ(alone, benchmarks);
  // Runs are found by key: a sampled run has the key it has in the whole scale.
  s.sample.reset();
  std::set<std::string> whole;
  for (const PlannedRun& r : plan_study(s, "/tmp/out")) whole.insert(r.task.key);
  for (const PlannedRun& r : runs) EXPECT_TRUE(whole.count(r.task.key)) << r.task.label;
}

// The thesis's workloads: random mixes in which one process has a higher
// priority, every benchmark being that process equally often.
TEST(ExperimentPlan, HighPriorityRandomMixesRotateThroughTheBenchmarks) {
  const std::string sweep = "policies = [\"fcfs\"]\n"
                            "random = { count = 8, apps = [2, 4], from = [\"pc\", \"vecadd\", \"lbm\", \"histo\"], "
                            "seed = 5, high_priority = 3 }";
  std::vector<PlannedRun> mixes = mix_runs(plan_study(study(sweep), "/tmp/out"));
  ASSERT_EQ(mixes.size(), 16u);  // distinct mixes: none lost to deduplication
  std::map<std::pair<size_t, std::string>, int> high;  // (mix size, benchmark) -> times high-priority
  for (const PlannedRun& r : mixes) {
    multitask::WorkloadFile w = multitask::parse_workload(r.workload_toml, "w", ".");
    int n = 0;
    for (size_t i = 0; i < r.apps.size(); ++i) {
      EXPECT_EQ(w.apps[i].priority, r.apps[i].priority());
      if (r.apps[i].priority() == 3) {
        ++n;
        ++high[{r.apps.size(), r.apps[i].benchmark}];
      } else {
        EXPECT_EQ(r.apps[i].priority(), 0);
      }
    }
    EXPECT_EQ(n, 1) << r.mix();
  }
  for (size_t size : {2, 4})
    for (const char* b : {"pc", "vecadd", "lbm", "histo"}) EXPECT_EQ((high[{size, b}]), 2) << size << " " << b;
  std::vector<PlannedRun> again = mix_runs(plan_study(study(sweep), "/tmp/out"));
  std::vector<PlannedRun> other = mix_runs(plan_study(study(sweep.substr(0, sweep.find("seed = 5")) +
                                                            "seed = 6, high_priority = 3 }"), "/tmp/out"));
  bool differs = false;
  for (size_t i = 0; i < mixes.size(); ++i) {
    EXPECT_EQ(again[i].mix(), mixes[i].mix());
    differs |= other[i].mix() != mixes[i].mix();
  }
  EXPECT_TRUE(differs);
}

// A policy with priorities = false runs the mix with every app at priority
// 0 (another run); results keep the mix's definition and priorities.
TEST(ExperimentPlan, PoliciesWithoutPrioritiesRunEveryAppAtPriorityZero) {
  std::vector<PlannedRun> mixes = mix_runs(plan_study(
      study("policies = [\"fcfs\", { label = \"fcfs-np\", name = \"fcfs\", priorities = false }]\n"
            "mixes = [[{ benchmark = \"pc\", priority = 1, arrival_cycle = 100 }, \"vecadd\"]]"),
      "/tmp/out"));
  ASSERT_EQ(mixes.size(), 2u);
  EXPECT_NE(mixes[0].task.key, mixes[1].task.key);
  for (const PlannedRun& r : mixes) {
    EXPECT_EQ(r.mix(), "pc[arrival_cycle=100;priority=1]+vecadd");
    EXPECT_EQ(r.apps[0].priority(), 1);
    multitask::WorkloadFile w = multitask::parse_workload(r.workload_toml, "w", ".");
    EXPECT_EQ(w.apps[0].priority, r.policy == "fcfs" ? 1 : 0) << r.policy;
    EXPECT_EQ(w.apps[0].arrival, 100u);
    EXPECT_EQ(w.policy, "fcfs");
  }
  EXPECT_EQ(mixes[1].task.label, "pc[arrival_cycle=100;priority=1]+vecadd fcfs-np seed 1");
}

// A policy entry with `apps` runs only mixes of those sizes, and one label
// may name a setting per mix size (here MPS's daemon default: half the GPU
// for each of a pair, a quarter for each of a quartet).
TEST(ExperimentPlan, PolicyEntriesRunTheMixSizesTheyName) {
  std::vector<PlannedRun> mixes = mix_runs(plan_study(
      study("policies = [\"fcfs\", { label = \"mps-even\", name = \"mps\", active_thread_percentage = 50, apps = 2 },\n"
            "            { label = \"mps-even\", name = \"mps\", active_thread_percentage = 25, apps = [3, 4] }]\n"
            "mixes = [[\"pc\", \"vecadd\"], [\"pc\", \"vecadd\", \"lbm\", \"pc\"]]"),
      "/tmp/out"));
  ASSERT_EQ(mixes.size(), 4u);  // each mix under fcfs and under its own mps-even
  std::map<std::string, uint32_t> percent;
  for (const PlannedRun& r : mixes) {
    multitask::WorkloadFile w = multitask::parse_workload(r.workload_toml, "w", ".");
    if (r.policy == "mps-even") percent[r.mix()] = w.policy_options.mps_percent_by_app.at(0);
    EXPECT_EQ(r.workload_toml.find("apps ="), std::string::npos) << r.workload_toml;
  }
  EXPECT_EQ(percent, (std::map<std::string, uint32_t>{{"pc+vecadd", 50}, {"pc+vecadd+lbm+pc", 25}}));
  auto error_of = [](const std::string& policies) {
    try {
      study(policies + "\nmixes = [[\"pc\", \"vecadd\"]]");
    } catch (const LoadError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("policies = [{ label = \"m\", name = \"mps\", apps = [2, 3] }, { label = \"m\", name = \"mps\", "
                     "apps = 3 }]"),
            "s.toml:3: sweep.policies: label 'm' is used twice for the same mix size (entries sharing a label need "
            "disjoint `apps`)");
  EXPECT_EQ(error_of("policies = [\"fcfs\", \"fcfs\"]"),
            "s.toml:3: sweep.policies: label 'fcfs' is used twice for the same mix size (entries sharing a label need "
            "disjoint `apps`)");
  EXPECT_EQ(error_of("policies = [{ name = \"mps\", apps = 0 }]"),
            "s.toml:3: sweep.policies.apps: expected application counts in [1, 64]");
}

// Two policy labels giving the same workload share one run (one task, one
// folder) but keep their own rows.
TEST(ExperimentPlan, RunsWithTheSameKeyKeepTheirAxesAndRunOnce) {
  std::filesystem::path out = std::filesystem::path(testing::TempDir()) / "plan-shared";
  std::filesystem::remove_all(out);
  std::vector<PlannedRun> runs = plan_study(
      study("policies = [\"fcfs\", { label = \"fcfs-np\", name = \"fcfs\", priorities = false }]\n"
            "mixes = [[\"pc\", \"vecadd\"], [\"pc\", \"vecadd\"]]"),
      out);
  std::vector<PlannedRun> mixes = mix_runs(runs);
  ASSERT_EQ(mixes.size(), 2u);  // the repeated mix is dropped, the second label kept
  EXPECT_EQ(mixes[0].task.key, mixes[1].task.key);
  EXPECT_NE(mixes[0].policy, mixes[1].policy);
  EXPECT_EQ(pending_tasks(runs).size(), 3u);  // pc and vecadd alone, the pair once
  std::filesystem::remove_all(out);
}

// Host CPU time: a mix entry's own cpu_gap_us, else the sweep's for its
// benchmark; the isolated runs have the same.
TEST(ExperimentPlan, CpuGapsReachTheMixesAndTheIsolatedRuns) {
  std::vector<PlannedRun> runs =
      plan_study(study("policies = [\"fcfs\"]\ncpu_gap_us = { default = 2, vecadd = 0 }\n"
                       "mixes = [[{ benchmark = \"pc\", cpu_gap_us = 1, priority = 1 }, \"vecadd\", \"lbm\"]]"),
                 "/tmp/out");
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[0].mix(), "lbm");
  EXPECT_EQ(runs[1].mix(), "pc[cpu_gap_us=1]");
  EXPECT_EQ(runs[2].mix(), "vecadd");
  std::vector<double> alone_gaps;
  for (size_t i = 0; i < 3; ++i)
    alone_gaps.push_back(multitask::parse_workload(runs[i].workload_toml, "w", ".").apps[0].cpu_gap_us);
  EXPECT_EQ(alone_gaps, (std::vector<double>{2, 1, 0}));
  multitask::WorkloadFile mix = multitask::parse_workload(runs[3].workload_toml, "w", ".");
  EXPECT_EQ(mix.apps[0].cpu_gap_us, 1.0);
  EXPECT_EQ(mix.apps[1].cpu_gap_us, 0.0);
  EXPECT_EQ(mix.apps[2].cpu_gap_us, 2.0);
  EXPECT_EQ(runs[3].task.label, "pc[cpu_gap_us=1;priority=1]+vecadd+lbm fcfs seed 1");
}

// Input sizes: the sweep's by benchmark, or a config variant's in their place
// (an input-size axis), for the mixes and their isolated runs alike; a
// scale's `set` reaches every run. A size a benchmark lacks is a load error.
TEST(ExperimentPlan, SizesByBenchmarkAndByConfigReachEveryRun) {
  const std::string sweep = "[sweep]\npolicies = [\"fcfs\"]\nmixes = [[\"sgemm\", \"pc\"]]\n";
  std::vector<PlannedRun> runs = plan_study(
      parse_study(sweep + "size = { default = \"tiny\", sgemm = \"paper\" }\nset = [\"gpu.num_sms=4\"]\n"
                          "configs = [{ label = \"by-benchmark\" }, { label = \"medium\", size = \"medium\" }]\n"
                          "[scale.quick]\n[scale.paper]\n",
                  "s.toml", ".", "quick"),
      "/tmp/out");
  ASSERT_EQ(runs.size(), 6u);  // per config: pc and sgemm alone, then the pair
  std::map<std::string, std::vector<std::string>> sizes;  // by config and run label
  for (const PlannedRun& r : runs) {
    multitask::WorkloadFile w = multitask::parse_workload(r.workload_toml, "w", ".");
    EXPECT_EQ(w.overrides.front(), "gpu.num_sms=4") << r.task.label;
    std::vector<std::string> in_workload;
    for (const auto& a : w.apps) in_workload.push_back(std::string(workloads::size_name(a.size)));
    EXPECT_EQ(in_workload, r.sizes) << r.task.label;
    sizes[r.config + " " + r.mix()] = r.sizes;
  }
  using V = std::vector<std::string>;
  EXPECT_EQ(sizes["by-benchmark sgemm+pc"], (V{"paper", "tiny"}));
  EXPECT_EQ(sizes["by-benchmark sgemm"], (V{"paper"}));
  EXPECT_EQ(sizes["medium sgemm+pc"], (V{"medium", "medium"}));
  EXPECT_EQ(sizes["medium pc"], (V{"medium"}));
  EXPECT_THROW(plan_study(parse_study(sweep + "size = \"paper\"\n[scale.quick]\n[scale.paper]\n", "s.toml", ".", "quick"),
                          "/tmp/out"),
               LoadError);  // pc has no paper size
}

TEST(ExperimentPlan, ConfigWarpBudgetsReachTheMixesByPositionNotTheIsolatedRuns) {
  std::vector<PlannedRun> runs = plan_study(
      study("policies = [\"smk-even\"]\nconfigs = [{ label = \"qaws-b4\", set = [\"sm.warp_scheduler=qaws\"], "
            "warp_budgets = [1, 4] }]\nmixes = [[\"pc\", \"vecadd\", \"lbm\"]]"),
      "/tmp/out");
  ASSERT_EQ(runs.size(), 4u);
  for (size_t i = 0; i < 3; ++i)
    EXPECT_FALSE(multitask::parse_workload(runs[i].workload_toml, "w", ".").apps[0].warp_budget.has_value());
  multitask::WorkloadFile mix = multitask::parse_workload(runs[3].workload_toml, "w", ".");
  EXPECT_EQ(mix.apps[0].warp_budget, 1u);
  EXPECT_EQ(mix.apps[1].warp_budget, 4u);
  EXPECT_FALSE(mix.apps[2].warp_budget.has_value());  // beyond the list: the default, 1
  // Budgets under a config without QAWS: the planned workload is refused.
  EXPECT_THROW(plan_study(study("policies = [\"smk-even\"]\nconfigs = [{ label = \"b\", set = [], "
                                "warp_budgets = [1, 4] }]\nmixes = [[\"pc\", \"vecadd\"]]"),
                          "/tmp/out"),
               LoadError);
}

// One baseline per benchmark, input, seed and GPU: configs that only change
// how applications share the GPU (sharing_keys.h) plan the same isolated
// run; a config that changes the GPU plans its own.
TEST(ExperimentPlan, ConfigsDifferingOnlyInSharingKeysShareTheIsolatedRun) {
  std::vector<PlannedRun> runs = plan_study(
      study("policies = [\"fcfs\"]\nconfigs = [{ label = \"base\", set = [] }, "
            "{ label = \"reserve\", set = [\"edge.scheduling=reserve\", \"edge.reserved_fraction=0.25\"] }, "
            "{ label = \"epoch\", set = [\"qos.epoch_cycles=2000\"] }, "
            "{ label = \"sms\", set = [\"gpu.num_sms=4\", \"edge.scheduling=drain\"] }]\n"
            "mixes = [[\"pc\", \"vecadd\"]]"),
      "/tmp/out");
  std::map<std::string, std::string> alone_key;  // config -> key of pc alone
  std::map<std::string, std::string> mix_key;
  for (const PlannedRun& r : runs) {
    if (r.kind == PlannedRun::Kind::Alone && r.mix() == "pc") alone_key[r.config] = r.task.key;
    if (r.kind == PlannedRun::Kind::Mix) mix_key[r.config] = r.task.key;
  }
  ASSERT_EQ(alone_key.size(), 4u);
  EXPECT_EQ(alone_key["reserve"], alone_key["base"]);
  EXPECT_EQ(alone_key["epoch"], alone_key["base"]);
  EXPECT_NE(alone_key["sms"], alone_key["base"]);
  // The isolated run keeps the GPU's key and drops the sharing one.
  for (const PlannedRun& r : runs)
    if (r.kind == PlannedRun::Kind::Alone && r.config == "sms") {
      EXPECT_NE(r.workload_toml.find("gpu.num_sms=4"), std::string::npos);
      EXPECT_EQ(r.workload_toml.find("edge.scheduling"), std::string::npos);
    }
  // The mixes run each config as given.
  EXPECT_EQ(std::set<std::string>({mix_key["base"], mix_key["reserve"], mix_key["epoch"], mix_key["sms"]}).size(), 4u);
}

// A QoS goal axis (ISCA'17): each mix once per goal of every sweep matching
// its size, the first `apps` applications with that goal; an entry's own
// goal is kept; the isolated runs have none.
TEST(ExperimentPlan, QosGoalSweepsRunEachMixOncePerGoal) {
  std::vector<PlannedRun> runs = mix_runs(plan_study(
      study("policies = [\"fcfs\"]\npairs = { of = [\"pc\", \"lbm\"], ordered = false }\n"
            "mixes = [[\"pc\", { benchmark = \"lbm\", qos_goal = 0.9 }, \"vecadd\"]]\n"
            "qos_goals = [{ goals = [0.5, 0.7] }, { apps = 2, sizes = [3], goals = [0.3] }]\n"),
      "/tmp/out"));
  std::vector<std::string> mixes;
  for (const PlannedRun& r : runs) mixes.push_back(r.mix());
  EXPECT_EQ(mixes, (std::vector<std::string>{"pc[qos_goal=0.5]+lbm[qos_goal=0.9]+vecadd",
                                             "pc[qos_goal=0.7]+lbm[qos_goal=0.9]+vecadd",
                                             "pc[qos_goal=0.3]+lbm[qos_goal=0.9]+vecadd", "pc[qos_goal=0.5]+lbm",
                                             "pc[qos_goal=0.7]+lbm"}));
  multitask::WorkloadFile w = multitask::parse_workload(runs[3].workload_toml, "w", ".");
  EXPECT_EQ(w.apps[0].qos_goal, 0.5);
  EXPECT_FALSE(w.apps[1].qos_goal.has_value());
  EXPECT_THROW(study("policies = [\"fcfs\"]\nmixes = [[\"pc\"]]\nqos_goals = [{ goals = [1.5] }]\n"), LoadError);
  EXPECT_THROW(study("policies = [\"fcfs\"]\nmixes = [[\"pc\"]]\nqos_goals = [{ goals = [] }]\n"), LoadError);
}

// A study's until = "converged" reaches its mix runs; isolated runs stay full
// runs, sampled with the same IPC windows.
TEST(ExperimentPlan, ConvergedRunRuleReachesTheMixRunsOnly) {
  Study s = tiny("quick");
  s.run.until = multitask::RunRule::Until::Converged;
  s.run.max_cycles = 500000;
  s.run.ipc_window = 2000;
  s.run.convergence = {0.03, 7};
  for (const PlannedRun& r : plan_study(s, "/tmp/out")) {
    multitask::WorkloadFile w = multitask::parse_workload(r.workload_toml, "w", ".");
    bool mix = r.kind == PlannedRun::Kind::Mix;
    EXPECT_EQ(w.run.until, mix ? multitask::RunRule::Until::Converged : multitask::RunRule::Until::Completions)
        << r.task.label;
    EXPECT_EQ(w.run.ipc_window, r.kind == PlannedRun::Kind::Classify ? 0u : 2000u) << r.task.label;
    EXPECT_EQ(w.run.max_cycles, mix ? 500000u : 0u);
    if (mix) {
      EXPECT_DOUBLE_EQ(w.run.convergence.tolerance, 0.03);
      EXPECT_EQ(w.run.convergence.windows, 7u);
    }
  }
}

// IPC windows within one SM reach the mix and isolated runs; classification
// runs (here on 1 SM, which has no SM 3) only need their cycles and are not sampled.
TEST(ExperimentPlan, IpcWindowsOfOneSmSampleMixAndIsolatedRunsNotClassification) {
  Study s = tiny("quick");
  s.run.ipc_window = 2000;
  s.run.ipc_sm = 3;
  size_t classify = 0;
  for (const PlannedRun& r : plan_study(s, "/tmp/out")) {
    multitask::WorkloadFile w = multitask::parse_workload(r.workload_toml, "w", ".");
    const bool sampled = r.kind != PlannedRun::Kind::Classify;
    classify += !sampled;
    EXPECT_EQ(w.run.ipc_window, sampled ? 2000u : 0u) << r.task.label;
    EXPECT_EQ(w.run.ipc_sm, sampled ? std::optional<uint32_t>(3) : std::nullopt) << r.task.label;
  }
  EXPECT_EQ(classify, 2u);
}

}  // namespace
}  // namespace gpumux::experiments
