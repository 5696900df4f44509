// The Slurm executor ("slurm"): a study's tasks as Slurm job arrays. Protocol:
//
// Submission. The tasks are grouped by wave, and each wave is cut into job
// arrays of at most kMaxArray tasks (Slurm's default MaxArraySize is 1001).
// Each array gets, under <out>/slurm/, with <s> numbering the executions in
// this output folder (so arrays still queued from an interrupted execution
// keep their own files):
//   <s>-w<wave>-<part>.tasks   array index, key, label, folder: for people
//   <s>-w<wave>-<part>.sbatch  the batch script: array index -> the task's
//                              run_one_command, output to <task.dir>/log.txt
//   <s>-w<wave>-<part>.out     what the batch script itself prints (normally nothing)
// Every array is submitted at once with `sbatch --parsable`; the arrays of a
// wave depend (afterany) on all arrays of the previous wave, so a wave starts
// only when the previous one has ended, whatever its outcome, and the order
// holds even if gpumux stops waiting. With max_parallel, the arrays of a wave
// also run one after the other so the throttle holds across them.
//
// Progress. `squeue --user=<uid> --array --states=all` is read every
// GPUMUX_SLURM_POLL_SECONDS (default 5): a task has started once it left
// PENDING and has ended once it is in a final state or gone from the queue.
// It succeeded exactly when its run.json exists. A failed task that left no
// error.txt (Slurm killed it: time limit, memory, cancellation, node failure)
// gets one naming the array task and the Slurm state it was last seen in, or
// sacct's when it left the queue unseen and the cluster has accounting.
// Re-submitting failed tasks is executing them again: only those without
// run.json reach an executor.
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>
#include <thread>

#include "gpumux/core/error.h"
#include "gpumux/experiments/executor.h"
#include "gpumux/experiments/process.h"

namespace gpumux::experiments {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr size_t kMaxArray = 1000;
// A shared file system may show run.json on this host a little after the node
// wrote it; a task Slurm saw complete gets this long to show it.
constexpr auto kResultGrace = std::chrono::seconds(30);
// squeue failing this long means the controller is gone, not restarting.
constexpr auto kQueueOutage = std::chrono::minutes(10);

std::string sh_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string join(const std::vector<std::string>& v, char sep) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : std::string(1, sep)) + x;
  return s;
}

std::chrono::milliseconds poll_interval() {
  double s = 5;
  if (const char* e = std::getenv("GPUMUX_SLURM_POLL_SECONDS")) s = std::atof(e);
  return std::chrono::milliseconds(static_cast<long>(std::clamp(s, 0.1, 60.0) * 1000));
}

bool is_final(const std::string& state) {
  static const char* const kFinal[] = {"COMPLETED",     "FAILED",    "CANCELLED", "TIMEOUT",  "OUT_OF_MEMORY",
                                       "NODE_FAIL",     "PREEMPTED", "BOOT_FAIL", "DEADLINE"};
  return std::find(std::begin(kFinal), std::end(kFinal), state) != std::end(kFinal);
}

// 1 + the largest execution number <s> of the files in `dir`.
unsigned next_execution(const fs::path& dir) {
  unsigned last = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    unsigned s = 0;
    auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), s);
    if (ec == std::errc() && end != name.data() && *end == '-') last = std::max(last, s);
  }
  return last + 1;
}

// One task as the executor follows it.
struct Tracked {
  const RunTask* task = nullptr;
  std::string job;    // "<array job id>_<index>", for messages
  std::string state;  // last Slurm state seen; empty once it left the queue
  bool started = false, ended = false, reported = false;
  Clock::time_point ended_at;
};

class SlurmExecutor : public Executor {
 public:
  void execute(const std::vector<RunTask>& tasks, const ExecutorOptions& o, ProgressSink& progress) override;

 private:
  // Writes the array's files and submits it; returns its job id.
  std::string submit(const std::vector<RunTask>& array, const std::string& stem, const std::vector<std::string>& after);
  void poll_until_done(ProgressSink& progress);
  // Reports an ended task, unless its result may still be on its way.
  void report(Tracked& t, ProgressSink& progress);

