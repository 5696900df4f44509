#include "gpumux/experiments/plan.h"

#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/experiments/files.h"
#include "gpumux/gpu/gpu.h"
#include "gpumux/multitask/baseline_cache.h"
#include "gpumux/multitask/workload_file.h"
#include "workload.h"

namespace gpumux::experiments {

namespace {

std::vector<std::vector<std::string>> mixes_of(const Sweep& s) {
  std::vector<std::vector<std::string>> mixes = s.mixes;
  const auto& of = s.pairs_of;
  for (size_t i = 0; i < of.size(); ++i)
    for (size_t j = s.pairs_ordered ? 0 : i + 1; j < of.size(); ++j)
      if (i != j) mixes.push_back({of[i], of[j]});
  if (s.random) {
    workloads::Rng rng(s.random->seed);
    for (uint32_t n : s.random->apps)
      for (uint32_t c = 0; c < s.random->count; ++c) {
        std::vector<std::string> mix;
        for (uint32_t a = 0; a < n; ++a) mix.push_back(s.random->from[rng.below(uint32_t(s.random->from.size()))]);
        mixes.push_back(std::move(mix));
      }
  }
  return mixes;
}

class Planner {
 public:
  Planner(const Study& s, const std::filesystem::path& out) : s_(s), out_(out) {}

  // One run: every app of `benchmarks` under `policy` with `config`.
  PlannedRun make(PlannedRun::Kind kind, const std::vector<std::string>& benchmarks, const PolicyChoice& policy,
                  const ConfigChoice& config, uint64_t seed, const std::vector<std::string>& extra_set) {
    PlannedRun r;
    r.kind = kind;
    r.benchmarks = benchmarks;
    r.policy = policy.label;
    r.config = config.label;
    r.seed = seed;
    std::vector<std::string> set = s_.overrides;
    set.insert(set.end(), config.set.begin(), config.set.end());
    set.insert(set.end(), extra_set.begin(), extra_set.end());

    toml::table w;
    w.insert("gpu", s_.gpu);
    toml::array set_array;
    for (const std::string& o : set) set_array.push_back(o);
    w.insert("set", set_array);
    w.insert("policy", policy.options);
    toml::table run;
    bool alone = kind != PlannedRun::Kind::Mix;
    run.insert("until", !alone && s_.run.until == multitask::RunRule::Until::Cycles ? "cycles" : "completions");
    run.insert("completions", alone ? 1 : int64_t(s_.run.completions));
    run.insert("max_cycles", alone ? 0 : int64_t(s_.run.max_cycles));
    run.insert("measure", !alone && s_.run.measure == multitask::RunRule::Measure::All ? "all" : "first");
    w.insert("run", run);
    toml::array apps;
    for (const std::string& b : benchmarks) {
      // Every application of a mix uses the mix's seed, so that each benchmark
      // has one isolated baseline per seed whatever its position.
      apps.push_back(toml::table{{"benchmark", b}, {"size", s_.sweep.size}, {"seed", int64_t(seed)}});
    }
    w.insert("app", apps);
    std::ostringstream text;
    text << w << "\n";
    r.workload_toml = text.str();

    std::string label = kind == PlannedRun::Kind::Mix ? fmt::format("{} {}", r.mix(), policy.label)
                                                      : fmt::format("alone {}", r.mix());
    if (s_.sweep.configs.size() > 1) label = fmt::format("{} {}", label, config.label);
    if (!extra_set.empty()) label = fmt::format("{} {}", label, fmt::join(extra_set, " "));
    r.task.label = fmt::format("{} seed {}", label, seed);
    r.task.wave = alone ? 0 : 1;

    std::string config_dump;
    try {
      multitask::parse_workload(r.workload_toml, r.task.label, s_.dir);
      config_dump = dump_of(set);
    } catch (const std::exception& e) {
      throw LoadError(fmt::format("{}: run '{}': {}", s_.file.string(), r.task.label, e.what()));
    }
    r.key_text = fmt::format("gpumux experiment run v1\nbuild {}\nworkload\n{}\nconfig\n{}", multitask::build_id(),
                             r.workload_toml, config_dump);
    r.task.key = fmt::format("{:016x}", multitask::fnv1a64(r.key_text));
    r.task.dir = out_ / "runs" / r.task.key;
    return r;
  }

