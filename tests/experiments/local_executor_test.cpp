// The local executor with a stand-in for `gpumux experiment run-one`: a
// shell script that logs when each task starts and ends, so the test sees
// concurrency, wave order and failure reporting without simulating anything.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gpumux/experiments/executor.h"

namespace gpumux::experiments {
namespace {

namespace fs = std::filesystem;

struct Recorder : ProgressSink {
  std::vector<std::string> begun, ended;
  std::vector<bool> ok;
  void started(const RunTask& t) override { begun.push_back(t.key); }
  void finished(const RunTask& t, bool good) override {
    ended.push_back(t.key);
    ok.push_back(good);
  }
};

TEST(ExperimentLocalExecutor, RunsWavesInOrderAndReportsFailures) {
  fs::path root = fs::path(testing::TempDir()) / "local-executor";
  fs::remove_all(root);
  fs::create_directories(root);
  // argv: <script> experiment run-one <dir> --cache-dir <cache>
  fs::path script = root / "fake-gpumux";
  std::ofstream(script) << "#!/bin/sh\n"
                           "echo \"start $(basename $3)\" >> " << (root / "events").string() << "\n"
                           "sleep 0.2\n"
                           "echo \"end $(basename $3)\" >> " << (root / "events").string() << "\n"
                           "case $3 in *fail*) echo boom; exit 3;; esac\n"
                           "echo '{}' > $3/run.json\n";
  fs::permissions(script, fs::perms::owner_all);
  std::vector<RunTask> tasks;
  for (auto [key, wave] : {std::pair{"a0", 0}, {"b0", 0}, {"c0-fail", 0}, {"d1", 1}, {"e1", 1}}) {
    RunTask t{key, root / "runs" / key, wave, key};
    fs::create_directories(t.dir);
    tasks.push_back(t);
  }
  ExecutorOptions o;
  o.out = root;
  o.gpumux = script;
  o.jobs = 2;
  Recorder r;
  make_executor("local")->execute(tasks, o, r);
  ASSERT_EQ(r.ended.size(), 5u);
  EXPECT_EQ(r.begun.size(), 5u);
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(r.ok[i], r.ended[i] != "c0-fail") << r.ended[i];
  EXPECT_NE(std::ifstream(root / "runs/c0-fail/log.txt").peek(), EOF);  // its output is kept

  // Never more than two at once; no wave-1 task starts before every wave-0 task ended.
  std::ifstream events(root / "events");
  std::string what, key;
  int running = 0, max_running = 0, wave0_left = 3;
  while (events >> what >> key) {
    running += what == "start" ? 1 : -1;
    max_running = std::max(max_running, running);
    if (what == "end" && key.find('0') != std::string::npos) --wave0_left;
    if (what == "start" && key.find('1') != std::string::npos) {
      EXPECT_EQ(wave0_left, 0) << key;
    }
  }
  EXPECT_EQ(max_running, 2);
  fs::remove_all(root);
}

}  // namespace
}  // namespace gpumux::experiments
