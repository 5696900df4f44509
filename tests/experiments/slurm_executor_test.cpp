// The Slurm executor against a real one-node Slurm cluster on localhost
// (scripts/slurm-local-cluster.sh), running a stand-in for run-one
// (fake-run-one.sh). Suites naming "Slurm" carry the ctest label "slurm".
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "env_var.h"
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "file_test_util.h"
#include "gpumux/core/error.h"
#include "gpumux/experiments/executor.h"
#include "gpumux/experiments/process.h"

namespace gpumux::experiments {
namespace {

namespace fs = std::filesystem;

const fs::path kScript = fs::path(GPUMUX_SOURCE_DIR) / "scripts/slurm-local-cluster.sh";
const fs::path kWorker = fs::path(GPUMUX_SOURCE_DIR) / "tests/experiments/fake-run-one.sh";

using test::read_file;

using test::EnvVar;

// Records what the executor reports, in order.
class RecordingSink : public ProgressSink {
 public:
  void started(const RunTask& t) override { events.push_back("start " + t.key); }
  void finished(const RunTask& t, bool ok) override {
    events.push_back("end " + t.key);
    this->ok[t.key] = ok;
  }
  std::vector<std::string> events;
  std::map<std::string, bool> ok;
};

// A fresh folder with a running cluster in <root>/cluster, stopped afterwards.
class SlurmExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / fmt::format("gpumux-slurm-test-{}", ::getpid());
    fs::remove_all(root_);
    fs::create_directories(root_);
    if (::geteuid() != 0 && run_process({"sudo", "-n", "true"}).exit_code != 0)
      GTEST_SKIP() << "the Slurm daemons need root: run as root or with passwordless sudo";
    cluster_started_ = true;  // a failed start may have left daemons: TearDown stops them
    const std::string cluster = (root_ / "cluster").string();
    // Should this process die without TearDown (a ctest timeout kills it), a
    // watcher left behind stops the cluster.
    run_process({"/bin/sh", "-c",
                 fmt::format("(while kill -0 {} 2>/dev/null; do sleep 1; done; \"$0\" stop \"$1\") >/dev/null 2>&1 &",
                             ::getpid()),
                 kScript.string(), cluster});
    ProcessResult r = run_process({kScript.string(), "start", cluster});
    if (r.exit_code == 77) GTEST_SKIP() << "cannot start a Slurm cluster here: " << r.err;
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(r.out, "export SLURM_CONF=" + (root_ / "cluster/slurm.conf").string() + "\n");
    env_.emplace_back(std::make_unique<EnvVar>("SLURM_CONF", (root_ / "cluster/slurm.conf").c_str()));
    env_.emplace_back(std::make_unique<EnvVar>("GPUMUX_SLURM_POLL_SECONDS", "0.5"));
  }
  void TearDown() override {
    env_.clear();
    if (cluster_started_) {
      ProcessResult r = run_process({kScript.string(), "stop", (root_ / "cluster").string()});
      EXPECT_EQ(r.exit_code, 0) << r.err;
    }
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  // A task of wave `wave` whose stand-in run does `what` ("ok", "fail", "crash").
  RunTask task(const fs::path& out, int n, int wave, const std::string& what) {
    RunTask t{fmt::format("{:016x}", 0xa0 + n), {}, wave, fmt::format("task {} ({})", n, what)};
    t.dir = out / "runs" / t.key;
    fs::create_directories(t.dir);
    std::ofstream(t.dir / "workload.toml") << what << "\n";
    return t;
  }

  // Checks that each task started once, then ended once.
  static void expect_started_then_ended(const RecordingSink& sink, const std::vector<RunTask>& tasks) {
    EXPECT_EQ(sink.events.size(), 2 * tasks.size());
    for (const RunTask& t : tasks) {
      auto s = std::find(sink.events.begin(), sink.events.end(), "start " + t.key);
      auto e = std::find(sink.events.begin(), sink.events.end(), "end " + t.key);
      EXPECT_EQ(std::count(sink.events.begin(), sink.events.end(), "start " + t.key), 1) << t.label;
      EXPECT_EQ(std::count(sink.events.begin(), sink.events.end(), "end " + t.key), 1) << t.label;
      EXPECT_LT(s, e) << t.label;
    }
  }

  // "START END" (ns) recorded by the stand-in.
  static std::pair<long long, long long> times(const RunTask& t) {
    std::istringstream in(read_file(t.dir / "times"));
    long long start = 0, end = 0;
    in >> start >> end;
    return {start, end};
  }

  fs::path root_;
  bool cluster_started_ = false;
  std::vector<std::unique_ptr<EnvVar>> env_;
};

TEST_F(SlurmExecutorTest, TwoWavesWithFailuresThenResubmission) {
  const fs::path out = root_ / "study o'neil $x";  // quoting: the batch script and sbatch's arguments
  std::vector<RunTask> tasks{task(out, 1, 0, "ok"), task(out, 2, 0, "fail"), task(out, 3, 0, "ok"),
                             task(out, 4, 1, "ok"), task(out, 5, 1, "crash"), task(out, 6, 1, "ok")};
  ExecutorOptions o;
  o.out = out;
  o.gpumux = kWorker;
  o.time = "00:05:00";
  o.mem = "50M";
  RecordingSink sink;
  make_executor("slurm")->execute(tasks, o, sink);

  expect_started_then_ended(sink, tasks);
  for (const RunTask& t : tasks) {
    bool should_fail = t.label.find("ok") == std::string::npos;
    ASSERT_EQ(sink.ok.count(t.key), 1u) << t.label;
    EXPECT_EQ(sink.ok.at(t.key), !should_fail) << t.label;
    EXPECT_EQ(fs::exists(t.dir / "run.json"), !should_fail) << t.label;
    EXPECT_EQ(fs::exists(t.dir / "error.txt"), should_fail) << t.label;
    if (!should_fail) {
      // Really run by Slurm as an array task, with the run-one arguments.
      std::string run = read_file(t.dir / "run.json");
      EXPECT_NE(run.find(fmt::format("\"cache\": \"{}\"", (out / "cache").string())), std::string::npos) << run;
      EXPECT_EQ(run.find("\"slurm_task\": \"_\""), std::string::npos) << run;
      EXPECT_NE(read_file(t.dir / "log.txt").find("ran " + t.dir.string()), std::string::npos);
    }
  }
  // The run's own error, and Slurm's account of the run it saw killed.
  EXPECT_EQ(read_file(tasks[1].dir / "error.txt"), "failing on purpose\n");
  std::string killed = read_file(tasks[4].dir / "error.txt");
  EXPECT_NE(killed.find("ended in state FAILED without a result"), std::string::npos) << killed;

  // Wave 1 started only after every wave-0 run (the failed one included) ended.
  long long wave0_end = 0, wave1_start = 0;
  for (const RunTask& t : tasks) {
    auto [start, end] = times(t);
    if (t.wave == 0) wave0_end = std::max(wave0_end, end);
    if (t.wave == 1) wave1_start = wave1_start == 0 ? start : std::min(wave1_start, start);
  }
  EXPECT_LE(wave0_end, wave1_start);
  // And so the reports: every wave-0 end comes before any wave-1 start.
  auto at = [&](const std::string& event) { return std::find(sink.events.begin(), sink.events.end(), event); };
  auto last_wave0_end = std::max({at("end " + tasks[0].key), at("end " + tasks[1].key), at("end " + tasks[2].key)});
  for (size_t i : {3, 4, 5}) EXPECT_GT(at("start " + tasks[i].key), last_wave0_end) << tasks[i].label;

  for (const char* f : {"1-w0-0.tasks", "1-w0-0.sbatch", "1-w1-0.tasks", "1-w1-0.sbatch"})
    EXPECT_TRUE(fs::exists(out / "slurm" / f)) << f;
  EXPECT_NE(read_file(out / "slurm/1-w0-0.tasks").find(tasks[1].key + "\t" + tasks[1].label), std::string::npos);

  // Re-submitting the failed runs, now fixed, completes the study.
  std::vector<RunTask> failed{tasks[1], tasks[4]};
  for (const RunTask& t : failed) std::ofstream(t.dir / "workload.toml") << "ok\n";
  RecordingSink again;
  make_executor("slurm")->execute(failed, o, again);
  expect_started_then_ended(again, failed);
  for (const RunTask& t : failed) {
    EXPECT_TRUE(again.ok.at(t.key)) << t.label;
    EXPECT_TRUE(fs::exists(t.dir / "run.json")) << t.label;
    EXPECT_FALSE(fs::exists(t.dir / "error.txt")) << t.label;
  }
  EXPECT_TRUE(fs::exists(out / "slurm/2-w0-0.sbatch"));
  EXPECT_TRUE(fs::exists(out / "slurm/2-w1-0.sbatch"));
}

TEST_F(SlurmExecutorTest, MaxParallelRunsOneAtATime) {
  const fs::path out = root_ / "throttled";
  std::vector<RunTask> tasks{task(out, 1, 0, "ok"), task(out, 2, 0, "ok"), task(out, 3, 0, "ok")};
  ExecutorOptions o;
  o.out = out;
  o.gpumux = kWorker;
  o.mem = "50M";
  o.max_parallel = 1;
  RecordingSink sink;
  make_executor("slurm")->execute(tasks, o, sink);
  expect_started_then_ended(sink, tasks);
  std::vector<std::pair<long long, long long>> spans;
  for (const RunTask& t : tasks) {
    EXPECT_TRUE(sink.ok.at(t.key)) << t.label;
    spans.push_back(times(t));
  }
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i) EXPECT_LE(spans[i - 1].second, spans[i].first);
}

