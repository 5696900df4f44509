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
#pragma once

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

// ApiError on empty input or a time that is not a finite positive number
// (the message names the application).
WorkloadMetrics compute_metrics(std::span<const AppTimes> apps);

// {"stp": .., "antt": .., "fairness": .., "ntt": {"<name>": ntt, ...},
//  "apps": [{"name", "ntt", "progress", "shared", "alone"}, ...]}
// A name used by several applications appears in "ntt" as "<name>#2", "#3"...
// from its second occurrence on, so no entry is lost.
nlohmann::json to_json(const WorkloadMetrics& m);

}  // namespace gpumux::multitask
