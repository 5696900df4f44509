// Fault-aware scheduling (docs/virtual-memory.md, the thesis's section 7.2.3)
// end to end: with demand paging and TB switching on fault, an SM whose TBs
// all wait for faults is lent to another application's kernel until the
// faults are serviced; both applications pass their CPU checks under every
// policy family and preemption mechanism, the loans show in the statistics,
// and the option is refused where it could not take effect.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpumux/core/error.h"
#include "multitask/run_test_util.h"

namespace gpumux::multitask {
namespace {

using test::benchmark_app;
using test::expect_all_passed;

// sgemm and histo (both fault on their inputs) on thesis-ch6 with 2 SMs,
// demand paging, the operand log and TB switching with `extra_tbs` extra TBs
// (0: TBs leave on faults only when their SM is lent).
WorkloadFile paged_pair(const std::string& policy, bool fault_aware, const std::string& preemption = "drain",
                        uint32_t extra_tbs = 1) {
  WorkloadFile w = test::gtx980_workload({benchmark_app("sgemm"), benchmark_app("histo")}, policy);
  w.gpu = std::string(GPUMUX_SOURCE_DIR) + "/configs/thesis-ch6.toml";
  for (AppSpec& a : w.apps) a.size = workloads::Size::Tiny;
  w.policy_options.fault_aware = fault_aware;
  w.policy_options.preemption.mechanism = preemption;
  w.overrides = {"gpu.num_sms=2", "vm.demand_paging=true", "sm.fault_pipeline.mode=operand-log",
                 "sm.fault_pipeline.extra_tbs=" + std::to_string(extra_tbs), "frontend.check_invariants=true"};
  return w;
}

struct LoanRun {
  RunResult result;
  uint64_t loans = 0, loan_cycles = 0, switched_on_fault = 0;
};

LoanRun run_pair(const WorkloadFile& w) {
  RunOptions o = test::no_baselines();
  o.statistics = true;
  LoanRun r{run_workload(w, o)};
  const nlohmann::json& s = r.result.stats.at("stats");
  if (s.at("frontend").contains("fault_loans")) {
    r.loans = s.at("frontend").at("fault_loans").at("total").get<uint64_t>();
    r.loan_cycles = s.at("frontend").at("fault_loan_cycles").at("total").get<uint64_t>();
  }
  for (const char* sm : {"sm0", "sm1"})
    if (s.at(sm).contains("fault_pipeline") && s.at(sm).at("fault_pipeline").contains("tbs_switched_on_fault"))
      r.switched_on_fault += s.at(sm).at("fault_pipeline").at("tbs_switched_on_fault").at("total").get<uint64_t>();
  return r;
}

// Spatial sharing leaves each kernel one SM: when its TBs all wait for
// faults, the other kernel borrows it, and gives it back by the policy's
// mechanism (the invariants hold at every placement); with or without TB
// switching within the kernel.
TEST(FaultAwareRun, SmsIdleOnFaultsAreLentAndResultsStayCorrect) {
  for (uint32_t extra : {0u, 1u})
    for (const char* mechanism : {"drain", "switch"}) {
      LoanRun on = run_pair(paged_pair("spatial-even", true, mechanism, extra));
      expect_all_passed(on.result);
      EXPECT_GT(on.loans, 0u) << mechanism << " " << extra;
      EXPECT_GT(on.loan_cycles, 0u) << mechanism << " " << extra;
      EXPECT_GE(on.switched_on_fault, on.loans) << mechanism << " " << extra;  // a loan switches TBs out
    }
  LoanRun off = run_pair(paged_pair("spatial-even", false, "drain", 0));
  expect_all_passed(off.result);
  EXPECT_EQ(off.loans, 0u);
  EXPECT_EQ(off.switched_on_fault, 0u);
}

// Every policy family: a shared SM, DSS's tokens, the thesis's kernel-fcfs
// and the priority scheduler: loans never break a result.
TEST(FaultAwareRun, EveryPolicyFamilyRunsCorrectly) {
  for (const char* policy : {"fcfs", "smk-even", "dss", "kernel-fcfs", "ppq"}) {
    LoanRun r = run_pair(paged_pair(policy, true, "switch"));
    expect_all_passed(r.result);
    EXPECT_GT(r.switched_on_fault, 0u) << policy;
  }
}

// Deterministic, and pinned: a change that moves these must be deliberate.
TEST(FaultAwareRun, PinnedCycles) {
  LoanRun a = run_pair(paged_pair("spatial-even", true));
  LoanRun b = run_pair(paged_pair("spatial-even", true));
  EXPECT_EQ(a.result.cycles, b.result.cycles);
  EXPECT_EQ(a.loans, b.loans);
  EXPECT_EQ(a.result.cycles, 241458u);
  EXPECT_EQ(a.loans, 11u);
}

// A loan switches out TBs that wait for faults: refused where nothing faults
// or a faulted instruction cannot be squashed and replayed.
TEST(FaultAwareRun, NeedsDemandPagingAndASquashingPipeline) {
  auto refused = [](std::vector<std::string> overrides) {
    WorkloadFile w = paged_pair("spatial-even", true);
    w.overrides = std::move(overrides);
    try {
      run_workload(w, test::no_baselines());
    } catch (const LoadError& e) {
      return std::string(e.what()).find("[policy] fault_aware") != std::string::npos;
    }
    return false;
  };
  EXPECT_TRUE(refused({"gpu.num_sms=2", "sm.fault_pipeline.mode=operand-log"}));
  for (const char* mode : {"stall-on-fault", "wd-commit", "wd-lastcheck"})
    EXPECT_TRUE(refused({"gpu.num_sms=2", "vm.demand_paging=true", std::string("sm.fault_pipeline.mode=") + mode}))
        << mode;
}

TEST(FaultAwareRun, TheWorkloadKeyIsReadAndChecked) {
  const std::string apps = "[[app]]\nbenchmark = \"sgemm\"\n";
  EXPECT_TRUE(parse_workload("[policy]\nname = \"dss\"\nfault_aware = true\n" + apps, "w.toml").policy_options.fault_aware);
  EXPECT_FALSE(parse_workload("[policy]\nname = \"dss\"\n" + apps, "w.toml").policy_options.fault_aware);
  EXPECT_THROW(parse_workload("[policy]\nname = \"dss\"\nfault_aware = 1\n" + apps, "w.toml"), LoadError);
}

}  // namespace
}  // namespace gpumux::multitask
