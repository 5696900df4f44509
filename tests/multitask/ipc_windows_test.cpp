// IPC windows ([run] ipc_window) and runs that stop once their rates have
// converged ([run] until = "converged"): the series' arithmetic and timeline
// counters on a synthetic sequence, then end to end on the timing model.
#include "gpumux/multitask/ipc_windows.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "gpumux/core/error.h"
#include "gpumux/multitask/runner.h"
#include "multitask/run_test_util.h"

namespace gpumux::multitask {
namespace {

IpcWindows synthetic() {
  IpcWindows w;
  w.window = 100;
  w.ends = {100, 200, 250};  // the last window is partial
  w.apps = {{"a", 0, {150, 0, 100}}, {"b", 1, {50, 100, 0}}};
  w.kernels = {{"a.k1", 0, {150, 0, 60}}, {"a.k2", 0, {0, 0, 40}}, {"b.k", 1, {50, 100, 0}}};
  return w;
}

TEST(IpcWindows, RatesUseEachWindowsOwnLength) {
  IpcWindows w = synthetic();
  EXPECT_DOUBLE_EQ(w.apps[0].ipc(w, 0), 1.5);
  EXPECT_DOUBLE_EQ(w.apps[0].ipc(w, 1), 0.0);
  EXPECT_DOUBLE_EQ(w.apps[0].ipc(w, 2), 2.0);  // 100 instructions in 50 cycles
  EXPECT_EQ(w.apps[0].total(), 250u);
  EXPECT_EQ(w.length(2), 50u);
  nlohmann::json j = to_json(w);
  EXPECT_EQ(j["window"], 100);
  EXPECT_EQ(j["apps"][1]["warp_insts"], nlohmann::json({50, 100, 0}));
  EXPECT_EQ(j["kernels"][1]["name"], "a.k2");
}

TEST(IpcWindows, TimelineCountersSampleEachWindowStart) {
  IpcWindows w = synthetic();
  stats::Timeline t;
  add_ipc_tracks(t, w, 1000.0);  // 1000 MHz: 1 cycle = 1 ns = 0.001 us
  nlohmann::json events = t.to_json()["traceEvents"];
  std::vector<double> ipc_a, at_a, kernel_k2;
  for (const nlohmann::json& e : events) {
    if (e["ph"] != "C") continue;
    if (e["name"] == "IPC" && e["pid"] == 1) {
      ipc_a.push_back(e["args"]["warp insts/cycle"].get<double>());
      at_a.push_back(e["ts"].get<double>());
    }
    if (e["name"] == "kernel IPC" && e["args"].contains("a.k2")) kernel_k2.push_back(e["args"]["a.k2"].get<double>());
  }
  EXPECT_EQ(ipc_a, (std::vector<double>{1.5, 0.0, 2.0, 0.0}));  // the last closes the graph at the end
  EXPECT_EQ(at_a, (std::vector<double>{0.0, 0.1, 0.2, 0.25}));
  EXPECT_EQ(kernel_k2, (std::vector<double>{0.0, 0.0, 0.8, 0.0}));
}

AppSpec app(const std::string& bench, uint64_t seed) {
  AppSpec a = test::benchmark_app(bench);
  a.seed = seed;
  return a;
}

// The pinned pair of runner_test.cpp (MultiAppRun.PinnedCyclesOfATwoAppTinyWorkload).
WorkloadFile pinned_pair() {
  WorkloadFile w;
  w.gpu = std::string(GPUMUX_SOURCE_DIR) + "/configs/gtx980.toml";
  w.policy = "smk-even";
  w.apps = {app("sgemm", 1), app("stencil", 2)};
  return w;
}

using test::no_baselines;

// Sampling changes nothing in the run, and the windows account for every
// warp instruction of each app and kernel.
TEST(IpcWindowsRun, WindowsSumToEachAppsInstructionsAndLeaveTheRunAlone) {
  WorkloadFile w = pinned_pair();
  w.run.ipc_window = 5000;
  stats::Timeline t;
  RunOptions o = no_baselines();
  o.timeline = &t;
  RunResult r = run_workload(w, o);
  test::expect_all_passed(r);
  EXPECT_EQ(r.apps[0].runs[0].cycles(), 123619u);  // as without windows
  EXPECT_EQ(r.apps[1].runs[0].cycles(), 94678u);
  ASSERT_TRUE(r.ipc_windows);
  const IpcWindows& win = *r.ipc_windows;
  ASSERT_EQ(win.apps.size(), 2u);
  EXPECT_EQ(win.ends.back(), r.cycles);
  EXPECT_EQ(win.ends.size(), (r.cycles + 4999) / 5000);
  for (size_t k = 0; k + 1 < win.ends.size(); ++k) EXPECT_EQ(win.length(k), 5000u);
  uint64_t all = 0;
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(win.apps[i].warp_insts.size(), win.ends.size());
    EXPECT_EQ(win.apps[i].total(), r.apps[i].warp_insts) << i;
    EXPECT_GT(r.apps[i].warp_insts, 0u);
    uint64_t kernels = 0;
    for (const WindowSeries& k : win.kernels)
      if (k.app == i) kernels += k.total();
    EXPECT_EQ(kernels, r.apps[i].warp_insts) << i;
    all += win.apps[i].total();
  }
  EXPECT_EQ(all, r.warp_insts);
  EXPECT_TRUE(to_json(r)["ipc_windows"].is_object());
  EXPECT_NE(t.to_json().dump().find("\"kernel IPC\""), std::string::npos);
}

// ipc_sm: the windows count one SM's instructions (GPU Maestro's IPC trace
// within an SM); the SMs' traces add up to the whole GPU's, and the run is unchanged.
TEST(IpcWindowsRun, OneSmsWindowsCountThatSmOnly) {
  WorkloadFile w = pinned_pair();
  w.run.ipc_window = 5000;
  RunResult whole = run_workload(w, no_baselines());
  ASSERT_TRUE(whole.ipc_windows);
  const uint32_t sms = 16;  // gtx980
  std::vector<uint64_t> summed(2, 0);
  std::vector<uint64_t> window0(2, 0);
  size_t sms_with_both = 0;
  for (uint32_t sm = 0; sm < sms; ++sm) {
    w.run.ipc_sm = sm;
    RunResult r = run_workload(w, no_baselines());
    test::expect_all_passed(r);
    EXPECT_EQ(r.cycles, whole.cycles) << sm;
    ASSERT_TRUE(r.ipc_windows);
    EXPECT_EQ(r.ipc_windows->sm, sm);
    EXPECT_EQ(r.ipc_windows->ends, whole.ipc_windows->ends);
    EXPECT_EQ(to_json(*r.ipc_windows)["sm"], sm);
    for (size_t i = 0; i < 2; ++i) {
      summed[i] += r.ipc_windows->apps[i].total();
      window0[i] += r.ipc_windows->apps[i].warp_insts[0];
    }
    sms_with_both += r.ipc_windows->apps[0].total() > 0 && r.ipc_windows->apps[1].total() > 0;
  }
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(summed[i], whole.ipc_windows->apps[i].total()) << i;
    EXPECT_EQ(window0[i], whole.ipc_windows->apps[i].warp_insts[0]) << i;
  }
  EXPECT_GT(sms_with_both, 0u);  // smk-even: both kernels share SMs
  w.run.ipc_sm = sms;
  try {
    run_workload(w, no_baselines());
    FAIL() << "no error";
  } catch (const LoadError& e) {
    EXPECT_EQ(std::string(e.what()), "<built-in>: run.ipc_sm = 16: the GPU has 16 SMs (0 to 15)");
  }
  // The sampler itself refuses it too, for callers that skip the workload checks.
  try {
    check_sampled_sm(80, 80);
    FAIL() << "no error";
  } catch (const LoadError& e) {
    EXPECT_EQ(std::string(e.what()), "run.ipc_sm = 80: the GPU has 80 SMs (0 to 79)");
  }
  EXPECT_NO_THROW(check_sampled_sm(79, 80));
  EXPECT_NO_THROW(check_sampled_sm(std::nullopt, 80));
}

