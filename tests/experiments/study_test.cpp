#include "gpumux/experiments/study.h"

#include <gtest/gtest.h>

#include "gpumux/core/error.h"
#include "gpumux/experiments/plan.h"
#include "gpumux/multitask/workload_file.h"

namespace gpumux::experiments {
namespace {

const char* kBase = R"(
title = "t"
gpu = "gtx980"
[sweep]
size = "tiny"
policies = ["fcfs", { label = "q2", name = "smk-quota", tb_quota = { pc = 2 } }]
pairs = { of = ["pc", "vecadd", "lbm"], ordered = false }
[scale.quick]
seeds = [3]
[scale.paper]
pairs = { of = ["pc", "vecadd", "lbm"] }
random = { count = 2, apps = [3, 4], from = ["pc", "lbm"], seed = 9 }
)";

std::string error_of(const std::string& text, const std::string& scale = "quick") {
  try {
    parse_study(text, "s.toml", ".", scale);
  } catch (const LoadError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ExperimentStudy, ScalesReplaceSweepKeys) {
  Study q = parse_study(kBase, "s.toml", ".", "quick");
  EXPECT_EQ(q.scale, "quick");
  EXPECT_EQ(q.sweep.seeds, (std::vector<uint64_t>{3}));
  EXPECT_FALSE(q.sweep.pairs_ordered);
  EXPECT_FALSE(q.sweep.random);
  ASSERT_EQ(q.sweep.policies.size(), 2u);
  EXPECT_EQ(q.sweep.policies[1].label, "q2");
  EXPECT_EQ(q.sweep.policies[1].options["name"].value_or(std::string()), "smk-quota");
  EXPECT_FALSE(q.sweep.policies[1].options.contains("label"));
  Study f = parse_study(kBase, "s.toml", ".", "paper");
  EXPECT_EQ(f.sweep.seeds, (std::vector<uint64_t>{1}));
  EXPECT_TRUE(f.sweep.pairs_ordered);
  ASSERT_TRUE(f.sweep.random);
  EXPECT_EQ(f.sweep.random->apps, (std::vector<uint32_t>{3, 4}));
  EXPECT_EQ(f.scales, (std::vector<std::string>{"quick", "paper"}));
}

TEST(ExperimentStudy, ErrorsNameFileLineAndKey) {
  std::string base = kBase;
  // Text appended to kBase starts on line 13.
  EXPECT_EQ(error_of(base, "medium"), "s.toml: no scale 'medium' (this study has: quick, paper)");
  EXPECT_EQ(error_of("colour = 1\n" + base), "s.toml:1: colour: unknown key");
  EXPECT_EQ(error_of(base + "colour = 1\n"), "s.toml:13: scale.paper.colour: unknown key");
  EXPECT_EQ(error_of(base + "[scale.smoke]\npairs = { of = [\"pc\", \"nope\"] }\n"),
            "s.toml:14: scale.smoke.pairs.of: unknown benchmark 'nope' (see gpumux list)");
  EXPECT_NE(error_of(base + "[[trend]]\nname = \"x\"\nexpr = \"mean(stp) >\"\n").find("s.toml:15: trend.expr: expected"),
            std::string::npos);
  EXPECT_NE(error_of(base + "[[figure]]\nname = \"Bad Name\"\ny = \"stp\"\n").find("s.toml:14: figure.name"),
            std::string::npos);
  EXPECT_NE(error_of(base + "[[figure]]\nname = \"f\"\nkind = \"pie\"\nx = \"a\"\ny = \"stp\"\n").find("'pie'"),
            std::string::npos);
  EXPECT_NE(error_of(base + "[[figure]]\nname = \"f\"\nx = \"a\"\ny = \"stp\"\nrows = \"alone\"\n").find("figure.rows"),
            std::string::npos);
  EXPECT_EQ(error_of(base + "[scale.smoke]\nconfigs = [{ label = \"x\", size = 3 }]\n"),
            "s.toml:14: scale.smoke.configs.size: expected a size name");
  std::string no_paper = base.substr(0, base.find("[scale.paper]"));
  EXPECT_EQ(error_of(no_paper), "s.toml: scale.paper: missing (every study has a quick and a paper scale)");
  std::string bad_policy = base;
  bad_policy.replace(bad_policy.find("\"fcfs\""), 6, "\"lottery\"");
  EXPECT_NE(error_of(bad_policy).find("s.toml:6: sweep.policies: unknown sharing policy 'lottery'"), std::string::npos);
  EXPECT_NE(error_of("[sweep]\npolicies = [\"fcfs\"]\n[scale.quick]\n[scale.paper]\n").find("no mixes"),
            std::string::npos);
  EXPECT_NE(error_of(base + "[classify]\nfrom = [\"gpu.num_sms=1\"]\nabove = \"C\"\nbelow = \"M\"\n").find("threshold"),
            std::string::npos);
  EXPECT_NE(error_of(base + "[classify]\nfrom = [\"gpu.num_sms=1\"]\nmetric = \"ipc\"\n")
                .find("s.toml:15: classify.metric: 'ipc': expected \"cycles\" or \"kernel_cycles\""),
            std::string::npos);
}

// The axes of the preemptive-multitasking study: per-app keys in explicit
// mixes, random mixes with one high-priority application, a policy that
// ignores the mix's priorities, and host CPU time per benchmark.
const char* kPriorities = R"(
[sweep]
size = "tiny"
policies = ["fcfs", { label = "fcfs-np", name = "fcfs", priorities = false }]
mixes = [[{ benchmark = "pc", priority = 1, arrival_cycle = 500, cpu_gap_us = 2 }, "vecadd"]]
random = { count = 4, apps = 2, from = ["pc", "lbm"], seed = 3, high_priority = 2 }
cpu_gap_us = { default = 1.5, lbm = 4 }
[scale.quick]
[scale.paper]
cpu_gap_us = 3
)";

TEST(ExperimentStudy, MixAppsPrioritiesAndCpuGaps) {
  Study q = parse_study(kPriorities, "s.toml", ".", "quick");
  ASSERT_EQ(q.sweep.policies.size(), 2u);
  EXPECT_TRUE(q.sweep.policies[0].priorities);
  EXPECT_FALSE(q.sweep.policies[1].priorities);
  EXPECT_FALSE(q.sweep.policies[1].options.contains("priorities"));  // not a [policy] key of workloads
  ASSERT_EQ(q.sweep.mixes.size(), 1u);
  const Mix& m = q.sweep.mixes[0];
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].label(), "pc[arrival_cycle=500;cpu_gap_us=2;priority=1]");
  EXPECT_EQ(m[0].priority(), 1);
  EXPECT_EQ(m[0].alone().label(), "pc[cpu_gap_us=2]");  // priority and arrival do not change a run alone
  EXPECT_EQ(m[1].label(), "vecadd");
  EXPECT_EQ(m[1].priority(), 0);
  ASSERT_TRUE(q.sweep.random);
  EXPECT_EQ(q.sweep.random->high_priority, 2);
  EXPECT_EQ(q.sweep.cpu_gaps.of("lbm"), 4.0);
  EXPECT_EQ(q.sweep.cpu_gaps.of("pc"), 1.5);
  Study f = parse_study(kPriorities, "s.toml", ".", "paper");
  EXPECT_EQ(f.sweep.cpu_gaps.of("lbm"), 3.0);
  EXPECT_FALSE(parse_study(kBase, "s.toml", ".", "quick").sweep.random);
  EXPECT_EQ(parse_study(kBase, "s.toml", ".", "paper").sweep.random->high_priority, std::nullopt);
}

