// A study's results, gathered from its runs' run.json files and written into
// the output folder:
//
//   OUT/results.csv    one row per application per mix run: every axis value
//                      (mix, apps, policy, config, seed, size, category), the
//                      application (benchmark, class, its priority in the mix)
//                      and every metric (ntt, progress, shared_cycles,
//                      alone_cycles, warp_insts, passed, thread_ipc; QoS:
//                      qos_goal, qos_ratio, qos_reached; per run: stp, antt,
//                      fairness, cycles, qos_apps, qos_case, non_qos_ipc,
//                      run_preempt_bytes, run_preempt_cycles; on kernel CPI:
//                      shared_cpi, alone_cpi, cpi_ntt, cpi_progress, per run
//                      cpi_stp, cpi_antt, cpi_fairness; stat.<name> for the
//                      study's `stats`)
//   OUT/isolated.csv   the same for the runs of each benchmark alone
//   OUT/figures.json   each figure's data, aggregated, ready to draw
//   OUT/trends.json    each trend: expression, paper's value, measured sides,
//                      the 95% bootstrap interval of lhs - rhs and its units,
//                      holds, the known failure declared at this scale, the
//                      sample of mixes it was measured on (null: all)
//   OUT/study.json     description, scale, sample, GPU config, run counts,
//                      failed runs, classes, gpumux version, commit
//
// Host seconds are left out of the tables, so the same study gives the same
// results.csv on any machine and executor.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpumux/experiments/plan.h"
#include "gpumux/experiments/study.h"
#include "gpumux/experiments/table.h"

namespace gpumux::experiments {

struct StudyResults {
  Table mixes, isolated;
  nlohmann::json classes = nlohmann::json::array();  // [{"benchmark", "class", "speedup"}]
  nlohmann::json figures = nlohmann::json::array();
  nlohmann::json trends = nlohmann::json::array();
  nlohmann::json failed = nlohmann::json::array();   // [{"key", "label", "error"}]
  // With a sample (--sample): {"mixes": N, "of": M, "seed": K, "text":
  // "sampled N of M mixes (seed K)"}, in study.json and every trend; else null.
  nlohmann::json sample;
  std::string commit = "unknown";  // git describe of the binary's sources (gpumux --version)
  size_t total = 0, ok = 0;
};

StudyResults collect_results(const Study& s, const std::vector<PlannedRun>& runs);
void write_results(const Study& s, const StudyResults& r, const std::filesystem::path& out);

// Prints the trend table of OUT/trends.json; true when every trend holds or
// is a known failure at the results' scale, and no trend declared a known
// failure there holds (a stale declaration). With `strict`, known failures
// count as failures too.
bool print_trends(const std::filesystem::path& out, bool strict);

}  // namespace gpumux::experiments
