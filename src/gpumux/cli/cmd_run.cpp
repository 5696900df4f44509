// gpumux run: runs a multiprogrammed workload (several applications sharing
// one simulated GPU under a sharing policy) and reports each application's
// slowdown against running alone, STP, ANTT and fairness.
//
//   gpumux run                                  # built-in demo: spatial-even vs smk-even
//   gpumux run --json demo.json                 # the demo's two runs as a JSON array
//   gpumux run configs/workloads/four-apps.toml --json out.json --timeline run.trace.json
//   gpumux run sgemm stencil --policy smk-even -c gtx980
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpumux/cli/commands.h"
#include "gpumux/core/error.h"
#include "gpumux/multitask/runner.h"
#include "gpumux/runtime/runtime.h"
#include "gpumux/trace/accelsim_writer.h"
#include "workload.h"

namespace gpumux::cli {

namespace {

struct RunOptions {
  std::vector<std::string> inputs;  // a workload file, or benchmark names
  std::string policy = "fcfs";
  std::string gpu = "gtx980";
  std::string size = "tiny";
  uint64_t seed = 1;
  uint32_t completions = 1;
  std::vector<std::string> overrides;
  std::string json_file, timeline_file, cache_dir;
  bool no_baselines = false, no_cache = false;
  std::string accelsim_trace_dir;  // functional run that writes a trace
};

// The built-in demo: one compute-heavy and one memory-heavy benchmark.
const std::vector<std::string> kDemoApps{"binomial", "lbm"};

multitask::WorkloadFile adhoc_workload(const RunOptions& o, const std::vector<std::string>& apps,
                                       const std::string& policy) {
  multitask::WorkloadFile w;
  w.source = "command line";
  w.gpu = o.gpu;
  w.overrides = o.overrides;
  w.policy = policy;
  w.run.completions = o.completions;
  workloads::Size size;
  if (!workloads::parse_size(o.size, size))
    throw ApiError(fmt::format("unknown size '{}' ({})", o.size, workloads::size_names()));
  std::map<std::string, int> uses;
  for (size_t i = 0; i < apps.size(); ++i) {
    multitask::AppSpec a;
    a.benchmark = workloads::find_workload(apps[i]);
    if (!a.benchmark) throw ApiError(fmt::format("unknown benchmark '{}' (see gpumux list)", apps[i]));
    if (!workloads::has_size(*a.benchmark, size)) throw ApiError(workloads::missing_size_message(*a.benchmark, size));
    int n = uses[apps[i]]++;
    a.name = n ? fmt::format("{}-{}", apps[i], n + 1) : apps[i];
    a.size = size;
    a.seed = o.seed + i;
    w.apps.push_back(a);
  }
  return w;
}

multitask::RunOptions runner_options(const RunOptions& o) {
  multitask::RunOptions r;
  r.baselines = !o.no_baselines;
  r.use_cache = !o.no_cache;
  r.cache_dir = o.cache_dir;
  r.progress = isatty(STDERR_FILENO) ? stderr : nullptr;
  r.statistics = !o.json_file.empty();  // only the JSON shows them
  return r;
}

void write_json(const std::string& file, const nlohmann::json& j) {
  std::ofstream f(file);
  f << j.dump(1) << "\n";
  if (!f) throw ApiError(fmt::format("cannot write {}", file));
}

void write_outputs(const RunOptions& o, multitask::RunResult&& r, const stats::Timeline* timeline) {
  if (!o.json_file.empty()) write_json(o.json_file, multitask::to_json(std::move(r)));
  if (timeline) timeline->write(o.timeline_file);
}

// The demo: the same pair under a spatial and an intra-SM policy. --json
// writes both runs, as a JSON array.
void run_demo(const RunOptions& o) {
  const char* policies[] = {"spatial-even", "smk-even"};
  std::vector<multitask::RunResult> results;
  for (const char* p : policies) {
    multitask::WorkloadFile w = adhoc_workload(o, kDemoApps, p);
    results.push_back(multitask::run_workload(w, runner_options(o)));
    fmt::print("{}\n", multitask::format_summary(results.back()));
  }
  fmt::print("{:<14} {:>8} {:>8} {:>9}\n", "policy", "STP", "ANTT", "fairness");
  bool ok = true;
  nlohmann::json all = nlohmann::json::array();
  for (const auto& r : results) {
    ok &= r.all_passed();
    all.push_back(multitask::to_json(r));
    if (r.metrics)
      fmt::print("{:<14} {:>8.3f} {:>8.3f} {:>9.3f}\n", r.policy, r.metrics->stp, r.metrics->antt,
                 r.metrics->fairness);
    else
      fmt::print("{:<14} {:>8} {:>8} {:>9}\n", r.policy, "-", "-", "-");
  }
  if (!o.json_file.empty()) write_json(o.json_file, all);
  if (!ok) exit_code() = 1;
}

// Trace export runs the benchmarks functionally: the instruction stream does
// not depend on timing.
void export_trace(const RunOptions& o) {
  multitask::WorkloadFile w = adhoc_workload(o, o.inputs.empty() ? kDemoApps : o.inputs, "fcfs");
  auto tracer = std::make_unique<trace::AccelsimTraceWriter>(o.accelsim_trace_dir);
  runtime::Device dev;
  dev.backend().set_observer(tracer.get());
  for (size_t i = 0; i < w.apps.size(); ++i) {
    const multitask::AppSpec& a = w.apps[i];
    runtime::Context& ctx = dev.create_context(fmt::format("app{}:{}", i, a.benchmark->name));
    workloads::CheckResult r = workloads::run_workload(*a.benchmark, ctx, a.size, a.seed);
    fmt::print("{:<14} {}  {}\n", a.benchmark->name, r.passed ? "PASS" : "FAIL", r.detail);
    if (!r.passed) exit_code() = 1;
  }
  fmt::print("Accel-Sim trace written to {} (functional execution)\n", o.accelsim_trace_dir);
}

bool is_workload_file(const RunOptions& o) {
  std::error_code ec;
  return o.inputs.size() == 1 && (o.inputs[0].ends_with(".toml") || std::filesystem::is_regular_file(o.inputs[0], ec));
}

// An option accepted must take effect: refuses those the chosen mode ignores.
void refuse_ignored_options(const RunOptions& o, const CLI::App& cmd) {
  auto refuse = [&](std::initializer_list<const char*> names, std::string_view why) {
    for (const char* n : names)
      if (cmd.count(n)) throw ApiError(fmt::format("{} {}", n, why));
  };
  if (!o.accelsim_trace_dir.empty()) {
    refuse({"--policy", "--config", "--set", "--completions", "--json", "--timeline", "--no-baselines", "--no-cache",
            "--cache-dir"},
           "has no effect with --export-accelsim-trace (the benchmarks run functionally, one after the other)");
    return;
  }
  if (o.inputs.empty())
    refuse({"--policy", "--timeline"},
           "needs a workload: the demo runs twice, under spatial-even and smk-even (name benchmarks or give a "
           "workload file)");
  if (is_workload_file(o))
    refuse({"--policy", "--config", "--size", "--seed", "--completions"},
           "is for benchmarks given by name: a workload file sets its own (policy, gpu, size, seed, [run])");
  if (o.no_baselines) refuse({"--no-cache", "--cache-dir"}, "has no effect with --no-baselines (no isolated runs)");
  if (o.no_cache) refuse({"--cache-dir"}, "has no effect with --no-cache");
}

void run(const RunOptions& o, const CLI::App& cmd) {
  refuse_ignored_options(o, cmd);
  if (!o.accelsim_trace_dir.empty()) return export_trace(o);
  if (o.inputs.empty()) return run_demo(o);
  multitask::WorkloadFile w;
  if (is_workload_file(o)) {
    w = multitask::load_workload_file(o.inputs[0]);
    w.overrides.insert(w.overrides.end(), o.overrides.begin(), o.overrides.end());
  } else {
    w = adhoc_workload(o, o.inputs, o.policy);
  }
  std::unique_ptr<stats::Timeline> timeline;
  if (!o.timeline_file.empty()) timeline = std::make_unique<stats::Timeline>();
  multitask::RunOptions ro = runner_options(o);
  ro.timeline = timeline.get();
  multitask::RunResult r = multitask::run_workload(w, ro);
  fmt::print("{}", multitask::format_summary(r));
  if (!r.all_passed()) exit_code() = 1;
  write_outputs(o, std::move(r), timeline.get());
}

}  // namespace

void add_run_commands(CLI::App& app) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Run a multiprogrammed workload (a workload file, or benchmarks as applications); without arguments, "
             "a two-application demo under spatial-even and smk-even");
  cmd->add_option("workload", opts->inputs, "A workload file (.toml), or benchmark names, one application each");
  cmd->add_option("--policy", opts->policy, "Sharing policy for benchmarks given by name")->capture_default_str();
  cmd->add_option("-c,--config", opts->gpu, "GPU preset or config file for benchmarks given by name")
      ->capture_default_str();
  cmd->add_option("--size", opts->size, "Input size for benchmarks given by name: tiny, medium, small, large or paper (the benchmarks that have one)")
      ->capture_default_str();
  cmd->add_option("--seed", opts->seed, "Seed of the input generators (app i uses seed + i)")->capture_default_str();
  cmd->add_option("--completions", opts->completions, "Runs every application must complete (benchmarks by name)")
      ->capture_default_str();
  cmd->add_option("--set", opts->overrides, "Config override path.key=value (repeatable)");
  cmd->add_option("--json", opts->json_file,
                  "Write all statistics and the metrics as JSON to this file (the demo: both runs, as an array)");
  cmd->add_option("--timeline", opts->timeline_file, "Write a Perfetto/Chrome trace-event timeline to this file");
  cmd->add_flag("--no-baselines", opts->no_baselines, "Skip the isolated runs (no NTT/STP/ANTT)");
  cmd->add_flag("--no-cache", opts->no_cache, "Do not read or write cached isolated runs");
  cmd->add_option("--cache-dir", opts->cache_dir, "Directory of cached isolated runs (default: $GPUMUX_CACHE_DIR, "
                                                  "$XDG_CACHE_HOME/gpumux or ~/.cache/gpumux)");
  cmd->add_option("--export-accelsim-trace", opts->accelsim_trace_dir,
                  "Run the benchmarks functionally and write their instruction stream as an Accel-Sim trace "
                  "into this directory");
  cmd->callback([opts, cmd] { run(*opts, *cmd); });
}

}  // namespace gpumux::cli