TEST(ExperimentStudy, MixAppsPrioritiesAndCpuGapsErrors) {
  std::string base = kPriorities;
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = base;
    t.replace(t.find(from), from.size(), to);
    return error_of(t);
  };
  EXPECT_EQ(with("arrival_cycle = 500", "colour = 1"), "s.toml:5: sweep.mixes.colour: unknown key");
  EXPECT_EQ(with("priority = 1,", "priority = 101,"), "s.toml:5: sweep.mixes.priority: 101 is outside [-100, 100]");
  EXPECT_EQ(with("cpu_gap_us = 2 }", "cpu_gap_us = -2 }"),
            "s.toml:5: sweep.mixes.cpu_gap_us: -2 is outside [0, 1e6] microseconds");
  EXPECT_EQ(with("benchmark = \"pc\",", "benchmark = \"nope\","),
            "s.toml:5: sweep.mixes.benchmark: unknown benchmark 'nope' (see gpumux list)");
  const std::string one_of =
      "s.toml:5: sweep.mixes.benchmark: give one of 'benchmark' (the workload library) or 'trace' (an Accel-Sim "
      "trace folder)";
  EXPECT_EQ(with("benchmark = \"pc\",", ""), one_of);
  EXPECT_EQ(with("benchmark = \"pc\",", "benchmark = \"pc\", trace = \"t\","), one_of);
  EXPECT_NE(with("benchmark = \"pc\",", "trace = \"no-such-folder\",")
                .find("s.toml:5: sweep.mixes.trace: "),
            std::string::npos);
  EXPECT_NE(with("benchmark = \"pc\",", "trace = \"no-such-folder\",").find("no kernelslist.g"), std::string::npos);
  EXPECT_EQ(with("\"vecadd\"]]", "3]]"),
            "s.toml:5: sweep.mixes: expected benchmark names or { benchmark = \"...\", priority = ..., ... } tables");
  EXPECT_EQ(with("priorities = false", "priorities = \"no\""),
            "s.toml:4: sweep.policies: priorities: expected true or false");
  EXPECT_EQ(with("high_priority = 2", "high_priority = 0"), "s.toml:6: sweep.random.high_priority: 0 is outside [1, 100]");
  EXPECT_EQ(with("lbm = 4", "lbm = 4, nope = 1"),
            "s.toml:7: sweep.cpu_gap_us.nope: not a benchmark (see gpumux list) or \"default\"");
  EXPECT_EQ(with("cpu_gap_us = 3", "cpu_gap_us = 2e6"), "s.toml:10: scale.paper.cpu_gap_us: 2000000 is outside [0, 1e6] microseconds");
  EXPECT_EQ(with("cpu_gap_us = 3", "cpu_gap_us = \"3us\""), "s.toml:10: scale.paper.cpu_gap_us: expected microseconds");
}

