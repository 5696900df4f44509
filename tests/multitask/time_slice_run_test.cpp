// The sharing policy time-slice end to end: two library benchmarks on a
// GTX980-like GPU with a short timeslice, so that the GPU changes hands many
// times while they run. At each slice boundary the holder's TBs are switched
// out (context switch), both applications must pass their CPU checks, the
// per-SM invariants must hold at every placement, and no SM may ever hold TBs
// of two contexts outside a switch.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "multitask/run_test_util.h"

namespace gpumux::multitask {
namespace {

using test::benchmark_app;
using test::expect_all_passed;

WorkloadFile pair(double timeslice_us) {
  WorkloadFile w = test::gtx980_workload({benchmark_app("hotspot"), benchmark_app("sgemm")}, "time-slice");
  w.policy_options.timeslice_us = timeslice_us;
  w.policy_options.preemption.mechanism = "switch";
  w.overrides = {"gpu.num_sms=4", "frontend.check_invariants=true"};
  return w;
}

uint64_t time_slice_stat(const RunResult& r, const std::string& name) {
  return r.stats.at("stats").at("frontend").at("time_slice").at(name).at("total").get<uint64_t>();
}

TEST(TimeSliceRun, SliceBoundariesSwitchContextsAndBothAppsPass) {
  RunOptions o = test::no_baselines();
  RunResult r = run_workload(pair(5), o);
  expect_all_passed(r);
  const uint64_t switches = time_slice_stat(r, "boundary_switches");
  EXPECT_GT(switches, 2u);
  EXPECT_GE(time_slice_stat(r, "turns"), switches);
  // Every preemption is a context switch of the context losing the GPU, and
  // saved state: the cost emerges from the bytes saved.
  ASSERT_FALSE(r.preemptions.empty());
  uint64_t switched = 0, bytes = 0;
  for (const frontend::PreemptionRecord& p : r.preemptions) {
    EXPECT_EQ(p.mechanism, "switch");
    EXPECT_TRUE(p.done()) << p.label << " on SM " << p.sm;
    switched += p.switched;
    bytes += p.bytes_saved;
  }
  EXPECT_GT(switched, 0u);
  EXPECT_GT(bytes, 0u);
  // Pinned: the run is a pure function of workload, config and seed.
  EXPECT_EQ(r.cycles, 148134u);
}

// A timeslice longer than both runs: the first context keeps the GPU until it
// has no kernel left, so nothing is switched.
TEST(TimeSliceRun, LongSliceNeverSwitches) {
  RunOptions o = test::no_baselines();
  RunResult r = run_workload(pair(1e6), o);
  expect_all_passed(r);
  EXPECT_EQ(time_slice_stat(r, "boundary_switches"), 0u);
  EXPECT_TRUE(r.preemptions.empty());
}

// Priorities order the turns: the more urgent context takes the GPU at the
// first boundary and keeps it while it has kernels, so each of its launches
// finishes before the other context's last one, though both arrive together.
TEST(TimeSliceRun, TheMoreUrgentContextRunsFirst) {
  RunOptions o = test::no_baselines();
  WorkloadFile w = pair(5);
  w.apps[1].priority = 1;  // sgemm
  RunResult r = run_workload(w, o);
  expect_all_passed(r);
  Cycle urgent_end = 0, other_end = 0;
  for (const frontend::KernelRecord& k : r.kernels) {
    Cycle& end = k.app == 1 ? urgent_end : other_end;
    end = std::max(end, k.finished);
  }
  EXPECT_LT(urgent_end, other_end);
  // Once it holds the GPU, the urgent context is never switched out.
  for (const frontend::PreemptionRecord& p : r.preemptions) EXPECT_EQ(p.app, 0u) << p.label;
}

}  // namespace
}  // namespace gpumux::multitask
