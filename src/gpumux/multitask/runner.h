// Runs a multiprogrammed workload (workload_file.h) on one simulated GPU:
// every application's host driver runs concurrently in simulated time
// (host_scheduler.h), each in its own context (address space), and
// applications that finish early are restarted until the run rule is met.
// Then each application is run alone on the same GPU (cached on disk) and
// the multiprogram metrics are computed: per-app NTT, STP, ANTT, fairness.
//
//   WorkloadFile w = load_workload_file("configs/workloads/pair.toml");
//   RunResult r = run_workload(w, {});
//   fmt::print("{}", format_summary(r));
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <span>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpumux/frontend/copy_engine.h"
#include "gpumux/frontend/events/event_engine.h"
#include "gpumux/frontend/tb_dispatcher.h"
#include "gpumux/multitask/convergence.h"
#include "gpumux/multitask/ipc_windows.h"
#include "gpumux/multitask/metrics.h"
#include "gpumux/multitask/workload_file.h"
#include "gpumux/stats/timeline.h"

namespace gpumux::multitask {

// The context of an application's host program: `reset` destroys it and
// makes a fresh one, configured alike (cudaDeviceReset), and returns it.
struct AppContext {
  runtime::Context* ctx;
  std::function<runtime::Context&()> reset;
  // Tells the sharing policy a served program's environment (SharingPolicy::client_environment).
  std::function<void(std::span<const std::string>)> environment;
};
// Runs the host program of an attached application (AppSpec::attached,
// gpumux serve) in `c`; `alone`: its isolated run. Returns how it ended.
using AttachedProgram = std::function<workloads::CheckResult(const AppSpec& app, bool alone, AppContext& c)>;

struct RunOptions {
  std::vector<std::string> overrides;  // config overrides after the workload's own
  bool baselines = true;               // run apps alone and compute the metrics (apps with a
                                       // qos_goal always are: their goals need it)
  bool use_cache = true;               // isolated runs cached on disk
  std::filesystem::path cache_dir;     // empty: BaselineCache::default_dir()
  stats::Timeline* timeline = nullptr; // filled with SM, app and copy tracks (and IPC counters) if given
  AttachedProgram attached;            // required when the workload has attached apps
  std::FILE* progress = nullptr;       // a progress line here while simulating (gpu/progress.h); null: none
  bool statistics = true;              // fill RunResult::stats (a run that writes no JSON skips it)
};

// One run of an application's host program, in core cycles.
struct AppRun {
  Cycle start = 0, end = 0;
  bool passed = false;
  std::string detail;  // of the CPU check
  Cycle cycles() const { return end - start; }
};

struct AppOutcome {
  std::string name, benchmark, size;
  Cycle arrival = 0;
  int priority = 0;
  std::vector<AppRun> runs;   // completed runs, in order
  std::string error;          // why it was terminated (fault, failed check); empty if none
  uint64_t warp_insts = 0;    // all its kernels issued during the run
  uint64_t thread_insts = 0;  // the same, in active threads
  // The measured time: first run or mean of runs (RunRule::Measure); when no
  // run completed (cycle-limited runs), cycles per warp instruction instead.
  double shared = 0, alone = 0;
  bool by_rate = false;       // shared/alone are cycles per warp instruction
  // Its isolated run's first-run kernel-busy cycles and the mean launch-to-end
  // cycles of its event kernels (0: none), for per-kernel slowdowns (EDGE's ANTT).
  double alone_kernel_cycles = 0, alone_event_cycles = 0;
  // Kernel time (GPU Maestro's CPI, eq. 1-2): cycles of the whole run during
  // which its kernels had TBs on the GPU (run_busy_cycles), and per thread
  // instruction issued, shared and in its isolated run (0: no instruction).
  Cycle busy_cycles = 0;
  double shared_cpi = 0, alone_cpi = 0;
  // Why the isolated run gave no time (it faulted or failed its check): then
  // `alone`, this app's NTT and the workload's metrics are unavailable.
  std::string alone_error;
  bool ok() const { return error.empty() && !runs.empty(); }
};

// How one completed launch of an application with a qos_goal did (docs/qos.md): its
// IPC in thread instructions per core cycle, from its first TB to its end (or
// the end of the run), against the goal: qos_goal x the isolated IPC of its
// application (thread instructions over the cycles its kernels were busy).
struct KernelQos {
  uint32_t launch = 0, app = 0;
  std::string label;
  double goal_ipc = 0, ipc = 0;
  Cycle cycles = 0;  // from its first TB to its end
  double ratio() const { return goal_ipc > 0 ? ipc / goal_ipc : 0.0; }
  bool reached() const { return ipc >= goal_ipc; }
};

struct RunResult {
  std::string gpu, policy;
  std::string quota_scheme;    // empty: none
  Cycle cycles = 0;            // core cycles simulated
  bool stopped_by_limit = false;
  double host_seconds = 0;      // wall-clock time of the simulation
  double host_cpu_seconds = 0;  // CPU time of this process meanwhile (user + system)
  uint64_t warp_insts = 0;
  std::vector<AppOutcome> apps;
  std::vector<frontend::KernelRecord> kernels;
  std::vector<frontend::CopyRecord> copies;
  std::vector<frontend::PreemptionRecord> preemptions;
  std::vector<frontend::EventRecord> events;  // event kernels (docs/edge.md)
  std::vector<KernelQos> qos;              // launches of apps with a qos_goal
  std::optional<IpcWindows> ipc_windows;   // with [run] ipc_window
  std::optional<ConvergenceReport> convergence;  // with [run] until = "converged"
  std::optional<WorkloadMetrics> metrics;  // with baselines, when every app has both times
  std::optional<WorkloadMetrics> kernel_metrics;  // the same on kernel CPI (shared_cpi, alone_cpi)
  nlohmann::json stats;                    // the statistics registry (stats/writers.h); null
                                           // unless RunOptions::statistics
  bool all_passed() const;
};

RunResult run_workload(const WorkloadFile& w, const RunOptions& o);

// Cycles of `run` during which at least one launch of application `app` had
// TBs on the GPU: the union of [first TB dispatch, finish] over its launches,
// clipped to the run. Launch latency before the first TB, copies and host
// work between launches count as not busy.
Cycle kernel_busy_cycles(const std::vector<frontend::KernelRecord>& kernels, uint32_t app, const AppRun& run);
// The same over a whole run ending at `end`, every run and restart of the
// application, a launch still running at `end` counting up to it.
Cycle run_busy_cycles(const std::vector<frontend::KernelRecord>& kernels, uint32_t app, Cycle end);

// The readable summary table of a run.
std::string format_summary(const RunResult& r);
// Everything: apps, kernels, copies, metrics, statistics.
nlohmann::json to_json(const RunResult& r);
// The same, moving the statistics tree out of `r` instead of copying it.
nlohmann::json to_json(RunResult&& r);

}  // namespace gpumux::multitask