// Demand paging (docs/virtual-memory.md): the windows also sample the faults
// at the host, which are serviced one at a time, and the timeline draws them.
TEST(IpcWindowsRun, DemandPagingSamplesFaultsInFlight) {
  WorkloadFile w;
  w.gpu = std::string(GPUMUX_SOURCE_DIR) + "/configs/thesis-ch6.toml";
  w.overrides = {"vm.demand_paging=true"};
  w.apps = {app("vecadd", 1)};
  w.run.ipc_window = 5000;
  stats::Timeline t;
  RunOptions o = no_baselines();
  o.timeline = &t;
  RunResult r = run_workload(w, o);
  test::expect_all_passed(r);
  ASSERT_TRUE(r.ipc_windows);
  const IpcWindows& win = *r.ipc_windows;
  ASSERT_EQ(win.faults_in_flight.size(), win.ends.size());
  EXPECT_GT(*std::max_element(win.faults_in_flight.begin(), win.faults_in_flight.end()), 0u);
  EXPECT_EQ(win.faults_in_flight.back(), 0u);  // all serviced by the end
  EXPECT_NE(t.to_json().dump().find("\"faults in flight\""), std::string::npos);
  EXPECT_TRUE(to_json(win).contains("faults_in_flight"));
  EXPECT_FALSE(to_json(synthetic()).contains("faults_in_flight"));
  // Active warps beside them: vecadd's warps all wait for the faults of its
  // inputs in some window, and run in others (at most Table 6.1's 64 per SM).
  ASSERT_EQ(win.active_warps.size(), win.ends.size());
  const auto [least, most] = std::minmax_element(win.active_warps.begin(), win.active_warps.end());
  EXPECT_EQ(*least, 0u);
  EXPECT_GT(*most, 0u);
  EXPECT_LE(*most, 16u * 64);
  bool idle_while_faulting = false;
  for (size_t k = 0; k < win.ends.size(); ++k) idle_while_faulting |= win.faults_in_flight[k] > 0 && win.active_warps[k] == 0;
  EXPECT_TRUE(idle_while_faulting);
  EXPECT_NE(t.to_json().dump().find("\"active warps\""), std::string::npos);
  EXPECT_TRUE(to_json(win).contains("active_warps"));
}

