// A study: a sweep of multiprogrammed runs that reproduces a paper's figures,
// described by experiments/<name>/experiment.toml (strict TOML: unknown keys,
// wrong types and bad values are LoadErrors naming file:line and the key).
// docs/experiments.md is the user's reference; in short:
//
//   title = "..."  description = "..."  paper = "..."
//   gpu = "gtx980"                 # preset or config file (relative to the study)
//   set = ["sm.warp_scheduler=gto"]
//   [run]                          # the run rule, as in workload files
//   [sweep]                        # the axes (every scale starts from these)
//   size = "medium"  seeds = [1]  # or size = { default = "medium", lbm = "paper" }
//   set = ["gpu.num_sms=4"]        # in [sweep] or a scale: config overrides of that scale's runs
//   policies = ["fcfs", { label = "quota4", name = "smk-quota", ... },
//               { label = "fcfs-np", name = "fcfs", priorities = false }]   # apps all at priority 0
//   configs = [{ label = "gto", set = [] }]      # + warp_budgets = [1, 4]: QAWS budgets by mix position
//   mixes = [["sgemm", "lbm"], [{ benchmark = "sgemm", priority = 1 }, "lbm"]]
//                                  # and/or: pairs = { of = [...], ordered = true },
//                                  #   random = { count = 10, apps = [2, 4], from = [...], seed = 1,
//                                  #              high_priority = 1 }   # one app per mix at that priority
//   cpu_gap_us = 5.0               # or { default = 1.0, sgemm = 10.0 }: host time before each API call
//   [scale.quick]                  # keys that replace [sweep]'s for this scale
//   [classify]                     # benchmark classes from their speed-up between two configs
//   [[figure]]  [[trend]]          # what the report draws and what `check` asserts
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "gpumux/experiments/table.h"
#include "gpumux/multitask/workload_file.h"