// size: one for every benchmark, or per benchmark with a default (medium
// when absent); the runs of a benchmark get its size, alone and in mixes.
TEST(ExperimentStudy, SizesPerBenchmark) {
  const std::string sweep = "[sweep]\npolicies = [\"fcfs\"]\npairs = { of = [\"pc\", \"vecadd\"] }\n";
  Study s = parse_study(sweep + "size = { vecadd = \"tiny\" }\n[scale.quick]\n[scale.paper]\nsize = \"tiny\"\n",
                        "s.toml", ".", "quick");
  EXPECT_EQ(s.sweep.size.of("vecadd"), "tiny");
  EXPECT_EQ(s.sweep.size.of("pc"), "medium");
  for (const PlannedRun& r : plan_study(s, "/tmp/out")) {
    multitask::WorkloadFile w = multitask::parse_workload(r.workload_toml, "w", ".");
    for (size_t i = 0; i < r.apps.size(); ++i)
      EXPECT_EQ(w.apps[i].size, r.apps[i].benchmark == "vecadd" ? workloads::Size::Tiny : workloads::Size::Medium)
          << r.task.label;
  }
  Study paper = parse_study(sweep + "size = { vecadd = \"tiny\" }\n[scale.quick]\n[scale.paper]\nsize = \"tiny\"\n",
                            "s.toml", ".", "paper");
  EXPECT_EQ(paper.sweep.size.of("pc"), "tiny");  // a scale's size replaces the whole table
  EXPECT_TRUE(paper.sweep.size.by_benchmark.empty());
  EXPECT_EQ(parse_study(sweep + "size = { default = \"tiny\", pc = \"small\" }\n[scale.quick]\n[scale.paper]\n",
                        "s.toml", ".", "quick").sweep.size.of("vecadd"),
            "tiny");
  EXPECT_EQ(error_of(sweep + "size = { nope = \"tiny\" }\n[scale.quick]\n[scale.paper]\n"),
            "s.toml:4: sweep.size.nope: not a benchmark (see gpumux list) or \"default\"");
  EXPECT_EQ(error_of(sweep + "size = { pc = \"huge\" }\n[scale.quick]\n[scale.paper]\n"),
            "s.toml:4: sweep.size.pc: unknown size 'huge'");
  EXPECT_EQ(error_of(sweep + "size = 3\n[scale.quick]\n[scale.paper]\n"), "s.toml:4: sweep.size: expected a size name");
}