WorkloadFile converging_pair(double tolerance, uint32_t windows, Cycle max_cycles) {
  WorkloadFile w = pinned_pair();
  w.run.until = RunRule::Until::Converged;
  w.run.ipc_window = 2000;
  w.run.max_cycles = max_cycles;
  w.run.convergence = {tolerance, windows};
  return w;
}

TEST(ConvergedRun, StopsOnceRatesHoldAndReportsTheEstimateWithItsBound) {
  RunOptions o;
  o.use_cache = false;
  RunResult r = run_workload(converging_pair(0.05, 5, 2000000), o);
  ASSERT_TRUE(r.convergence);
  const ConvergenceReport& c = *r.convergence;
  EXPECT_TRUE(c.converged);
  EXPECT_FALSE(r.stopped_by_limit);
  EXPECT_EQ(c.at % 2000, 0u);
  EXPECT_LE(r.cycles, c.at);
  EXPECT_GT(r.ipc_windows->ends.size(), 5u);
  ASSERT_TRUE(r.metrics);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(r.apps[i].by_rate);
    EXPECT_LE(c.apps[i].spread, 0.05);
    // Its rate is its windows' instructions since arrival over the cycles to the window end.
    EXPECT_DOUBLE_EQ(c.apps[i].ipc, double(r.ipc_windows->apps[i].total()) / double(c.at));
    EXPECT_DOUBLE_EQ(r.apps[i].shared, 1.0 / c.apps[i].ipc);
  }
  ASSERT_TRUE(c.stp_bound && c.antt_bound);
  EXPECT_GT(*c.antt_bound, 0.0);
  nlohmann::json j = to_json(r);
  EXPECT_TRUE(j["convergence"]["converged"].get<bool>());
  EXPECT_EQ(j["convergence"]["apps"].size(), 2u);
  EXPECT_NE(format_summary(r).find("converged at core cycle"), std::string::npos);
  EXPECT_TRUE(r.all_passed());  // a converged run needs no completed run
}

