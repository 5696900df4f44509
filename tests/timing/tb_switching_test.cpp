// TB switching on fault (docs/virtual-memory.md, thesis 6.4.1): TBs whose
// warps all wait for page faults leave their SM for ready ones, their squashed
// instructions are replayed when they resume, and results stay correct; and
// every library workload passes its check with demand paging under each
// fault pipeline and under TB switching with stress preemption.
#include <gtest/gtest.h>

#include "gpumux/gpu/gpu.h"
#include "gpumux/timing/timing_backend.h"
#include "workload.h"
#include "workload_test_name.h"

namespace gpumux::test {
namespace {

struct SwitchRun {
  workloads::CheckResult check;
  Cycle cycles = 0;
  uint64_t faults = 0, switched = 0, switched_on_fault = 0, replays = 0, resumed = 0, saved = 0, restored = 0;
};

// thesis-ch6 with demand paging on one SM (tiny grids then queue TBs behind
// the resident ones: there is something to switch to), plus `overrides`.
SwitchRun run_paged(const std::string& name, std::vector<std::string> overrides) {
  overrides.insert(overrides.begin(), {"vm.demand_paging=true", "gpu.num_sms=1"});
  Config cfg = Config::build(std::string(GPUMUX_SOURCE_DIR) + "/configs/thesis-ch6.toml", overrides);
  auto dev = timing::make_device(cfg.values());
  runtime::Context& ctx = dev->create_context(name);
  SwitchRun r;
  r.check = workloads::run_workload(*workloads::find_workload(name), ctx, workloads::Size::Tiny, 1);
  timing::TimingBackend& b = timing::backend_of(*dev);
  r.cycles = b.busy_cycles();
  const StatRegistry& s = b.gpu().stats();
  r.faults = s.sum("vm.faults");
  r.switched = s.sum("sm*.preempt.tbs_switched");
  r.resumed = s.sum("sm*.preempt.tbs_resumed");
  r.saved = s.sum("sm*.preempt.context_bytes_saved");
  r.restored = s.sum("sm*.preempt.context_bytes_restored");
  if (s.find("sm0.fault_pipeline.tbs_switched_on_fault")) {
    r.switched_on_fault = s.sum("sm*.fault_pipeline.tbs_switched_on_fault");
    r.replays = s.sum("sm*.fault_pipeline.replays");
  }
  return r;
}

const std::vector<std::string> kOperandLog = {"sm.fault_pipeline.mode=operand-log"};

std::vector<std::string> switching(std::vector<std::string> more = {}) {
  std::vector<std::string> o = {"sm.fault_pipeline.mode=operand-log", "sm.fault_pipeline.extra_tbs=4"};
  o.insert(o.end(), more.begin(), more.end());
  return o;
}

TEST(TbSwitching, TbsWaitingForFaultsLeaveAndResumeWithTheirInstructionsReplayed) {
  for (const char* name : {"sgemm", "histo", "spmv", "vecadd"}) {
    SwitchRun off = run_paged(name, kOperandLog);
    SwitchRun on = run_paged(name, switching());
    EXPECT_TRUE(off.check.passed) << name << ": " << off.check.detail;
    EXPECT_TRUE(on.check.passed) << name << ": " << on.check.detail;
    EXPECT_EQ(off.switched, 0u) << name;
    EXPECT_GT(on.switched_on_fault, 0u) << name;
    // Every switch here is one on fault, each TB came back, and each carried
    // at least one squashed instruction to replay.
    EXPECT_EQ(on.switched, on.switched_on_fault) << name;
    EXPECT_EQ(on.resumed, on.switched) << name;
    EXPECT_GE(on.replays, on.switched_on_fault) << name;
    EXPECT_GT(on.saved, 0u) << name;
    EXPECT_EQ(on.restored, on.saved) << name;
    EXPECT_EQ(on.faults, off.faults) << name;  // switching changes when units are touched, not which
  }
}

TEST(TbSwitching, IdealSwitchMovesNoContext) {
  SwitchRun ideal = run_paged("histo", switching({"sm.fault_pipeline.ideal_switch=true"}));
  EXPECT_TRUE(ideal.check.passed) << ideal.check.detail;
  EXPECT_GT(ideal.switched_on_fault, 0u);
  EXPECT_EQ(ideal.saved, 0u);
  EXPECT_EQ(ideal.restored, 0u);
}

// Deterministic, and pinned: a change that moves these must be deliberate.
TEST(TbSwitching, PinnedCycles) {
  SwitchRun a = run_paged("spmv", switching());
  SwitchRun b = run_paged("spmv", switching());
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.switched_on_fault, b.switched_on_fault);
  EXPECT_EQ(a.cycles, 778203u);
  EXPECT_EQ(a.switched_on_fault, 34u);
}

// Without TB switching its statistics are not registered, and nothing switches.
TEST(TbSwitching, OffByDefault) {
  SwitchRun r = run_paged("spmv", kOperandLog);
  EXPECT_EQ(r.switched, 0u);
  EXPECT_EQ(r.switched_on_fault, 0u);
  Config cfg = Config::build(std::string(GPUMUX_SOURCE_DIR) + "/configs/thesis-ch6.toml", {});
  EXPECT_EQ(cfg.values().sm.fault_pipeline.extra_tbs, 0u);
}

TEST(TbSwitchingConfig, InvalidSettingsAreRefused) {
  const std::string preset = std::string(GPUMUX_SOURCE_DIR) + "/configs/thesis-ch6.toml";
  auto build = [&](std::vector<std::string> o) { return Config::build(preset, o); };
  // Nothing faults without demand paging.
  EXPECT_THROW(build({"sm.fault_pipeline.mode=operand-log", "sm.fault_pipeline.extra_tbs=4"}), std::exception);
  // The baseline and the warp-disable pipelines cannot replay a squashed instruction.
  for (const char* mode : {"stall-on-fault", "wd-commit", "wd-lastcheck"})
    EXPECT_THROW(build({"vm.demand_paging=true", std::string("sm.fault_pipeline.mode=") + mode,
                        "sm.fault_pipeline.extra_tbs=4"}),
                 std::exception)
        << mode;
  EXPECT_THROW(build({"sm.fault_pipeline.ideal_switch=true"}), std::exception);
  EXPECT_NO_THROW(build({"vm.demand_paging=true", "sm.fault_pipeline.mode=replay-queue", "sm.fault_pipeline.extra_tbs=4",
                         "sm.fault_pipeline.ideal_switch=true"}));
}

// Every library workload, demand paging on: correct under the baseline, each
// preemptible pipeline, and TB switching with every TB of the SM also
// preempted every 20K cycles (stress: switches on fault meet the
// front end's own preemptions).
class PagedWorkload : public ::testing::TestWithParam<const workloads::WorkloadSpec*> {};

TEST_P(PagedWorkload, CorrectUnderEveryPipelineAndTbSwitching) {
  const std::string name = GetParam()->name;
  for (const char* mode : {"stall-on-fault", "wd-commit", "wd-lastcheck", "replay-queue", "operand-log"}) {
    SwitchRun r = run_paged(name, {std::string("sm.fault_pipeline.mode=") + mode});
    EXPECT_TRUE(r.check.passed) << mode << ": " << r.check.detail;
  }
  SwitchRun stress = run_paged(name, switching({"frontend.preempt_every=20000"}));
  EXPECT_TRUE(stress.check.passed) << "TB switching with stress preemption: " << stress.check.detail;
  EXPECT_EQ(stress.resumed, stress.switched);
}

INSTANTIATE_TEST_SUITE_P(All, PagedWorkload, ::testing::ValuesIn(workloads::all_workloads()),
                         [](const auto& info) { return test::workload_test_name(info.param->name); });

}  // namespace
}  // namespace gpumux::test
