// `gpumux run` end to end through the binary: the demo, workload files with
// JSON and timeline outputs, and bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"

namespace gpumux::multitask {
namespace {

namespace fs = std::filesystem;

using test::run_gpumux;

class RunCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpumux-run-cli-" + std::string(
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string cache() const { return " --cache-dir " + (dir_ / "cache").string(); }
  fs::path dir_;
};

TEST_F(RunCli, DemoPrintsSpatialAndSmkSideBySide) {
  std::string out;
  fs::path json = dir_ / "demo.json";
  ASSERT_EQ(run_gpumux("run --json " + json.string() + cache(), out), 0) << out;
  std::ifstream jf(json);
  nlohmann::json j = nlohmann::json::parse(jf);  // both runs
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["policy"], "spatial-even");
  EXPECT_EQ(j[1]["policy"], "smk-even");
  EXPECT_TRUE(j[1]["metrics"].contains("stp"));
  auto table = out.find("policy              STP     ANTT  fairness");
  ASSERT_NE(table, std::string::npos) << out;
  EXPECT_NE(out.find("spatial-even", table), std::string::npos) << out;
  EXPECT_NE(out.find("smk-even", table), std::string::npos) << out;
  EXPECT_EQ(out.find("FAIL"), std::string::npos) << out;
}

TEST_F(RunCli, WorkloadFileWritesJsonAndTimeline) {
  std::string out;
  fs::path json = dir_ / "run.json", timeline = dir_ / "run.trace.json";
  ASSERT_EQ(run_gpumux("run " + std::string(GPUMUX_SOURCE_DIR) + "/configs/workloads/four-apps-priorities.toml --json " +
                           json.string() + " --timeline " + timeline.string() + cache(),
                       out),
            0)
      << out;
  std::ifstream jf(json);
  nlohmann::json j = nlohmann::json::parse(jf);
  EXPECT_EQ(j["policy"], "spatial-smart");
  ASSERT_EQ(j["apps"].size(), 4u);
  for (const auto& a : j["apps"]) EXPECT_GE(a["runs"].size(), 2u) << a["name"];
  for (const char* k : {"stp", "antt", "fairness", "ntt"}) EXPECT_TRUE(j["metrics"].contains(k)) << k;
  EXPECT_EQ(j["metrics"]["ntt"].size(), 4u);
  std::ifstream tf(timeline);
  nlohmann::json t = nlohmann::json::parse(tf);
  ASSERT_TRUE(t["traceEvents"].is_array());
  size_t spans = 0, names = 0;
  for (const auto& e : t["traceEvents"]) {
    spans += e["ph"] == "X";
    names += e["ph"] == "M" && e["name"] == "thread_name";
  }
  EXPECT_GT(spans, 100u);
  EXPECT_GT(names, 16u);  // 16 SM tracks and the applications' tracks
}

TEST_F(RunCli, BadInputGivesClearErrors) {
  std::string out;
  EXPECT_EQ(run_gpumux("run nosuchbench" + cache(), out), 2) << out;
  EXPECT_NE(out.find("unknown benchmark 'nosuchbench'"), std::string::npos) << out;
  EXPECT_EQ(run_gpumux("run pc vecadd --policy nosuch" + cache(), out), 2) << out;
  EXPECT_NE(out.find("unknown sharing policy 'nosuch'"), std::string::npos) << out;
  fs::path bad = dir_ / "bad.toml";
  std::ofstream(bad) << "[[app]]\nbenchmark = \"pc\"\nspeed = 3\n";
  EXPECT_EQ(run_gpumux("run " + bad.string() + cache(), out), 2) << out;
  EXPECT_NE(out.find(bad.string() + ":3: app[0].speed: unknown key"), std::string::npos) << out;
  EXPECT_EQ(run_gpumux("run " + (dir_ / "missing.toml").string() + cache(), out), 2) << out;
  EXPECT_NE(out.find("cannot open workload file"), std::string::npos) << out;
}

// The Accel-Sim trace of vecadd at tiny: a complete trace directory.
TEST_F(RunCli, ExportsAnAccelSimTrace) {
  std::string out;
  fs::path dir = dir_ / "trace";
  ASSERT_EQ(run_gpumux("run vecadd --export-accelsim-trace " + dir.string(), out), 0) << out;
  std::ifstream list(dir / "kernelslist.g");
  std::string text((std::istreambuf_iterator<char>(list)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("kernel-1.traceg"), std::string::npos) << text;
  EXPECT_GT(fs::file_size(dir / "kernel-1.traceg"), 1000u);
}

// An even split of a small register file cannot hold one lbm TB.
TEST_F(RunCli, KernelThatFitsNoSmUnderThePartitionIsAnError) {
  std::string out;
  EXPECT_EQ(run_gpumux("run lbm pc --policy smk-even --set sm.registers=4096 --no-baselines", out), 2) << out;
  EXPECT_NE(out.find("lbm"), std::string::npos) << out;
  EXPECT_NE(out.find("smk-even"), std::string::npos) << out;
}

}  // namespace
}  // namespace gpumux::multitask
