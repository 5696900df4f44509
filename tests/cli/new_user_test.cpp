// What a new user meets first, through the binary: --version, presets by name
// from any folder, the installed tool, and options that some modes of a
// command cannot use, which are refused rather than ignored.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"

namespace gpumux {
namespace {

namespace fs = std::filesystem;

using test::run_command;
using test::run_gpumux;

class NewUser : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gpumux-new-user-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(NewUser, VersionPrintsTheVersionCommitAndBuild) {
  std::string out;
  ASSERT_EQ(run_gpumux("--version", out), 0) << out;
  EXPECT_TRUE(out.starts_with("gpumux 0.")) << out;
  EXPECT_NE(out.find("\ncommit "), std::string::npos) << out;
  if (fs::exists(fs::path(GPUMUX_SOURCE_DIR) / ".git")) {  // a tarball build has no commit to name
    EXPECT_EQ(out.find("commit unknown"), std::string::npos) << out;
  }
  EXPECT_NE(out.find("\nbuild src-"), std::string::npos) << out;
}

TEST_F(NewUser, BareCommandPointsToHelp) {
  std::string out;
  EXPECT_NE(run_gpumux("", out), 0) << out;
  EXPECT_NE(out.find("A subcommand is required"), std::string::npos) << out;
  EXPECT_NE(out.find("--help"), std::string::npos) << out;
  ASSERT_EQ(run_gpumux("--help", out), 0) << out;
  EXPECT_NE(out.find("verify"), std::string::npos) << out;
}

// The installed binary needs nothing from the source or build tree: presets
// by name, in -c and in a workload file elsewhere, work from an empty folder.
TEST_F(NewUser, InstalledToolRunsFromAnEmptyFolder) {
  fs::path prefix = dir_ / "prefix", empty = dir_ / "empty";
  fs::create_directories(empty);
  std::string out;
  ASSERT_EQ(run_command(std::string(GPUMUX_CMAKE) + " --install " + GPUMUX_BUILD_DIR + " --prefix " + prefix.string(),
                        out),
            0)
      << out;
  fs::path gpumux = prefix / "bin" / "gpumux";
  ASSERT_TRUE(fs::is_regular_file(gpumux)) << out;
  EXPECT_TRUE(fs::is_regular_file(prefix / "share/gpumux/workloads/user-ptx.toml"));
  EXPECT_TRUE(fs::is_regular_file(prefix / "share/gpumux/scripts/experiment_report.py"));
  std::string in_empty =
      "cd " + empty.string() + " && env -u GPUMUX_CONFIGS -u GPUMUX_SCRIPTS_DIR " + gpumux.string() + " ";

  EXPECT_EQ(run_command(in_empty + "--version", out), 0) << out;
  EXPECT_EQ(run_command(in_empty + "config dump -c k20c", out), 0) << out;
  EXPECT_NE(out.find("num_sms = 13"), std::string::npos) << out;
  EXPECT_EQ(run_command(in_empty + "verify vecadd -c gtx980 --size tiny", out), 0) << out;
  EXPECT_NE(out.find("1 of 1 passed (tiny size, seed 1, timing model on"), std::string::npos) << out;

  fs::path w = dir_ / "elsewhere" / "w.toml";
  fs::create_directories(w.parent_path());
  std::ofstream(w) << "gpu = \"titanv\"\n[[app]]\nbenchmark = \"vecadd\"\n";
  EXPECT_EQ(run_command(in_empty + "run " + w.string() + " --no-baselines", out), 0) << out;
  EXPECT_NE(out.find("on titanv under fcfs"), std::string::npos) << out;

  // A study's report, from the installed script, where Python has its modules
  // (the script falls back to /usr/bin/python3 as this does).
  const std::string check = "-c 'import jinja2, matplotlib'";
  if (run_command("python3 " + check + " || /usr/bin/python3 " + check, out) == 0) {
    fs::path study = dir_ / "study-out";
    fs::copy(fs::path(GPUMUX_SOURCE_DIR) / "tests/experiments/fixtures/report-out", study, fs::copy_options::recursive);
    EXPECT_EQ(run_command(in_empty + "experiment report " + study.string(), out), 0) << out;
    EXPECT_TRUE(fs::is_regular_file(study / "report.html")) << out;
  }
  EXPECT_TRUE(fs::is_empty(empty));
}

TEST_F(NewUser, RunRefusesOptionsItWouldIgnore) {
  std::string out;
  fs::path w = dir_ / "w.toml", json = dir_ / "out.json";
  std::ofstream(w) << "[[app]]\nbenchmark = \"vecadd\"\n";
  struct Case {
    std::string args, error;
  } cases[] = {
      {"--timeline " + json.string(), "--timeline needs a workload: the demo runs twice"},
      {"--policy fcfs", "--policy needs a workload"},
      {w.string() + " --policy smk-even", "--policy is for benchmarks given by name"},
      {w.string() + " -c titanv", "--config is for benchmarks given by name"},
      {w.string() + " --size small", "--size is for benchmarks given by name"},
      {w.string() + " --completions 2", "--completions is for benchmarks given by name"},
      {"vecadd --no-baselines --cache-dir " + dir_.string(), "--cache-dir has no effect with --no-baselines"},
      {"vecadd --no-cache --cache-dir " + dir_.string(), "--cache-dir has no effect with --no-cache"},
      {"vecadd --export-accelsim-trace " + dir_.string() + " --json " + json.string(),
       "--json has no effect with --export-accelsim-trace"},
      {"vecadd --export-accelsim-trace " + dir_.string() + " -c titanv",
       "--config has no effect with --export-accelsim-trace"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(run_gpumux("run " + c.args, out), 2) << c.args << "\n" << out;
    EXPECT_NE(out.find(c.error), std::string::npos) << c.args << "\n" << out;
  }
  EXPECT_FALSE(fs::exists(json));
}

TEST_F(NewUser, VerifyAndBenchRefuseOptionsTheyWouldIgnore) {
  std::string out;
  EXPECT_EQ(run_gpumux("verify vecadd --functional -c titanv", out), 2) << out;
  EXPECT_NE(out.find("--config configures the timing model, which --functional"), std::string::npos) << out;
  EXPECT_EQ(run_gpumux("verify vecadd --export-accelsim-trace " + dir_.string() + " --set sm.warp_scheduler=lrr", out),
            2)
      << out;
  EXPECT_NE(out.find("--set configures the timing model"), std::string::npos) << out;
  EXPECT_EQ(run_gpumux("bench --linear --repeat 3", out), 2) << out;
  EXPECT_NE(out.find("--repeat has no effect with --linear"), std::string::npos) << out;
}

}  // namespace
}  // namespace gpumux
