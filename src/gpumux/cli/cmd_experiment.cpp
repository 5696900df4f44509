// gpumux experiment: runs a study (experiments/<name>/experiment.toml) as a
// sweep of independent runs on this machine or a Slurm cluster, then checks
// its trends and writes its report. See docs/experiments.md.
//
//   gpumux experiment run experiments/sharing-baselines --scale quick --jobs 2
//   gpumux experiment check out/sharing-baselines-quick
//   gpumux experiment report out/sharing-baselines-quick
//   gpumux experiment run experiments/qos-isca17 --scale paper --sample 20 --jobs 1
//   gpumux experiment publish experiments/qos-isca17 --scale paper
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "gpumux/cli/commands.h"
#include "gpumux/core/error.h"
#include "gpumux/experiments/executor.h"
#include "gpumux/experiments/files.h"
#include "gpumux/experiments/plan.h"
#include "gpumux/experiments/process.h"
#include "gpumux/experiments/publish.h"
#include "gpumux/experiments/results.h"
#include "gpumux/gpu/progress.h"
#include "gpumux/multitask/runner.h"

namespace gpumux::cli {

namespace {

namespace fs = std::filesystem;
using namespace gpumux::experiments;

struct ExperimentOptions {
  std::string study, scale = "quick", executor = "local", out, to;
  bool dry_run = false, strict = false;
  uint32_t sample = 0;  // set (--sample): a seeded sample of this many mixes
  uint64_t sample_seed = 1;
  ExecutorOptions exec;
  std::string cache_dir;  // run-one
};

// A progress bar on a terminal; one line per finished run otherwise (logs, CI).
class ProgressDisplay : public ProgressSink {
 public:
  explicit ProgressDisplay(size_t total) : total_(total), tty_(isatty(STDOUT_FILENO)) {}
  void started(const RunTask& t) override {
    if (tty_ && done_ == 0) draw(t.label, "ETA -");  // something to look at before the first run ends
  }
  void finished(const RunTask& t, bool ok) override {
    ++done_;
    if (!ok) ++failed_;
    double elapsed = std::chrono::duration<double>(clock::now() - start_).count();
    std::string eta = done_ < total_ ? "ETA " + gpu::format_duration(elapsed / double(done_) * double(total_ - done_)) : "done";
    if (tty_) {
      draw(t.label, eta);
      if (done_ == total_) fmt::print("\n");
    } else {
      fmt::print("[{}/{}] {:<6} {} ({})\n", done_, total_, ok ? "ok" : "FAILED", t.label, eta);
    }
    if (!ok) {
      if (tty_) fmt::print("\n");
      fmt::print("  failed: {} (see {})\n", t.label, (t.dir / "log.txt").string());
    }
    std::fflush(stdout);
  }
  size_t failed() const { return failed_; }

