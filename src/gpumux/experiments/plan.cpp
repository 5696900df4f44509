#include "gpumux/experiments/plan.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/experiments/files.h"
#include "gpumux/gpu/gpu.h"
#include "gpumux/multitask/baseline_cache.h"
#include "gpumux/multitask/sharing_keys.h"
#include "gpumux/multitask/workload_file.h"
#include "workload.h"

namespace gpumux::experiments {

namespace {

// Random mixes of each size, drawn from the seed. With a high priority, the
// high-priority benchmark of the c-th mix of each size is rotation[c % |from|],
// `rotation` being `from` shuffled by the seed, at a drawn position. A mix
// equal to an earlier one (which would be the same run) is drawn again, up
// to 100 times, so that the rotation stays even where the benchmarks allow.
void add_random_mixes(const RandomMixes& r, std::vector<Mix>& mixes) {
  workloads::Rng rng(r.seed);
  std::vector<std::string> rotation = r.from;
  if (r.high_priority)
    for (size_t i = rotation.size(); i > 1; --i) std::swap(rotation[i - 1], rotation[rng.below(uint32_t(i))]);
  auto draw = [&](uint32_t n, uint32_t c) {
    Mix mix;
    for (uint32_t a = r.high_priority ? 1 : 0; a < n; ++a) mix.push_back({r.from[rng.below(uint32_t(r.from.size()))], {}});
    if (r.high_priority) {
      MixApp hp{rotation[c % rotation.size()], toml::table{{"priority", int64_t(*r.high_priority)}}};
      mix.insert(mix.begin() + rng.below(n), std::move(hp));
    }
    return mix;
  };
  std::set<std::string> drawn;
  for (uint32_t n : r.apps)
    for (uint32_t c = 0; c < r.count; ++c) {
      Mix mix = draw(n, c);
      for (int retry = 0; retry < 100 && drawn.count(mix_label(mix)); ++retry) mix = draw(n, c);
      drawn.insert(mix_label(mix));
      mixes.push_back(std::move(mix));
    }
}

// Each mix once per goal of every QoS goal sweep matching its size.
std::vector<Mix> with_qos_goals(const std::vector<QosGoalSweep>& sweeps, const std::vector<Mix>& mixes) {
  std::vector<Mix> out;
  for (const Mix& m : mixes)
    for (const QosGoalSweep& q : sweeps) {
      if (!q.sizes.empty() && std::find(q.sizes.begin(), q.sizes.end(), uint32_t(m.size())) == q.sizes.end()) continue;
      for (double goal : q.goals) {
        Mix g = m;
        for (size_t a = 0; a < g.size() && a < q.apps; ++a)
          if (!g[a].options.contains("qos_goal")) g[a].options.insert("qos_goal", goal);
        out.push_back(std::move(g));
      }
    }
  return out;
}

std::vector<Mix> all_mixes(const Sweep& s) {
  std::vector<Mix> mixes = s.mixes;
  const auto& of = s.pairs_of;
  for (size_t i = 0; i < of.size(); ++i)
    for (size_t j = s.pairs_ordered ? 0 : i + 1; j < of.size(); ++j)
      if (i != j) mixes.push_back({{of[i], {}}, {of[j], {}}});
  if (s.random) add_random_mixes(*s.random, mixes);
  return s.qos_goals.empty() ? mixes : with_qos_goals(s.qos_goals, mixes);
}

class Planner {
 public:
  Planner(const Study& s, const std::filesystem::path& out) : s_(s), out_(out) {}