namespace gpumux::experiments {

// One value of the policy axis: a sharing policy with its options, copied
// verbatim into the workload file's [policy] table.
struct PolicyChoice {
  std::string label;    // the value in results ("smk-quota-4"); default: the name
  toml::table options;  // [policy] of the workload: name = ..., and any options
  // false: every application runs at priority 0 (e.g. fcfs as the
  // non-prioritized execution of mixes with a high-priority application);
  // results keep the mix's priorities.
  bool priorities = true;
  // The mix sizes it runs (empty: every mix), so that one label can name a
  // setting per size: entries sharing a label have disjoint sizes (a MIG
  // partitioning with as many instances as the mix has applications).
  std::vector<uint32_t> apps;
  bool runs(size_t mix_size) const {
    return apps.empty() || std::find(apps.begin(), apps.end(), uint32_t(mix_size)) != apps.end();
  }
};

// The benchmark of a trace application is this prefix and its name.
inline constexpr std::string_view kTracePrefix = "trace:";

// One application of a mix: a benchmark and the [[app]] keys the study sets
// for it (multitask::read_app_options: priority, arrival_cycle, qos_goal,
// cpu_gap_us), copied into the run's workload.
struct MixApp {
  std::string benchmark;  // a library benchmark, or "trace:<name>" for a trace application
  toml::table options;
  std::string trace{};    // the trace application's Accel-Sim folder (absolute); empty for a benchmark
  // The benchmark with its options, if any: "sgemm[cpu_gap_us=5;priority=1]".
  std::string label() const;
  int priority() const;  // as the mix gives it (0 when absent)
  // The application as its isolated run has it: only the options that change
  // what it does alone (cpu_gap_us; priority and arrival do not).
  MixApp alone() const;
};
using Mix = std::vector<MixApp>;
// The applications' labels joined by '+' ("sgemm[priority=1]+lbm"): the mix
// as the study defines it, the same under every policy (results' mix column).
std::string mix_label(const Mix& mix);

// A sweep value given per benchmark: one value, or { default = ..., sgemm = ... }.
template <typename T>
struct ByBenchmark {
  T all{};  // benchmarks not listed
  std::map<std::string, T> by_benchmark;
  const T& of(const std::string& benchmark) const {
    auto it = by_benchmark.find(benchmark);
    return it == by_benchmark.end() ? all : it->second;
  }
};
// Host CPU time before each API call (cpu_gap_us of an [[app]]), by benchmark.
using CpuGaps = ByBenchmark<double>;

// One value of the config axis: labelled GPU config overrides.
struct ConfigChoice {
  std::string label = "base";
  std::vector<std::string> set;
  // Set: the input sizes of this variant's runs, in place of the sweep's
  // (an input-size sensitivity axis; its isolated runs use them too).
  std::optional<ByBenchmark<std::string>> size;
  // QAWS: the warp_budget of a mix's i-th application (the runs of mixes
  // only; an isolated run has one kernel, one group); empty: none.
  std::vector<uint32_t> warp_budgets;
};

struct RandomMixes {
  uint32_t count = 0;               // mixes per size
  std::vector<uint32_t> apps;       // mix sizes (applications per mix)
  std::vector<std::string> from;    // benchmarks drawn from (with repetition)
  uint64_t seed = 1;
  // Set: one application of each mix has this priority, the others 0; the
  // high-priority benchmark rotates through `from` (in an order drawn from
  // the seed), so each is the high-priority one equally often (within one).
  std::optional<int> high_priority;
};

// An axis of QoS goals (Wang et al., ISCA'17): every mix of a size in
// `sizes` (empty: any) is run once per goal, its first `apps` applications
// with that qos_goal (an entry setting its own keeps it).
struct QosGoalSweep {
  uint32_t apps = 1;
  std::vector<double> goals;
  std::vector<uint32_t> sizes;
};

// The axes of a sweep; a run is one (mix, policy, config, seed).
struct Sweep {
  // Input size by benchmark: size = "medium", or { default = "medium",
  // lbm = "paper" } (a paper's inputs where the library has them).
  ByBenchmark<std::string> size{"medium", {}};
  std::vector<std::string> set;  // config overrides of every run, after the study's `set`
  std::vector<uint64_t> seeds{1};
  std::vector<PolicyChoice> policies;
  std::vector<ConfigChoice> configs{ConfigChoice{}};
  std::vector<Mix> mixes;                       // explicit
  std::vector<std::string> pairs_of;            // all pairs of these benchmarks
  bool pairs_ordered = true;                    // (a, b) and (b, a) both, a != b
  std::optional<RandomMixes> random;
  CpuGaps cpu_gaps;  // for every application whose mix entry sets no cpu_gap_us
  // Empty: mixes run as listed; else each mix once per goal of every sweep
  // matching its size (a mix no sweep matches is not run).
  std::vector<QosGoalSweep> qos_goals;
  // Set: the run rule's max_cycles at this scale (with until = "cycles").
  std::optional<uint64_t> max_cycles;
  // Set: the run rule's completions (with until = "completions") and measure
  // at this scale, e.g. the thesis's "every process completes at least 3
  // times, statistics averaged over the completed runs".
  std::optional<uint32_t> completions;
  std::optional<multitask::RunRule::Measure> measure;
};

// Benchmark classes from scaling: speed-up = time alone under `from`
// overrides / time alone under the base config, the time being the
// turnaround ("cycles") or the cycles its kernels occupy the GPU
// ("kernel_cycles"); above the threshold the class is `above`, else `below`. Rows get `class` (the app's) and
// `category` (the mix's classes, sorted, joined by "/").
struct Classify {
  std::vector<std::string> from;
  std::string metric = "cycles";
  double threshold = 0;
  std::string above, below;
};

struct FigureSpec {
  std::string name, title, caption;
  std::string kind;  // bars, lines, cdf, scatter
  std::string x, y, series;
  std::string aggregate = "geomean";
  std::vector<Filter> where;
  std::string overall;  // bars/lines: an extra x value aggregating every row ("all"); empty: none
  bool isolated = false;  // rows = "isolated": the isolated runs' rows (isolated.csv), not the mixes'
  struct PaperPoint {
    std::string series, x;
    double y = 0;
  };
  std::vector<PaperPoint> paper;
};

// known_failure = { scales = ["smoke", "quick"], reason = "..." } (or an
// array of such tables): the study expects the trend not to hold at those
// scales, for that reason; `experiment check` fails when it holds there.
struct KnownFailure {
  std::vector<std::string> scales;
  std::string reason;
};

struct TrendSpec {
  std::string name, expr, paper;
  std::vector<KnownFailure> known_failures;
  // The declaration covering `scale`, or null.
  const KnownFailure* known_failure(const std::string& scale) const;
};

// A seeded sample of a scale's mixes (gpumux experiment run --sample N
// --sample-seed K): a fraction of a scale too large to run whole, recorded in
// its results so that it never passes for the whole scale (plan.h).
struct MixSample {
  uint32_t mixes = 0;
  uint64_t seed = 1;
};

struct Study {
  std::filesystem::path dir, file;
  std::string name, title, description, paper;
  std::string gpu = "gtx980";
  std::vector<std::string> overrides;
  multitask::RunRule run;
  Sweep sweep;                         // of the selected scale
  std::vector<std::string> scales;     // names of the [scale.*] tables
  std::string scale;                   // the selected one
  std::optional<MixSample> sample;     // set: only these mixes of the scale run
  std::optional<Classify> classify;
  std::vector<FigureSpec> figures;
  std::vector<TrendSpec> trends;
  std::vector<std::string> stats;      // statistics summed per app into results ("stat.<name>" columns)
};

// Loads DIR/experiment.toml (or the file itself) with [scale.<scale>]
// applied; LoadError for a scale the study does not define.
Study load_study(const std::filesystem::path& dir_or_file, const std::string& scale);
Study parse_study(std::string_view text, const std::string& name, const std::filesystem::path& dir,
                  const std::string& scale);

}  // namespace gpumux::experiments