  ExecutorOptions o_;  // with absolute paths: the batch scripts run elsewhere
  fs::path dir_;       // <out>/slurm
  std::vector<std::string> submitted_;
  std::vector<Tracked> tracked_;
  std::map<std::string, size_t> by_job_;  // "<array job id>_<index>" -> tracked_ index
};

std::string SlurmExecutor::submit(const std::vector<RunTask>& array, const std::string& stem,
                                  const std::vector<std::string>& after) {
  fs::path base = dir_ / stem;
  std::ofstream list(base.string() + ".tasks"), script(base.string() + ".sbatch");
  script << "#!/bin/sh\n# gpumux: array index -> task, as listed in " << stem << ".tasks\n"
         << "case \"$SLURM_ARRAY_TASK_ID\" in\n";
  for (size_t i = 0; i < array.size(); ++i) {
    const RunTask& t = array[i];
    list << i << '\t' << t.key << '\t' << t.label << '\t' << t.dir.string() << '\n';
    std::vector<std::string> argv;
    for (const std::string& a : run_one_command(t, o_)) argv.push_back(sh_quote(a));
    script << i << ") dir=" << sh_quote(t.dir.string()) << "; set -- " << join(argv, ' ') << " ;;\n";
  }
  script << "*) echo \"gpumux: no task for array index $SLURM_ARRAY_TASK_ID\" >&2; exit 2 ;;\nesac\n"
         << "exec \"$@\" >\"$dir/log.txt\" 2>&1\n";
  if (!list.flush() || !script.flush()) throw ApiError("cannot write the Slurm batch files " + base.string() + ".*");

  std::string name = o_.out.filename().string();
  std::vector<std::string> argv{"sbatch", "--parsable", "--job-name=gpumux-" + name, "--chdir=" + o_.out.string(),
                                "--output=" + base.string() + ".out", "--open-mode=append"};
  if (!o_.time.empty()) argv.push_back("--time=" + o_.time);  // else the partition's default
  if (!o_.mem.empty()) argv.push_back("--mem=" + o_.mem);
  std::string range = "--array=0-" + std::to_string(array.size() - 1);
  if (o_.max_parallel > 0) range += "%" + std::to_string(o_.max_parallel);
  argv.push_back(range);
  if (!o_.partition.empty()) argv.push_back("--partition=" + o_.partition);
  if (!after.empty()) argv.push_back("--dependency=afterany:" + join(after, ':'));
  argv.push_back(base.string() + ".sbatch");

  ProcessResult r = run_process(argv);
  std::string id = r.out.substr(0, r.out.find_first_of(";\n"));  // "<id>[;<cluster>]"
  if (r.exit_code != 0 || id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
    // Arrays already queued would run without anyone waiting for them.
    if (!submitted_.empty()) {
      std::vector<std::string> cancel{"scancel"};
      cancel.insert(cancel.end(), submitted_.begin(), submitted_.end());
      run_process(cancel);
    }
    throw ApiError("sbatch failed (exit code " + std::to_string(r.exit_code) + "): " + r.err + r.out);
  }
  submitted_.push_back(id);
  return id;
}

void SlurmExecutor::execute(const std::vector<RunTask>& tasks, const ExecutorOptions& o, ProgressSink& progress) {
  if (tasks.empty()) return;
  o_ = o;
  o_.out = fs::absolute(o.out).lexically_normal();
  if (!o_.out.has_filename()) o_.out = o_.out.parent_path();
  if (o.gpumux.has_parent_path()) o_.gpumux = fs::absolute(o.gpumux);  // else a name looked up in PATH
  dir_ = o_.out / "slurm";
  fs::create_directories(dir_);
  submitted_.clear();
  tracked_.clear();
  by_job_.clear();

  // Task indices in wave order; the batch scripts get absolute folders.
  std::vector<size_t> order(tasks.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return tasks[a].wave < tasks[b].wave; });
  for (const RunTask& t : tasks) fs::remove(t.dir / "error.txt");  // from an earlier attempt: it would mislead
  const std::string prefix = std::to_string(next_execution(dir_)) + "-w";
  std::vector<std::string> previous_wave;
  for (size_t begin = 0; begin < order.size();) {
    const int wave = tasks[order[begin]].wave;
    size_t end = begin;
    while (end < order.size() && tasks[order[end]].wave == wave) ++end;
    std::vector<std::string> this_wave;
    for (size_t from = begin; from < end; from += kMaxArray) {
      size_t to = std::min(end, from + kMaxArray);
      std::vector<std::string> after = previous_wave;
      if (o_.max_parallel > 0 && !this_wave.empty()) after.push_back(this_wave.back());
      std::vector<RunTask> array;
      for (size_t i = from; i < to; ++i) {
        array.push_back(tasks[order[i]]);
        array.back().dir = fs::absolute(array.back().dir);
      }
      std::string stem = prefix + std::to_string(wave) + "-" + std::to_string(this_wave.size());
      std::string id = submit(array, stem, after);
      this_wave.push_back(id);
      for (size_t i = from; i < to; ++i) {
        std::string job = id + "_" + std::to_string(i - from);
        by_job_[job] = tracked_.size();
        Tracked& t = tracked_.emplace_back();
        t.task = &tasks[order[i]];
        t.job = job;
      }
    }
    previous_wave = this_wave;
    begin = end;
  }
  poll_until_done(progress);
}

