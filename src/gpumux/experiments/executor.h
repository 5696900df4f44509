// Where a study's runs execute. `gpumux experiment run` expands a study into
// RunTasks (one folder each, holding the run's workload.toml) and hands those
// still without a result to an Executor, chosen by name ("local", "slurm").
// Whatever the executor, a task is executed by the same command,
//
//   <gpumux> experiment run-one <task.dir> --cache-dir <out>/cache
//
// which writes <task.dir>/run.json (atomically: a temporary file renamed) when
// the run completed, or <task.dir>/error.txt and a non-zero exit code when it
// did not. Its standard output and error go to <task.dir>/log.txt. So results
// are identical whichever executor ran them, and a task is done exactly when
// its run.json exists.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gpumux::experiments {

struct RunTask {
  std::string key;            // 16 hex digits: the folder name under <out>/runs
  std::filesystem::path dir;  // <out>/runs/<key>
  int wave = 0;               // a task starts only after every task of a lower wave has ended
  std::string label;          // for progress and failure reports, e.g. "sgemm+lbm smk-even seed 1"
};

struct ExecutorOptions {
  std::filesystem::path out;     // the study's output folder (shared with the cluster)
  std::filesystem::path gpumux;  // the gpumux binary that executes tasks
  unsigned jobs = 0;             // local: concurrent processes (0: the number of cores)
  // slurm: sbatch settings of each array task.
  std::string partition;         // empty: the cluster's default partition
  std::string time = "01:00:00";  // per run
  std::string mem = "4G";         // per run
  unsigned max_parallel = 0;      // array throttle (%N); 0: none
};

// Told of every task's start and end, in order; draws the progress display.
class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  virtual void started(const RunTask& t) = 0;
  virtual void finished(const RunTask& t, bool ok) = 0;
};

class Executor {
 public:
  virtual ~Executor() = default;
  // Executes every task (all lack a run.json), honouring waves, and returns
  // when each has ended, reporting each through `progress`. A task whose
  // command failed is reported with ok = false and left without run.json; the
  // executor goes on with the others. Throws ApiError only when it cannot
  // execute at all (no sbatch, cannot spawn processes).
  virtual void execute(const std::vector<RunTask>& tasks, const ExecutorOptions& o, ProgressSink& progress) = 0;
};

std::vector<std::string> executor_names();
// LoadError listing the known names if there is none called `name`.
std::unique_ptr<Executor> make_executor(std::string_view name);

// The argv of the command that executes `t` (see the top of this file).
std::vector<std::string> run_one_command(const RunTask& t, const ExecutorOptions& o);

}  // namespace gpumux::experiments