// The whole command: a tiny study run through Slurm gives byte for byte the
// results of the local executor.
TEST_F(SlurmExecutorTest, TinyStudyMatchesLocalExecutor) {
  const fs::path study = fs::path(GPUMUX_SOURCE_DIR) / "tests/experiments/fixtures/tiny-study";
  auto run = [&](const fs::path& out, std::vector<std::string> executor) {
    std::vector<std::string> argv{GPUMUX_BINARY, "experiment", "run", study.string(), "--scale", "smoke",
                                  "--out", out.string()};
    argv.insert(argv.end(), executor.begin(), executor.end());
    return run_process(argv);
  };
  const fs::path local = root_ / "local", slurm = root_ / "slurm";
  ProcessResult a = run(local, {"--executor", "local"});
  ASSERT_EQ(a.exit_code, 0) << a.out << a.err;
  ProcessResult b = run(slurm, {"--executor", "slurm", "--mem", "1G", "--time", "00:10:00"});
  ASSERT_EQ(b.exit_code, 0) << b.out << b.err;
  EXPECT_TRUE(fs::exists(slurm / "slurm/1-w0-0.sbatch"));  // really through sbatch
  EXPECT_FALSE(read_file(local / "results.csv").empty());
  EXPECT_EQ(read_file(local / "results.csv"), read_file(slurm / "results.csv"));

  // Run again: nothing left to do, nothing submitted.
  b = run(slurm, {"--executor", "slurm"});
  ASSERT_EQ(b.exit_code, 0) << b.out << b.err;
  EXPECT_NE(b.out.find("0 to do"), std::string::npos) << b.out;
  EXPECT_FALSE(fs::exists(slurm / "slurm/2-w0-0.sbatch"));
}