TEST(ConvergedRun, ACycleLimitFirstSaysItDidNotConverge) {
  RunResult r = run_workload(converging_pair(0.0001, 1000, 30000), no_baselines());
  ASSERT_TRUE(r.convergence);
  EXPECT_FALSE(r.convergence->converged);
  EXPECT_TRUE(r.stopped_by_limit);
  EXPECT_NE(format_summary(r).find("NOT converged by core cycle"), std::string::npos);
}

std::string error_of(const std::string& run_table) {
  try {
    parse_workload(run_table + "[[app]]\nbenchmark = \"pc\"\n", "w.toml");
  } catch (const LoadError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ConvergedRun, BadOptionsAreLoadErrors) {
  const std::string converged = "[run]\nuntil = \"converged\"\nmax_cycles = 100000\n";
  EXPECT_EQ(error_of(converged + "completions = 3\n"),
            "w.toml:4: run.completions: cannot apply to until = \"converged\": it measures each app's rate, not "
            "completed runs (use until = \"completions\" for turnaround times)");
  EXPECT_NE(error_of(converged + "measure = \"all\"\n").find("run.measure: cannot apply"), std::string::npos);
  EXPECT_NE(error_of(converged + "restart = false\n").find("run.restart: cannot apply"), std::string::npos);
  EXPECT_NE(error_of("[run]\nuntil = \"converged\"\n").find("needs max_cycles > 0"), std::string::npos);
  EXPECT_EQ(error_of("[run]\ntolerance = 0.1\n"), "w.toml:2: run.tolerance: only used with until = \"converged\"");
  EXPECT_NE(error_of("[run]\nwindows = 4\n").find("only used with until"), std::string::npos);
  EXPECT_NE(error_of(converged + "tolerance = 1.5\n").find("expected a fraction in (0, 1)"), std::string::npos);
  EXPECT_NE(error_of(converged + "windows = 1\n").find("run.windows"), std::string::npos);
  EXPECT_NE(error_of("[run]\nipc_window = 10\n").find("run.ipc_window"), std::string::npos);
  EXPECT_NE(error_of("[run]\nuntil = \"soon\"\n").find("converged"), std::string::npos);
  WorkloadFile w = parse_workload(converged + "tolerance = 0.03\nwindows = 7\n[[app]]\nbenchmark = \"pc\"\n", "w.toml");
  EXPECT_EQ(w.run.until, RunRule::Until::Converged);
  EXPECT_EQ(w.run.ipc_window, 10000u);  // the default window with until = "converged"
  EXPECT_DOUBLE_EQ(w.run.convergence.tolerance, 0.03);
  EXPECT_EQ(w.run.convergence.windows, 7u);
  EXPECT_EQ(parse_workload("[run]\nipc_window = 500\n[[app]]\nbenchmark = \"pc\"\n", "w.toml").run.ipc_window, 500u);
  EXPECT_EQ(error_of("[run]\nipc_sm = 1\n"), "w.toml:2: run.ipc_sm: needs ipc_window (the windows it samples)");
  EXPECT_NE(error_of(converged + "ipc_sm = 1\n").find("not used with until = \"converged\""), std::string::npos);
  EXPECT_NE(error_of("[run]\nipc_window = 500\nipc_sm = -1\n").find("run.ipc_sm"), std::string::npos);
  EXPECT_EQ(parse_workload("[run]\nipc_window = 500\nipc_sm = 3\n[[app]]\nbenchmark = \"pc\"\n", "w.toml").run.ipc_sm,
            3u);
}

}  // namespace
}  // namespace gpumux::multitask
