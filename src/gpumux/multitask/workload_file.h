// A multiprogrammed workload: which applications share which GPU, under which
// sharing policy, and when the run ends. Read from strict TOML (unknown keys,
// wrong types and bad values are LoadErrors naming file:line):
//
//   gpu = "gtx980"                      # preset name or config file (relative to this file)
//   set = ["sm.warp_scheduler=lrr"]     # config overrides, as --set
//   seed = 1                            # app i's inputs use seed + i unless it sets its own
//
//   [policy]
//   name = "smk-quota"                  # a registered sharing policy (gpumux run --list-policies)
//   tb_quota = { sgemm = 2, stencil = 6 }   # smk-quota: TBs per SM per kernel, by app name
//   preemption = "switch"               # how SMs are taken back: drain (default), switch, flush, chimera
//   latency_budget_us = 15              # chimera: preemption latency target
//   switch_after_us = 20                # drain/chimera: switch TBs still draining after this (hybrid)
//   live_registers = true               # a context switch saves only live registers
//   lazy_shared = true                  # a context switch leaves shared memory parked on the SM
//   quota_scheme = "naive"              # QoS inside the SMs (docs/qos.md); needs an app with qos_goal
//   tb_adjustment = true                # quota schemes on smk-symmetric: TBs move between epochs (ISCA'17 3.6)
//   exclusive = true                    # ppq: lower priorities get no SM while a higher one is active
//   tokens = { sgemm = 8, lbm = 5 }     # dss: SMs each app's kernels may hold (default: equal shares)
//   copy_order = "priority"             # copy engines serve the highest app priority first (default fcfs)
//   copy_chunk_bytes = 1048576          # copies move in chunks, the order chosen after each (default 0: whole)
//
//   [run]
//   until = "completions"               # or "cycles", or "converged" (rates, docs/multitasking.md)
//   completions = 1                     # every app completes this many runs; early finishers restart
//   max_cycles = 0                      # core cycles; 0 = no limit (required with until = "cycles")
//   measure = "first"                   # which runs give an app's time: "first" or "all" (mean)
//   restart = true                      # false: an app that has completed its runs ends (no pressure on the others)
//   ipc_window = 10000                  # core cycles: sample each app's and kernel's IPC per window (0: off)
//   ipc_sm = 0                          # the windows count one SM's instructions (default: the whole GPU's)
//   tolerance = 0.02                    # until = "converged": every app's rate estimate stays within this
//   windows = 10                        #   (relative) over this many consecutive windows; needs max_cycles
//
//   [[app]]
//   benchmark = "sgemm"                 # from the workload library (gpumux list), or
//                                       # ptx = "file.ptx" + a declarative host program (user_program.h), or
//                                       # trace = "DIR": an Accel-Sim trace folder (trace_program.h)
//   name = "sgemm"                      # unique; default: the benchmark name (suffixed if repeated)
//   size = "tiny"                       # tiny, medium, small, large
//   arrival_cycle = 0                   # core cycle its host program starts
//   priority = 0                        # of its kernels (higher first); -100..100
//   seed = 7                            # optional
//   qos_goal = 0.5                      # optional: fraction of isolated IPC (quota schemes, QoS results)
//   cpu_gap_us = 5.0                    # host CPU time before each API call (Context::set_cpu_gap_ns)
//   warp_budget = 4                     # QAWS warp budget of its kernels (needs sm.warp_scheduler = "qaws"); default 1
//   events = { process = "poisson", interval_us = 20, count = 64, burst = 4 }
//                                       # event source (docs/edge.md): a networking benchmark's requests
//                                       # arrive from a device as event kernels instead of host launches
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpumux/core/config.h"
#include "gpumux/core/engine.h"
#include "gpumux/core/strict_toml.h"
#include "gpumux/frontend/copy_engine.h"
#include "gpumux/frontend/sharing_policy.h"
#include "gpumux/multitask/convergence.h"
#include "gpumux/multitask/trace_program.h"
#include "gpumux/multitask/user_program.h"
#include "workload.h"