void SlurmExecutor::poll_until_done(ProgressSink& progress) {
  const auto interval = poll_interval();
  Clock::time_point answered = Clock::now();  // when squeue last worked
  auto open = [&] { return std::any_of(tracked_.begin(), tracked_.end(), [](const Tracked& t) { return !t.reported; }); };
  while (open()) {
    std::this_thread::sleep_for(interval);
    ProcessResult q = run_process({"squeue", "--user=" + std::to_string(::getuid()), "--noheader", "--array",
                                   "--states=all", "--format=%F_%K|%T"});
    if (q.exit_code != 0) {
      if (q.exit_code == 127 || Clock::now() - answered > kQueueOutage)
        throw ApiError("squeue failed (exit code " + std::to_string(q.exit_code) + "): " + q.err);
      continue;
    }
    answered = Clock::now();
    std::vector<bool> listed(tracked_.size(), false);
    std::istringstream lines(q.out);
    for (std::string line; std::getline(lines, line);) {
      size_t bar = line.find('|');
      auto it = by_job_.find(line.substr(0, bar));
      if (bar == std::string::npos || it == by_job_.end()) continue;
      listed[it->second] = true;
      tracked_[it->second].state = line.substr(bar + 1);
    }
    for (size_t i = 0; i < tracked_.size(); ++i) {
      Tracked& t = tracked_[i];
      if (t.ended) {
        if (!t.reported) report(t, progress);
        continue;
      }
      if (!listed[i]) t.state.clear();
      if (!listed[i] || is_final(t.state)) {
        t.ended = true;
        t.ended_at = Clock::now();
        report(t, progress);
      } else if (!t.started && t.state != "PENDING") {
        t.started = true;
        progress.started(*t.task);
      }
    }
  }
}

void SlurmExecutor::report(Tracked& t, ProgressSink& progress) {
  const fs::path dir = fs::absolute(t.task->dir);
  bool ok = fs::exists(dir / "run.json"), explained = fs::exists(dir / "error.txt");
  bool may_have_succeeded = t.state.empty() || t.state == "COMPLETED";
  if (!ok && !explained && may_have_succeeded && Clock::now() - t.ended_at < kResultGrace) return;
  if (!ok && !explained) {
    std::string state = t.state;
    if (state.empty()) {  // it left the queue unseen: accounting may know how it ended
      ProcessResult a = run_process({"sacct", "--noheader", "--parsable2", "--allocations", "--jobs=" + t.job,
                                     "--format=State"});
      state = a.exit_code == 0 && !a.out.empty() ? a.out.substr(0, a.out.find('\n')) : "unknown (gone from squeue)";
    }
    std::ofstream(dir / "error.txt") << "Slurm array task " << t.job << " ended in state " << state
                                     << " without a result; see log.txt\n";
  }
  if (!t.started) progress.started(*t.task);
  t.started = t.reported = true;
  progress.finished(*t.task, ok);
}

}  // namespace

std::unique_ptr<Executor> make_slurm_executor() { return std::make_unique<SlurmExecutor>(); }

}  // namespace gpumux::experiments