 private:
  using clock = std::chrono::steady_clock;
  void draw(const std::string& label, const std::string& eta) {
    int width = 30, filled = int(width * done_ / std::max<size_t>(total_, 1));
    fmt::print("\r[{}{}] {}/{} runs, {} failed, {} {:<40.40}", std::string(size_t(filled), '#'),
               std::string(size_t(width - filled), '.'), done_, total_, failed_, eta, label);
    std::fflush(stdout);
  }
  size_t total_, done_ = 0, failed_ = 0;
  bool tty_;
  clock::time_point start_ = clock::now();
};

// OUT: --out, else out/<study>-<scale> (a sample shares it, so that a larger
// sample reuses the runs of a smaller one).
fs::path out_dir(const ExperimentOptions& o, const Study& s) {
  return fs::absolute(o.out.empty() ? fs::path("out") / fmt::format("{}-{}", s.name, s.scale) : fs::path(o.out));
}

void run_study(ExperimentOptions o) {
  Study s = load_study(o.study, o.scale);
  if (o.sample) s.sample = MixSample{o.sample, o.sample_seed};
  fs::path out = out_dir(o, s);
  std::vector<PlannedRun> runs = plan_study(s, out);
  fs::create_directories(out);
  fs::copy_file(s.file, out / "experiment.toml", fs::copy_options::overwrite_existing);
  std::vector<RunTask> pending = pending_tasks(runs);
  std::string scale = s.sample ? fmt::format("{} scale, {}", s.scale, sample_text(*s.sample, scale_mixes(s).size()))
                               : fmt::format("{} scale", s.scale);
  fmt::print("study {} ({}): {} runs, {} to do, {} executor; results in {}\n", s.name, scale, runs.size(),
             pending.size(), o.executor, out.string());
  if (o.dry_run) {
    for (const RunTask& t : pending) fmt::print("  wave {} {} {}\n", t.wave, t.key, t.label);
    return;
  }
  o.exec.out = out;
  o.exec.gpumux = fs::read_symlink("/proc/self/exe");
  ProgressDisplay progress(pending.size());
  if (!pending.empty()) make_executor(o.executor)->execute(pending, o.exec, progress);
  StudyResults r = collect_results(s, runs);
  r.commit = source_commit();
  write_results(s, r, out);
  fmt::print("{} of {} runs have results; wrote {}\n", r.ok, r.total, (out / "results.csv").string());
  print_trends(out, false);
  if (!r.failed.empty()) {
    for (const auto& f : r.failed)
      fmt::print(stderr, "failed run {} ({}): {}\n", f["label"].get<std::string>(), f["key"].get<std::string>(),
                 f["error"].get<std::string>());
    fmt::print(stderr, "{} runs failed; the same command re-runs only them\n", r.failed.size());
    exit_code() = 1;
  }
}

// Executes one run folder: workload.toml in, run.json (or error.txt) out.
void run_one(const ExperimentOptions& o) {
  fs::path dir = o.study;
  try {
    multitask::WorkloadFile w = multitask::load_workload_file(dir / "workload.toml");
    multitask::RunOptions ro;
    ro.cache_dir = o.cache_dir;
    multitask::RunResult r = multitask::run_workload(w, ro);
    fmt::print("{}", multitask::format_summary(r));
    write_text(dir / "run.json", multitask::to_json(std::move(r)).dump(1) + "\n");
  } catch (const std::exception& e) {
    std::ofstream(dir / "error.txt") << e.what() << "\n";
    throw;
  }
}

// $GPUMUX_SCRIPTS_DIR, else the installed copy beside an installed binary,
// else the source tree's scripts/.
fs::path report_script() {
  const char* env = std::getenv("GPUMUX_SCRIPTS_DIR");
  if (env && *env) return fs::path(env) / "experiment_report.py";
  std::error_code ec;
  fs::path prefix = fs::read_symlink("/proc/self/exe", ec).parent_path().parent_path();
  fs::path installed = prefix / GPUMUX_INSTALL_DATADIR / "gpumux/scripts/experiment_report.py";
  if (!ec && fs::is_regular_file(installed, ec)) return installed;
  return fs::path(GPUMUX_SOURCE_DIR) / "scripts/experiment_report.py";
}

void report(const fs::path& out) {
  fs::path script = report_script();
  ProcessResult p = run_process({"python3", script.string(), out.string()});
  fmt::print("{}", p.out);
  if (p.exit_code != 0)
    throw ApiError(fmt::format("report: {}", p.err.empty() ? "python3 " + script.string() + " failed" : p.err));
}

// Writes the report of the study's results at the scale, then copies them to
// STUDY/results/<scale> (or --to).
void publish(const ExperimentOptions& o) {
  Study s = load_study(o.study, o.scale);
  fs::path out = out_dir(o, s);
  check_results_of(s, out);
  report(out);
  fs::path dest = o.to.empty() ? s.dir / "results" / s.scale : fs::path(o.to);
  std::vector<std::string> files = publish_results(s, out, dest);
  const std::string commit = read_text(dest / "commit");
  fmt::print("published {} files of {} into {}: {}\n", files.size(), out.string(), dest.string(),
             fmt::join(files, ", "));
  fmt::print("{}", commit);
  if (commit.find("-dirty") != std::string::npos || commit.rfind("unknown", 0) == 0)
    fmt::print(stderr, "warning: these results came from sources that are not a commit ({}); re-run from a "
               "committed tree before publishing them\n", commit.substr(0, commit.find('\n')));
}

}  // namespace

void add_experiment_commands(CLI::App& app) {
  auto o = std::make_shared<ExperimentOptions>();
  CLI::App* cmd = app.add_subcommand("experiment", "Run a study (a sweep of runs), check its trends, write its report");
  cmd->require_subcommand(1);

  CLI::App* run = cmd->add_subcommand("run", "Run a study's runs that have no result yet, then gather its results");
  run->add_option("study", o->study, "The study folder (experiments/<name>) or its experiment.toml")->required();
  run->add_option("--scale", o->scale, "The study's scale: smoke (CI), quick (minutes), paper (the paper's), or "
                  "another it defines")->capture_default_str();
  run->add_option("--sample", o->sample, "Run a seeded sample of this many of the scale's mixes (1 to all of them)");
  run->add_option("--sample-seed", o->sample_seed, "The seed that draws --sample's mixes")->capture_default_str();
  run->add_option("--jobs,-j", o->exec.jobs, "local: concurrent runs (default: the number of cores)");
  run->add_option("--executor", o->executor, "Where runs execute: local or slurm")->capture_default_str();
  run->add_option("--out", o->out, "Output folder (default: out/<study>-<scale>)");
  run->add_option("--partition", o->exec.partition, "slurm: partition (default: the cluster's)");
  run->add_option("--time", o->exec.time, "slurm: time limit per run")->capture_default_str();
  run->add_option("--mem", o->exec.mem, "slurm: memory per run")->capture_default_str();
  run->add_option("--max-parallel", o->exec.max_parallel, "slurm: at most this many array tasks at once (0: no limit)");
  run->add_flag("--dry-run", o->dry_run, "List the runs to do, run nothing");
  run->callback([o, run] {
    // An option accepted must take effect: executor options only go with their executor.
    for (const char* slurm_only : {"--partition", "--time", "--mem", "--max-parallel"})
      if (run->count(slurm_only) && o->executor != "slurm")
        throw ApiError(fmt::format("{} is an option of --executor slurm", slurm_only));
    if (run->count("--jobs") && o->executor != "local") throw ApiError("--jobs is an option of --executor local");
    if (run->count("--sample") && o->sample < 1) throw ApiError("--sample: a sample takes at least 1 mix");
    if (run->count("--sample-seed") && !run->count("--sample")) throw ApiError("--sample-seed is an option of --sample");
    run_study(*o);
  });

  CLI::App* check = cmd->add_subcommand("check", "Print every trend of a study's results; exit 0 only if each holds or fails as declared at this scale");
  check->add_option("out", o->study, "The study's output folder")->required();
  check->add_flag("--strict", o->strict, "Known failures (declared in the study) count as failures too");
  check->callback([o] {
    if (!print_trends(o->study, o->strict)) exit_code() = 1;
  });

  CLI::App* rep = cmd->add_subcommand("report", "Write OUT/report.html: figures, paper values, trends, GPU config");
  rep->add_option("out", o->study, "The study's output folder")->required();
  rep->callback([o] { report(o->study); });

  CLI::App* pub = cmd->add_subcommand("publish", "Write the report of a study's results, then copy them with their "
                                      "commit to STUDY/results/<scale>/ (docs/experiments.md, \"Publishing\")");
  pub->add_option("study", o->study, "The study folder (experiments/<name>) or its experiment.toml")->required();
  pub->add_option("--scale", o->scale, "The scale of the results")->capture_default_str();
  pub->add_option("--out", o->out, "The results' folder, as given to run (default: out/<study>-<scale>)");
  pub->add_option("--to", o->to, "Where to publish (default: STUDY/results/<scale>)");
  pub->callback([o] { publish(*o); });

  CLI::App* one = cmd->add_subcommand("run-one", "Execute one run folder (used by the executors)");
  one->add_option("dir", o->study, "The run folder (holds workload.toml)")->required();
  one->add_option("--cache-dir", o->cache_dir, "Directory of cached isolated runs");
  one->callback([o] { run_one(*o); });
}

}  // namespace gpumux::cli