TEST(ExperimentStudy, LoadsTheShippedStudies) {
  for (const char* dir : {"experiments/sharing-baselines", "tests/experiments/fixtures/tiny-study"})
    for (const char* scale : {"quick", "paper"}) {
      Study s = load_study(std::filesystem::path(GPUMUX_SOURCE_DIR) / dir, scale);
      EXPECT_FALSE(s.trends.empty()) << dir;
      EXPECT_FALSE(s.figures.empty()) << dir;
    }
}

// A scale's max_cycles replaces the run rule's (which must be cycle-limited).
TEST(ExperimentStudy, ScaleMaxCyclesNeedsACycleLimitedRun) {
  const std::string cycles = std::string("run = { until = \"cycles\", max_cycles = 2000000 }\n") + kBase;
  Study q = parse_study(cycles + "max_cycles = 5000\n", "s.toml", ".", "paper");
  EXPECT_EQ(q.run.max_cycles, 5000u);
  EXPECT_EQ(parse_study(cycles, "s.toml", ".", "quick").run.max_cycles, 2000000u);
  EXPECT_NE(error_of(std::string(kBase) + "max_cycles = 5000\n", "paper").find("needs [run] until = \"cycles\""),
            std::string::npos);
}

// The thesis's run rule at one scale: every process completes 3 times and
// its time is the mean of its completed runs; other scales keep [run]'s.
TEST(ExperimentStudy, ScaleCompletionsAndMeasureReplaceTheRunRules) {
  const std::string text =
      "[sweep]\nsize = \"tiny\"\npolicies = [\"fcfs\"]\npairs = { of = [\"pc\", \"vecadd\"] }\n[scale.quick]\n"
      "[scale.paper]\ncompletions = 3\nmeasure = \"all\"\n";
  Study paper = parse_study(text, "s.toml", ".", "paper");
  EXPECT_EQ(paper.run.completions, 3u);
  EXPECT_EQ(paper.run.measure, multitask::RunRule::Measure::All);
  Study quick = parse_study(text, "s.toml", ".", "quick");
  EXPECT_EQ(quick.run.completions, 1u);
  EXPECT_EQ(quick.run.measure, multitask::RunRule::Measure::First);
  // The mixes' workloads carry it; the isolated runs stay one run.
  std::vector<PlannedRun> runs = plan_study(paper, "/tmp/out");
  for (const PlannedRun& r : runs) {
    multitask::WorkloadFile w = multitask::parse_workload(r.workload_toml, "w", ".");
    EXPECT_EQ(w.run.completions, r.kind == PlannedRun::Kind::Mix ? 3u : 1u) << r.task.label;
    EXPECT_EQ(w.run.measure, r.kind == PlannedRun::Kind::Mix ? multitask::RunRule::Measure::All
                                                             : multitask::RunRule::Measure::First);
  }
  const std::string cycles = std::string("run = { until = \"cycles\", max_cycles = 2000000 }\n") + kBase;
  EXPECT_NE(error_of(cycles + "completions = 3\n", "paper").find("needs [run] until = \"completions\""),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kBase) + "measure = \"mean\"\n", "paper").find("expected one of"), std::string::npos);
}

}  // namespace
}  // namespace gpumux::experiments
