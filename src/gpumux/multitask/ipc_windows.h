// Warp instructions per cycle over fixed windows of a multiprogrammed run, per
// application and per kernel (stat key: an app's kernel, every launch of it),
// for time-series figures (GPU Maestro figs. 3, 4, 7; the thesis's fig. 6.2)
// and for runs that stop once their rates have converged (convergence.h).
//
//   WindowSampler s(gpu, apps, 10000);   // samples every 10000 core cycles
//   s.arm();                             // before each stretch of simulation
//   ... simulate ...
//   s.finish(gpu.core_cycle());          // the last, partial window
//   double ipc = s.windows().apps[0].ipc(s.windows(), 3);
//
// The sampler is a component of the core clock domain, ticked at each window
// end after the GPU's components (it is registered after them); it reads the
// SMs' warp instruction counters and changes nothing, so the run is the same
// with it, and the windows of an application sum to its warp instructions.
// It sleeps when nothing else in the engine is awake, so that the engine
// still goes idle (the host scheduler's deadlock check); arm() wakes it again,
// and windows that passed meanwhile had no instructions.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpumux/core/clock.h"
#include "gpumux/gpu/gpu.h"
#include "gpumux/stats/timeline.h"

namespace gpumux::multitask {

struct IpcWindows;

// One application's or kernel's warp instructions in each window.
struct WindowSeries {
  std::string name;  // the app's name, or the kernel's stat label ("app.kernel")
  uint32_t app = 0;
  std::vector<uint64_t> warp_insts;  // per window
  double ipc(const IpcWindows& w, size_t window) const;
  uint64_t total() const;
};

struct IpcWindows {
  Cycle window = 0;         // core cycles per window (0: not sampled)
  std::optional<uint32_t> sm;  // the one SM sampled; none: the whole GPU
  std::vector<Cycle> ends;  // each window's last core cycle (+1); the last window may be shorter
  std::vector<WindowSeries> apps, kernels;
  // With vm.demand_paging, sampled at each window's end (the thesis's figure
  // 6.2, beside the IPC): page faults in flight, and the active warps of all
  // SMs (sm::Sm::active_warps); empty otherwise.
  std::vector<uint32_t> faults_in_flight, active_warps;
  Cycle start(size_t k) const { return k ? ends[k - 1] : 0; }
  Cycle length(size_t k) const { return ends[k] - start(k); }
};

class WindowSampler : public Component {
 public:
  // `on_window(windows)` runs after each full window is recorded; when it
  // returns true the engine stops there (a converged run). May be null.
  // With `sm`, the windows count that SM's instructions only (an IPC trace
  // within an SM, GPU Maestro's figures 3 and 7); check_sampled_sm's error if
  // the GPU has no such SM.
  WindowSampler(gpu::Gpu& g, std::vector<std::string> app_names, Cycle window, std::optional<uint32_t> sm = {},
                std::function<bool(const IpcWindows&)> on_window = nullptr);
  // Ticks at the next window end if asleep.
  void arm();
  // Records the partial window from the last window end to `end` (if any
  // cycles) and stops sampling.
  void finish(Cycle end);
  const IpcWindows& windows() const { return w_; }

  Cycle tick(Cycle now) override;
  std::string describe_wait() const override { return ""; }

 private:
  void sample(Cycle end);
  // Faults in flight and active warps now, under demand paging.
  void sample_paging();

  gpu::Gpu& g_;
  IpcWindows w_;
  std::vector<uint64_t> seen_;  // per stat key: warp instructions up to the last window end
  std::function<bool(const IpcWindows&)> on_window_;
  bool asleep_ = true, finished_ = false;
};

// LoadError (its message prefixed by `where`, e.g. the workload file, when not
// empty) if `sm` names an SM a GPU of `num_sms` SMs does not have.
void check_sampled_sm(std::optional<uint32_t> sm, uint32_t num_sms, std::string_view where = {});

// {"window": W, "ends": [...], "apps": [{"name", "app", "warp_insts": [...]}], "kernels": [...]},
// and "faults_in_flight": [...] when sampled.
nlohmann::json to_json(const IpcWindows& w);
// The windows' IPC as counter tracks: one "IPC" counter per application and
// one "kernel IPC" counter with a series per kernel, sampled at each window start;
// and a "faults in flight" counter of the GPU when sampled, at each window end.
void add_ipc_tracks(stats::Timeline& t, const IpcWindows& w, double core_mhz);

}  // namespace gpumux::multitask
