// Multiprogram metrics on kernel time (GPU Maestro eq. 1-2): NTT, STP and
// ANTT from each application's cycles per instruction while its kernels ran.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpumux/multitask/metrics.h"
#include "gpumux/multitask/runner.h"
#include "multitask/run_test_util.h"

namespace gpumux::multitask {
namespace {

TEST(KernelCpi, IsBusyCyclesPerThreadInstruction) {
  EXPECT_DOUBLE_EQ(kernel_cpi(300, 600), 0.5);
  EXPECT_EQ(kernel_cpi(0, 600), 0.0);  // no kernel ran
  EXPECT_EQ(kernel_cpi(300, 0), 0.0);
}

frontend::KernelRecord launch(uint32_t app, Cycle first_tb, Cycle finished, bool done) {
  frontend::KernelRecord k;
  k.app = app;
  k.first_tb = first_tb;
  k.finished = finished;
  k.done = done;
  return k;
}

// Over the whole run: overlapping launches once, a launch still running
// counted to the end, one not dispatched yet and other apps' not at all.
TEST(KernelCpi, RunBusyCyclesCoverEveryLaunchUpToTheEnd) {
  std::vector<frontend::KernelRecord> k = {launch(0, 100, 300, true), launch(0, 250, 0, false),
                                           launch(0, 0, 0, false), launch(1, 50, 900, true),
                                           launch(0, 20, 60, true)};
  EXPECT_EQ(run_busy_cycles(k, 0, 500), 40u + 400u);  // [20, 60] and [100, 500]
  EXPECT_EQ(run_busy_cycles(k, 1, 500), 450u);        // clipped to the end
  // The first-run measure counts finished launches only.
  EXPECT_EQ(kernel_busy_cycles(k, 0, AppRun{0, 500, true, ""}), 40u + 200u);
}

RunOptions uncached() {
  RunOptions o;
  o.use_cache = false;
  return o;
}

TEST(KernelCpi, AnIsolatedRunHasKernelNttOne) {
  RunResult r = run_workload(test::gtx980_workload({test::benchmark_app("pc")}, "fcfs"), uncached());
  test::expect_all_passed(r);
  ASSERT_TRUE(r.kernel_metrics);
  const AppOutcome& a = r.apps[0];
  EXPECT_GT(a.busy_cycles, 0u);
  EXPECT_LT(a.busy_cycles, a.runs[0].cycles());  // copies and launch latency are not kernel time
  EXPECT_DOUBLE_EQ(a.shared_cpi, double(a.busy_cycles) / double(a.thread_insts));
  EXPECT_EQ(a.shared_cpi, a.alone_cpi);
  EXPECT_EQ(r.kernel_metrics->apps[0].ntt, 1.0);
}

// Two applications sharing the SMs: each one's CPI grows against its
// isolated run, NTT and STP follow eq. 1-2, and run.json carries them.
TEST(KernelCpi, SharedRunsGiveMaestrosNttAndStp) {
  RunResult r = run_workload(
      test::gtx980_workload({test::benchmark_app("pc"), test::benchmark_app("histo")}, "smk-even"), uncached());
  test::expect_all_passed(r);
  ASSERT_TRUE(r.kernel_metrics);
  double stp = 0, antt = 0;
  for (size_t i = 0; i < 2; ++i) {
    const AppOutcome& a = r.apps[i];
    EXPECT_GT(a.alone_cpi, 0);
    EXPECT_DOUBLE_EQ(a.shared_cpi, double(a.busy_cycles) / double(a.thread_insts)) << a.name;
    EXPECT_DOUBLE_EQ(r.kernel_metrics->apps[i].ntt, a.shared_cpi / a.alone_cpi);
    stp += a.alone_cpi / a.shared_cpi;
    antt += a.shared_cpi / a.alone_cpi / 2;
  }
  EXPECT_DOUBLE_EQ(r.kernel_metrics->stp, stp);
  EXPECT_DOUBLE_EQ(r.kernel_metrics->antt, antt);
  nlohmann::json j = to_json(r);
  EXPECT_DOUBLE_EQ(j["kernel_metrics"]["stp"].get<double>(), stp);
  EXPECT_DOUBLE_EQ(j["apps"][1]["shared_cpi"].get<double>(), r.apps[1].shared_cpi);
  EXPECT_NE(format_summary(r).find("on kernel CPI: STP"), std::string::npos);
}

}  // namespace
}  // namespace gpumux::multitask