namespace gpumux::multitask {

struct AppSpec {
  std::string name;
  // Exactly one of: a benchmark of the workload library, the user's PTX
  // with a declarative host program, or a trace folder.
  const workloads::WorkloadSpec* benchmark = nullptr;
  std::shared_ptr<const UserProgram> user;
  std::shared_ptr<const TraceProgram> trace;
  // Or (gpumux serve): a program attached over a socket as GPUMUX_APP=name.
  bool attached = false;
  workloads::Size size = workloads::Size::Tiny;
  Cycle arrival = 0;
  int priority = 0;
  uint64_t seed = 1;
  std::optional<double> qos_goal;
  std::optional<uint32_t> warp_budget;  // QAWS (docs/warp-scheduling.md); unset: 1
  double cpu_gap_us = 0;  // host code between API calls (runtime::Context::set_cpu_gap_ns)
  std::optional<runtime::ArrivalProcess> events;  // its requests arrive as events (runtime/events.h)

  // "sgemm", "ptx:saxpy.ptx" or "trace:DIR", for reports.
  std::string program() const;
  // Everything that determines what the application does, for the isolated-run cache.
  std::string identity() const;
};

struct RunRule {
  // Converged: ends once every app's rate has converged (convergence.h); measured by rate.
  enum class Until : uint8_t { Completions, Cycles, Converged };
  enum class Measure : uint8_t { First, All };
  Until until = Until::Completions;
  uint32_t completions = 1;
  Cycle max_cycles = 0;  // 0: none
  Measure measure = Measure::First;
  bool restart = true;  // early finishers run again until every app has completed
  Cycle ipc_window = 0;  // IPC sampled per window of this many core cycles (ipc_windows.h); 0: not
  std::optional<uint32_t> ipc_sm;  // the windows count this SM's instructions only (none: every SM's)
  ConvergenceRule convergence;  // until = Converged
};

struct WorkloadFile {
  std::string source = "<built-in>";  // file name, for messages
  std::string gpu = "gtx980";         // preset or file path (resolved)
  std::vector<std::string> overrides;
  std::string policy = "fcfs";
  frontend::PolicyOptions policy_options;  // app ids are indices into apps
  std::string quota_scheme;                // a registered QoS manager (gpu/qos/); empty: none
  bool tb_adjustment = false;              // the quota scheme's TB adjustment (gpu/qos/tb_adjustment.h)
  frontend::CopyOrdering copies;           // [policy] copy_order, copy_chunk_bytes (frontend/copy_engine.h)
  // [policy] warp_scheduler: sm.warp_scheduler of the shared run only (e.g.
  // SMK-(P+W): smk-drf with ka-fair); isolated runs keep the GPU's; empty: none.
  std::string warp_scheduler;
  RunRule run;
  std::vector<AppSpec> apps;
};

// `attached`: a workload of gpumux serve, whose applications are programs
// attached over its socket: an [[app]] has a name and the keys of how it runs
// beside the others (arrival_cycle, priority, cpu_gap_us, warp_budget), and
// [run] only max_cycles; other keys cannot apply and are LoadErrors.
WorkloadFile load_workload_file(const std::filesystem::path& file, bool attached = false);
// `name` stands for the file in errors; relative gpu paths resolve against `dir`.
WorkloadFile parse_workload(std::string_view toml_text, const std::string& name,
                            const std::filesystem::path& dir = ".", bool attached = false);
// The [run] table of `parent` (defaults when absent), shared by workload and study files.
RunRule parse_run_rule(StrictTable& parent);
// The keys of an [[app]] that say how it runs beside the others rather than
// what it runs (arrival_cycle, priority, qos_goal, cpu_gap_us), validated into
// `a`; absent keys leave `a` as it is. Studies read them per mix application.
void read_app_options(StrictTable& t, AppSpec& a);
// An app's `events` table: its event source (runtime/events.h).
runtime::ArrivalProcess read_event_source(StrictTable& parent, const toml::node& n);
// A host CPU time in microseconds, 0 to 1e6 (0 when absent).
double cpu_microseconds(StrictTable& t, std::string_view key);
// What the effective GPU config (`config`: the file's and the command line's
// overrides) decides: warp budgets need the QAWS warp scheduler, and
// run.ipc_sm an SM the GPU has.
void check_against_config(const WorkloadFile& w, const Config& config);
// Checks what parsing cannot (policy and its options, names); run by both loaders.
void validate(const WorkloadFile& w);

}  // namespace gpumux::multitask
