// Expands a study (study.h) into independent runs, each a workload file in
// its own folder <out>/runs/<key>, where the key is a hash of everything that
// determines the run's result: its workload file, the effective GPU config
// dump and the gpumux build. A run whose folder already holds run.json for
// the same key text is done, so an interrupted study resumes where it stopped
// and a re-run only does what changed.
//
// Runs come in two waves. Wave 0: every benchmark alone (policy fcfs, from
// cycle 0) for each config and seed of the mixes, which is its own isolated
// baseline (multitask::run_workload caches it), plus the classification runs.
// An isolated run drops the config's sharing-only overrides
// (multitask/sharing_keys.h): configs that differ only in them share it.
// Wave 1: the mixes, whose baselines are then cache hits.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "gpumux/experiments/executor.h"
#include "gpumux/experiments/study.h"

namespace gpumux::experiments {

struct PlannedRun {
  enum class Kind { Alone, Classify, Mix };
  Kind kind = Kind::Mix;
  RunTask task;
  std::string key_text;       // hashed into task.key; kept in <dir>/key.txt
  std::string workload_toml;  // the run's workload file
  Mix apps;
  std::vector<std::string> sizes;  // each application's input size
  std::string policy, config;  // labels
  uint64_t seed = 0;
  // The axis values of its result rows: mix, apps, policy, config, seed.
  std::vector<std::pair<std::string, std::string>> axes() const;
  std::string mix() const { return mix_label(apps); }
};

// Every mix of the study's selected scale, before any sample: M of
// "sampled N of M mixes".
std::vector<Mix> scale_mixes(const Study& s);

// The study's sample of `mixes`: the first N of a permutation of them drawn
// from the sample's seed (Fisher-Yates), kept in their study order. The
// permutation does not depend on N, so a larger N keeps every mix of a
// smaller one (and its runs, which are found by key). LoadError unless
// 1 <= N <= |mixes|.
std::vector<Mix> sample_mixes(const Study& s, const std::vector<Mix>& mixes);

// "sampled N of M mixes (seed K)".
std::string sample_text(const MixSample& sample, size_t of);

// Every run of the study's selected scale (of its sample, if it has one); LoadError (naming the study file
// and the run) if a generated workload or config is invalid. Runs with the
// same key but different axis values (two policy labels giving the same
// workload) are all kept: they share one run folder and result.
std::vector<PlannedRun> plan_study(const Study& s, const std::filesystem::path& out);

// Writes each run's folder (workload.toml, key.txt) if needed and returns
// the runs that have no result yet, one task per key.
std::vector<RunTask> pending_tasks(const std::vector<PlannedRun>& runs);

// True when the run's folder holds a result for exactly its key text.
bool has_result(const PlannedRun& r);

}  // namespace gpumux::experiments
