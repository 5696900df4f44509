// Multiprogram performance metrics (Eyerman & Eeckhout, "System-level
// performance metrics for multiprogram workloads", IEEE Micro 2008), computed
// from each application's run time alone on the GPU and shared with the others.
// See /work/shared/MECHANISMS.md section 0 for the definitions used here:
//
//   NTT_i    = T_shared_i / T_alone_i          normalized turnaround time (slowdown, >= 1 usually)
//   NP_i     = T_alone_i / T_shared_i          normalized progress (1 / NTT_i)
//   ANTT     = (1/n) * sum_i NTT_i             lower is better
//   STP      = sum_i NP_i                      system throughput, higher is better (n = no slowdown)
//   fairness = min_i NP_i / max_j NP_j         1 = every application slowed down equally
//
// The same formulas on kernel time are GPU Maestro's (Park et al., ASPLOS'17,
// eq. 1-2): with T = CPI, cycles per instruction while the application's
// kernels run, NTT_i = CPI_shared_i / CPI_alone_i and STP = sum_i IPC_shared_i
// / IPC_alone_i. Copies, launch latency and host time then do not count.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

namespace gpumux::multitask {

// One application's run times, both in the same unit (e.g. core cycles).
struct AppTimes {
  std::string name;
  double shared = 0, alone = 0;
};

struct AppMetrics {
  std::string name;
  double ntt = 0, progress = 0;  // ntt = shared/alone, progress = alone/shared
  double shared = 0, alone = 0;  // the inputs, for reports
};

struct WorkloadMetrics {
  std::vector<AppMetrics> apps;  // in input order
  double stp = 0, antt = 0, fairness = 0;
};

// Cycles per instruction: `busy_cycles` (cycles during which the
// application's kernels had TBs on the GPU) over the thread instructions they
// issued; 0 when either is 0 (no kernel ran).
double kernel_cpi(double busy_cycles, uint64_t thread_insts);

// ApiError on empty input or a time that is not a finite positive number
// (the message names the application).
WorkloadMetrics compute_metrics(std::span<const AppTimes> apps);

// {"stp": .., "antt": .., "fairness": .., "ntt": {"<name>": ntt, ...},
//  "apps": [{"name", "ntt", "progress", "shared", "alone"}, ...]}
// A name used by several applications appears in "ntt" as "<name>#2", "#3"...
// from its second occurrence on, so no entry is lost.
nlohmann::json to_json(const WorkloadMetrics& m);

}  // namespace gpumux::multitask