  // One run: every app of `mix` under `policy` with `config`.
  PlannedRun make(PlannedRun::Kind kind, const Mix& mix, const PolicyChoice& policy, const ConfigChoice& config,
                  uint64_t seed, const std::vector<std::string>& extra_set) {
    PlannedRun r;
    r.kind = kind;
    r.apps = mix;
    r.policy = policy.label;
    r.config = config.label;
    r.seed = seed;
    std::vector<std::string> set = s_.overrides;
    set.insert(set.end(), s_.sweep.set.begin(), s_.sweep.set.end());
    set.insert(set.end(), config.set.begin(), config.set.end());
    set.insert(set.end(), extra_set.begin(), extra_set.end());
    bool alone = kind != PlannedRun::Kind::Mix;
    // An isolated run is the same for every config that differs only in how
    // applications share the GPU: one run, one baseline (sharing_keys.h).
    if (alone) set = multitask::without_sharing_only(set);

    toml::table w;
    w.insert("gpu", s_.gpu);
    toml::array set_array;
    for (const std::string& o : set) set_array.push_back(o);
    w.insert("set", set_array);
    w.insert("policy", policy.options);
    toml::table run;
    const multitask::RunRule& rule = s_.run;
    if (!alone && rule.until == multitask::RunRule::Until::Converged) {
      run.insert("until", "converged");
      run.insert("tolerance", rule.convergence.tolerance);
      run.insert("windows", int64_t(rule.convergence.windows));
    } else {
      run.insert("until", !alone && rule.until == multitask::RunRule::Until::Cycles ? "cycles" : "completions");
      run.insert("completions", alone ? 1 : int64_t(rule.completions));
      run.insert("measure", !alone && rule.measure == multitask::RunRule::Measure::All ? "all" : "first");
      if (!alone && !rule.restart) run.insert("restart", false);
    }
    run.insert("max_cycles", alone ? 0 : int64_t(rule.max_cycles));
    // Isolated runs sample too (figures of a kernel alone against shared,
    // GPU Maestro's figure 3); sampling leaves a run unchanged. Classification
    // runs only need their cycles, and may have fewer SMs than ipc_sm names.
    const bool sampled = kind != PlannedRun::Kind::Classify;
    if (sampled && rule.ipc_window) run.insert("ipc_window", int64_t(rule.ipc_window));
    if (sampled && rule.ipc_sm) run.insert("ipc_sm", int64_t(*rule.ipc_sm));
    w.insert("run", run);
    toml::array apps;
    const ByBenchmark<std::string>& sizes = config.size ? *config.size : s_.sweep.size;
    for (const MixApp& a : mix) {
      // Every application of a mix uses the mix's seed, so that each benchmark
      // has one isolated baseline per seed whatever its position.
      // A trace application replays what was recorded: no input size or seed.
      r.sizes.push_back(a.trace.empty() ? sizes.of(a.benchmark) : "trace");
      toml::table app = a.trace.empty() ? toml::table{{"benchmark", a.benchmark}, {"size", r.sizes.back()},
                                                      {"seed", int64_t(seed)}}
                                        : toml::table{{"trace", a.trace}, {"name", a.benchmark.substr(kTracePrefix.size())}};
      for (const auto& [key, value] : a.options)
        if (policy.priorities || key.str() != "priority") app.insert(key, value);
      if (double gap = s_.sweep.cpu_gaps.of(a.benchmark); gap > 0 && !app.contains("cpu_gap_us"))
        app.insert("cpu_gap_us", gap);
      if (!alone && apps.size() < config.warp_budgets.size())
        app.insert("warp_budget", int64_t(config.warp_budgets[apps.size()]));
      apps.push_back(std::move(app));
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

    std::string config_dump, traces;
    try {
      // A trace application is keyed by its folder's contents too, not only its path.
      for (const multitask::AppSpec& a : multitask::parse_workload(r.workload_toml, r.task.label, s_.dir).apps)
        if (a.trace) traces += a.identity() + "\n";
      config_dump = dump_of(set);
    } catch (const std::exception& e) {
      throw LoadError(fmt::format("{}: run '{}': {}", s_.file.string(), r.task.label, e.what()));
    }
    r.key_text = fmt::format("gpumux experiment run v1\nbuild {}\nworkload\n{}\nconfig\n{}{}", multitask::build_id(),
                             r.workload_toml, config_dump, traces.empty() ? "" : "\ntraces\n" + traces);
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

std::vector<Mix> scale_mixes(const Study& s) { return all_mixes(s.sweep); }

std::vector<Mix> sample_mixes(const Study& s, const std::vector<Mix>& mixes) {
  if (!s.sample) return mixes;
  const MixSample& sample = *s.sample;
  if (sample.mixes < 1 || sample.mixes > mixes.size())
    throw LoadError(fmt::format("{}: --sample {}: the {} scale has {} mixes; a sample takes 1 to {} of them",
                                s.file.string(), sample.mixes, s.scale, mixes.size(), mixes.size()));
  std::vector<size_t> order(mixes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  workloads::Rng rng(sample.seed);
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(uint32_t(i))]);
  std::vector<size_t> taken(order.begin(), order.begin() + sample.mixes);
  std::sort(taken.begin(), taken.end());
  std::vector<Mix> out;
  for (size_t i : taken) out.push_back(mixes[i]);
  return out;
}

std::string sample_text(const MixSample& sample, size_t of) {
  return fmt::format("sampled {} of {} mixes (seed {})", sample.mixes, of, sample.seed);
}

std::vector<std::pair<std::string, std::string>> PlannedRun::axes() const {
  return {{"mix", mix()},     {"apps", std::to_string(apps.size())}, {"policy", policy},
          {"config", config}, {"seed", std::to_string(seed)}};
}

std::vector<PlannedRun> plan_study(const Study& s, const std::filesystem::path& out) {
  Planner p(s, out);
  std::vector<PlannedRun> runs;
  std::vector<Mix> mixes = sample_mixes(s, all_mixes(s.sweep));
  std::map<std::string, MixApp> alone;  // each application as its isolated run has it, by label
  for (const Mix& m : mixes)
    for (const MixApp& a : m) alone.emplace(a.alone().label(), a.alone());
  PolicyChoice fcfs{"fcfs", toml::table{{"name", "fcfs"}}, true, {}};
  // Wave 0: each application alone, per config and seed (the mixes' baselines).
  for (const ConfigChoice& c : s.sweep.configs)
    for (uint64_t seed : s.sweep.seeds)
      for (const auto& [label, a] : alone) runs.push_back(p.make(PlannedRun::Kind::Alone, {a}, fcfs, c, seed, {}));
  if (s.classify)
    for (const auto& [label, a] : alone)
      runs.push_back(p.make(PlannedRun::Kind::Classify, {a}, fcfs, s.sweep.configs.front(), s.sweep.seeds.front(),
                            s.classify->from));
  // Wave 1: the mixes.
  for (const ConfigChoice& c : s.sweep.configs)
    for (const PolicyChoice& policy : s.sweep.policies)
      for (uint64_t seed : s.sweep.seeds)
        for (const Mix& m : mixes)
          if (policy.runs(m.size())) runs.push_back(p.make(PlannedRun::Kind::Mix, m, policy, c, seed, {}));
  // The same run can arise twice with the same axes (a mix listed twice): keep one.
  std::set<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>> seen;
  std::vector<PlannedRun> unique;
  for (PlannedRun& r : runs)
    if (seen.insert({r.task.key, r.axes()}).second) unique.push_back(std::move(r));
  return unique;
}

bool has_result(const PlannedRun& r) {
  std::error_code ec;
  return std::filesystem::is_regular_file(r.task.dir / "run.json", ec) && read_text(r.task.dir / "key.txt") == r.key_text;
}

std::vector<RunTask> pending_tasks(const std::vector<PlannedRun>& runs) {
  std::vector<RunTask> pending;
  std::set<std::string> keys;
  for (const PlannedRun& r : runs) {
    if (!keys.insert(r.task.key).second || has_result(r)) continue;
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
