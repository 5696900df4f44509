// QAWS end to end: two real kernels share every SM (smk-even), the second
// launched just after the first; with a larger warp budget the second
// finishes sooner than under GTO (which favours the older kernel's warps),
// and both compute the right results. Budgets are refused without QAWS.
// Kernel-aware Fair on the same pair: equal isolated issue rates, equal shares.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>

#include "gpumux/core/error.h"
#include "gpumux/multitask/runner.h"
#include "gpumux/multitask/workload_file.h"
#include "multitask/run_test_util.h"

namespace gpumux::multitask {
namespace {

// 4 SMs: each pc kernel's 16 TBs fill half of every SM, as in the study.
std::string pair_toml(const std::string& scheduler, const std::string& k2_budget) {
  return "gpu = \"" GPUMUX_SOURCE_DIR "/configs/titanv.toml\"\n"
         "set = [\"gpu.num_sms=4\", \"pcie.latency_us=0\", \"pcie.bandwidth_gbps=1000000\", \"sm.warp_scheduler=" + scheduler + "\"]\n"
         "[policy]\nname = \"smk-even\"\n"
         "[run]\nrestart = false\n"
         "[[app]]\nbenchmark = \"pc\"\n"
         "[[app]]\nbenchmark = \"pc\"\narrival_cycle = 8\n" + k2_budget;
}

RunResult run(const std::string& toml) {
  RunOptions o = test::no_baselines();
  o.use_cache = false;
  return run_workload(parse_workload(toml, "pair.toml"), o);
}

TEST(QawsRun, TheSecondKernelFinishesSoonerThanUnderGto) {
  RunResult gto = run(pair_toml("gto", ""));
  RunResult qaws = run(pair_toml("qaws", "warp_budget = 8\n"));
  test::expect_all_passed(gto);
  test::expect_all_passed(qaws);
  EXPECT_EQ(gto.apps[0].runs.size(), 1u);  // restart = false: the first to finish is not run again
  EXPECT_EQ(qaws.apps[1].runs.size(), 1u);
  Cycle k1_gto = gto.apps[0].runs[0].end, k2_gto = gto.apps[1].runs[0].end;
  Cycle k1_qaws = qaws.apps[0].runs[0].end, k2_qaws = qaws.apps[1].runs[0].end;
  EXPECT_GT(k2_gto, k1_gto);    // GTO: the older kernel first (priority inversion)
  EXPECT_LT(k2_qaws, k2_gto);   // QAWS: the budget-8 kernel sooner
  EXPECT_LT(k2_qaws, k1_qaws);  // and before the budget-1 kernel
}

TEST(KernelAwareRun, FairGivesTwoEqualKernelsEqualShares) {
  RunResult none = run(pair_toml("ka-none", ""));
  RunResult fair = run(pair_toml("ka-fair", ""));  // makes both apps' isolated runs for their issue rates
  test::expect_all_passed(none);
  test::expect_all_passed(fair);
  auto ends = [](const RunResult& r) {
    return std::pair{double(r.apps[0].runs[0].end), double(r.apps[1].runs[0].end)};
  };
  auto [k1_none, k2_none] = ends(none);
  auto [k1_fair, k2_fair] = ends(fair);
  EXPECT_GT(k2_none, 1.2 * k1_none);              // GTO order: K2 waits for K1
  EXPECT_LT(std::abs(k2_fair - k1_fair), 0.1 * k1_fair);  // equal shares: they end together
}

TEST(QawsRun, BudgetsAreRefusedWithoutQaws) {
  try {
    parse_workload(pair_toml("gto", "warp_budget = 4\n"), "pair.toml");
    FAIL() << "accepted";
  } catch (const LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("pair.toml:12"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("sm.warp_scheduler"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_workload(pair_toml("qaws", "warp_budget = 0\n"), "pair.toml"), LoadError);
  EXPECT_THROW(parse_workload("[run]\nuntil = \"cycles\"\nmax_cycles = 9\nrestart = false\n[[app]]\nbenchmark = \"pc\"\n",
                              "r.toml"),
               LoadError);
  // The command line's overrides may take QAWS away again.
  WorkloadFile w = parse_workload(pair_toml("qaws", "warp_budget = 4\n"), "pair.toml");
  RunOptions o;
  o.overrides = {"sm.warp_scheduler=lrr"};
  EXPECT_THROW(run_workload(w, o), LoadError);
}

}  // namespace
}  // namespace gpumux::multitask
