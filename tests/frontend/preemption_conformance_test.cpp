// The preemption conformance test: every benchmark of the library, alone on
// a 4-SM GPU, with every TB of one SM preempted every 1000 cycles
// (frontend.preempt_every) by each mechanism. A TB switched out and resumed
// any number of times, or flushed and re-run, must compute exactly what it
// would have: the benchmark's CPU check passes. Every request must complete,
// and each mechanism must have done what it says (TBs switched, flushed).
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "gpumux/multitask/runner.h"
#include "multitask/run_test_util.h"
#include "workload_test_name.h"

namespace gpumux::multitask {
namespace {

struct Mechanism {
  const char* label;
  frontend::PreemptionOptions options;
  uint32_t every;  // flushing restarts TBs: give them time to reach a side effect between visits
};

std::vector<Mechanism> mechanisms() {
  std::vector<Mechanism> v;
  frontend::PreemptionOptions o;
  o.mechanism = "switch";
  v.push_back({"switch", o, 1000});
  o.save.live_registers_only = true;
  v.push_back({"switch_live", o, 1000});
  o.save = {.lazy_shared = true};
  v.push_back({"switch_lazy", o, 1000});
  o = {};
  o.mechanism = "flush";
  v.push_back({"flush", o, 5000});
  o.mechanism = "chimera";
  o.latency_budget_us = 1;
  v.push_back({"chimera", o, 5000});
  o = {};
  o.switch_after_us = 0.5;  // hybrid: drain, then switch
  v.push_back({"hybrid", o, 1000});
  return v;
}

RunResult run_stressed(const workloads::WorkloadSpec& spec, const Mechanism& m) {
  WorkloadFile w;
  w.gpu = std::string(GPUMUX_SOURCE_DIR) + "/configs/gtx980.toml";
  w.overrides = {"gpu.num_sms=4", fmt::format("frontend.preempt_every={}", m.every)};
  w.policy_options.preemption = m.options;
  AppSpec app;
  app.benchmark = &spec;
  app.name = spec.name;
  app.size = workloads::Size::Tiny;
  w.apps.push_back(app);
  RunOptions o = test::no_baselines();
  return run_workload(w, o);
}

void PrintTo(const Mechanism& m, std::ostream* os) { *os << m.label; }

using Param = std::tuple<const workloads::WorkloadSpec*, Mechanism>;

class PreemptionConformance : public ::testing::TestWithParam<Param> {};

TEST_P(PreemptionConformance, PreemptedTbsComputeWhatTheyWouldHave) {
  const auto& [spec, m] = GetParam();
  RunResult r = run_stressed(*spec, m);

  ASSERT_EQ(r.apps.size(), 1u);
  ASSERT_TRUE(r.apps[0].error.empty()) << r.apps[0].error;
  ASSERT_EQ(r.apps[0].runs.size(), 1u);
  EXPECT_TRUE(r.apps[0].runs[0].passed) << r.apps[0].runs[0].detail;
  uint64_t tbs = 0, drained = 0, switched = 0, flushed = 0;
  for (const frontend::PreemptionRecord& p : r.preemptions) {
    EXPECT_TRUE(p.done()) << p.label << " on SM " << p.sm << " requested at " << p.requested;
    EXPECT_EQ(p.mechanism, m.options.mechanism);
    tbs += p.tbs;
    drained += p.drained;
    switched += p.switched;
    flushed += p.flushed;
  }
  EXPECT_EQ(drained + switched + flushed, tbs);
  const std::string mech = m.options.mechanism;
  if (mech == "switch") {
    EXPECT_EQ(flushed, 0u);
  } else if (mech == "flush") {
    EXPECT_EQ(switched, 0u);
  }
  RecordProperty("preemptions", fmt::format("{} requests: drained {} switched {} flushed {}", r.preemptions.size(),
                                            drained, switched, flushed));
}

INSTANTIATE_TEST_SUITE_P(All, PreemptionConformance,
                         ::testing::Combine(::testing::ValuesIn(workloads::base_workloads()),
                                            ::testing::ValuesIn(mechanisms())),
                         [](const ::testing::TestParamInfo<Param>& i) {
                           return gpumux::test::workload_test_name(std::get<0>(i.param)->name) + "_" +
                                  std::get<1>(i.param).label;
                         });

// Across the library each mechanism really preempted TBs (not only drained).
TEST(PreemptionConformanceSummary, EachMechanismLeavesTbsOffTheirSms) {
  for (const Mechanism& m : mechanisms()) {
    uint64_t off = 0;
    for (const char* name : {"sgemm", "stencil"})
      for (const frontend::PreemptionRecord& p : run_stressed(*workloads::find_workload(name), m).preemptions)
        off += p.switched + p.flushed;
    EXPECT_GT(off, 0u) << m.label;
  }
}

// Sum over the SMs of sm<i>.preempt.<name>.
uint64_t preempt_stat(const RunResult& r, const std::string& name) {
  uint64_t n = 0;
  for (const auto& [path, node] : r.stats.at("stats").items())
    if (path.starts_with("sm") && node.contains("preempt")) n += node["preempt"][name]["total"].get<uint64_t>();
  return n;
}

// Under the stress test a lazily switched TB resumes on its own SM when that
// SM takes it first, and has its shared memory written back when another SM
// takes it: sgemm (tiles in shared memory) does both.
TEST(PreemptionConformanceSummary, LazySavesResumeInPlaceOrWriteBack) {
  const Mechanism lazy = mechanisms().at(2);
  ASSERT_STREQ(lazy.label, "switch_lazy");
  RunResult r = run_stressed(*workloads::find_workload("sgemm"), lazy);
  ASSERT_TRUE(r.all_passed());
  const uint64_t parked = preempt_stat(r, "shared_parked");
  EXPECT_EQ(parked, preempt_stat(r, "tbs_switched"));
  EXPECT_GT(preempt_stat(r, "shared_resumed_in_place"), 0u);
  EXPECT_GT(preempt_stat(r, "shared_evictions"), 0u);
  EXPECT_EQ(preempt_stat(r, "shared_resumed_in_place") + preempt_stat(r, "shared_evictions"), parked);
  EXPECT_EQ(preempt_stat(r, "context_bytes_saved"), preempt_stat(r, "context_bytes_restored"));
}

}  // namespace
}  // namespace gpumux::multitask