// Without a cluster: what the executor does when sbatch is not there or refuses.
class SbatchErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("gpumux-sbatch-errors-{}", ::getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "bin");
    t_ = RunTask{"00000000000000aa", dir_ / "out/runs/00000000000000aa", 0, "the task"};
    fs::create_directories(t_.dir);
    o_.out = dir_ / "out";
    o_.gpumux = kWorker;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  RunTask t_;
  ExecutorOptions o_;
  RecordingSink sink_;
};

TEST_F(SbatchErrors, MissingSbatchIsAnApiError) {
  EnvVar path("PATH", (dir_ / "bin").c_str());
  try {
    make_executor("slurm")->execute({t_}, o_, sink_);
    FAIL() << "no ApiError";
  } catch (const ApiError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot execute sbatch"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(sink_.events.empty());
}

TEST_F(SbatchErrors, FailingSbatchIsAnApiErrorWithItsMessage) {
  std::ofstream(dir_ / "bin/sbatch") << "#!/bin/sh\necho 'sbatch: error: invalid partition specified' >&2\nexit 1\n";
  fs::permissions(dir_ / "bin/sbatch", fs::perms::owner_all);
  EnvVar path("PATH", (dir_ / "bin").c_str());
  try {
    make_executor("slurm")->execute({t_}, o_, sink_);
    FAIL() << "no ApiError";
  } catch (const ApiError& e) {
    EXPECT_NE(std::string(e.what()).find("invalid partition specified"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpumux::experiments
