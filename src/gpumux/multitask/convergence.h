// When a multiprogrammed run's answer is known ([run] until = "converged",
// docs/multitasking.md): each application's progress rate, its warp
// instructions per cycle since its arrival, is re-estimated at the end of
// every IPC window (ipc_windows.h); the run has converged once, for every
// application, the last `windows` estimates all lie within `tolerance`
// (relative) of the latest. The NTT it implies (isolated IPC over shared IPC)
// then moves by at most about as much.
//
//   RateConvergence c({.tolerance = 0.02, .windows = 10}, {0, 0});
//   c.add_window(10000, {{5200, 3100}});
//   if (c.converged()) ... c.estimate(0).ipc ...
//
// Each estimate comes with two error measures: `spread`, the largest relative
// distance of the last `windows` estimates from the latest (at most the
// tolerance once converged), and a 95% batch-means interval over the
// application's per-window IPC since its arrival (10 contiguous batches; the
// windows are correlated, the batch means much less). `bound()` is the larger.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpumux/core/clock.h"
#include "gpumux/multitask/metrics.h"

namespace gpumux::multitask {

struct ConvergenceRule {
  double tolerance = 0.02;  // relative, in (0, 1)
  uint32_t windows = 10;    // consecutive window ends the estimate must stay within it
};

struct RateEstimate {
  double ipc = 0;     // warp instructions per core cycle since arrival
  double spread = 0;  // relative: max |estimate_k - ipc| / ipc over the last `windows` window ends
  std::optional<double> batch_half_width;  // relative 95% batch-means half-width; none: < 20 windows
  double bound() const { return std::max(spread, batch_half_width.value_or(0.0)); }
};

class RateConvergence {
 public:
  // `arrivals`: each application's arrival cycle (its rate counts from there).
  RateConvergence(ConvergenceRule rule, std::vector<Cycle> arrivals);
  // One window ending at core cycle `end`: every application's warp
  // instructions issued in it.
  void add_window(Cycle end, std::span<const uint64_t> warp_insts);
  // Application `app` ended (it failed): no longer waited for.
  void retire(size_t app) { apps_.at(app).retired = true; }
  // Every application not retired has `windows` estimates within the tolerance.
  bool converged() const;
  bool converged(size_t app) const;
  // Its current estimate; ipc 0 before it issued anything.
  RateEstimate estimate(size_t app) const;
  const ConvergenceRule& rule() const { return rule_; }

 private:
  struct App {
    Cycle arrival = 0;
    uint64_t total = 0;
    std::vector<double> running;  // the estimate after each window since its first instruction
    std::vector<double> window_ipc;  // each window's own IPC since arrival
    bool retired = false;
  };
  double spread(const App& a) const;
  ConvergenceRule rule_;
  std::vector<App> apps_;
  Cycle last_end_ = 0;
};

// How a run with until = "converged" ended, for its JSON and summary.
struct ConvergenceReport {
  ConvergenceRule rule;
  Cycle window = 0;
  bool converged = false;  // false: stopped at max_cycles first
  Cycle at = 0;            // core cycle of the window end it converged at (or the run's end)
  std::vector<std::string> names;
  std::vector<RateEstimate> apps;
  // First-order bounds of the metrics from each app's bound() (the NTT's
  // relative error is its rate's): sum of progress_i x bound_i for STP, mean
  // of NTT_i x bound_i for ANTT; set when the run has metrics.
  std::optional<double> stp_bound, antt_bound;
};

// Sets the bounds of `m`, the metrics of the report's run.
void set_metric_bounds(ConvergenceReport& c, const WorkloadMetrics& m);
nlohmann::json to_json(const ConvergenceReport& c);
// One line per app and one for the metrics' bounds.
std::string format_convergence(const ConvergenceReport& c);

}  // namespace gpumux::multitask