 private:
  // The config dump of the study's GPU with `set`, loaded once per distinct set
  // (a study has few config variants and thousands of runs).
  const std::string& dump_of(const std::vector<std::string>& set) {
    std::string id = fmt::format("{}", fmt::join(set, "\n"));
    auto it = dumps_.find(id);
    if (it == dumps_.end()) it = dumps_.emplace(id, gpu::load_config(s_.gpu, set).dump()).first;
    return it->second;
  }

  const Study& s_;
  std::filesystem::path out_;
  std::map<std::string, std::string> dumps_;
};

}  // namespace

std::string PlannedRun::mix() const { return fmt::format("{}", fmt::join(benchmarks, "+")); }

std::vector<std::pair<std::string, std::string>> PlannedRun::axes() const {
  return {{"mix", mix()},          {"apps", std::to_string(benchmarks.size())}, {"policy", policy},
          {"config", config},      {"seed", std::to_string(seed)}};
}

std::vector<PlannedRun> plan_study(const Study& s, const std::filesystem::path& out) {
  Planner p(s, out);
  std::vector<PlannedRun> runs;
  std::vector<std::vector<std::string>> mixes = mixes_of(s.sweep);
  std::set<std::string> benchmarks;
  for (const auto& m : mixes) benchmarks.insert(m.begin(), m.end());
  PolicyChoice fcfs{"fcfs", toml::table{{"name", "fcfs"}}};
  // Wave 0: each benchmark alone, per config and seed (the mixes' baselines).
  for (const ConfigChoice& c : s.sweep.configs)
    for (uint64_t seed : s.sweep.seeds)
      for (const std::string& b : benchmarks) runs.push_back(p.make(PlannedRun::Kind::Alone, {b}, fcfs, c, seed, {}));
  if (s.classify)
    for (const std::string& b : benchmarks)
      runs.push_back(p.make(PlannedRun::Kind::Classify, {b}, fcfs, s.sweep.configs.front(), s.sweep.seeds.front(),
                            s.classify->from));
  // Wave 1: the mixes.
  for (const ConfigChoice& c : s.sweep.configs)
    for (const PolicyChoice& policy : s.sweep.policies)
      for (uint64_t seed : s.sweep.seeds)
        for (const auto& m : mixes) runs.push_back(p.make(PlannedRun::Kind::Mix, m, policy, c, seed, {}));
  // The same run can arise twice (a mix listed twice): keep one.
  std::set<std::string> keys;
  std::vector<PlannedRun> unique;
  for (PlannedRun& r : runs)
    if (keys.insert(r.task.key).second) unique.push_back(std::move(r));
  return unique;
}

bool has_result(const PlannedRun& r) {
  std::error_code ec;
  return std::filesystem::is_regular_file(r.task.dir / "run.json", ec) && read_text(r.task.dir / "key.txt") == r.key_text;
}

std::vector<RunTask> pending_tasks(const std::vector<PlannedRun>& runs) {
  std::vector<RunTask> pending;
  for (const PlannedRun& r : runs) {
    if (has_result(r)) continue;
    std::filesystem::create_directories(r.task.dir);
    std::filesystem::path key = r.task.dir / "key.txt";
    std::error_code ec;
    if (std::filesystem::exists(key, ec) && read_text(key) != r.key_text) {
      // Another run hashed to this folder (64-bit collision) or the folder is
      // corrupt: never mix results.
      throw ApiError(fmt::format("{}: holds a different run; remove it to continue", r.task.dir.string()));
    }
    for (const char* stale : {"run.json", "error.txt"}) std::filesystem::remove(r.task.dir / stale, ec);
    write_text(key, r.key_text);
    write_text(r.task.dir / "workload.toml", r.workload_toml);
    pending.push_back(r.task);
  }
  return pending;
}

}  // namespace gpumux::experiments
