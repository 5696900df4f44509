// gpumux experiment run/check end to end on the tiny test study: real runs
// through the local executor, resumption, results and trend checks.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_util.h"

namespace gpumux::test {
namespace {

namespace fs = std::filesystem;

size_t lines(const std::string& s) { return size_t(std::count(s.begin(), s.end(), '\n')); }

// A results.csv read back: its column names and rows of cells (no quoted commas in these tests).
struct Csv {
  std::vector<std::string> names;
  std::vector<std::vector<std::string>> rows;
  explicit Csv(const std::string& text) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      std::vector<std::string> cells;
      std::istringstream cs(line);
      for (std::string c; std::getline(cs, c, ',');) cells.push_back(c);
      if (names.empty())
        names = std::move(cells);
      else
        rows.push_back(std::move(cells));
    }
  }
  // The cell of column `name` in `row` as a number; 0 with a failure if there is no such cell.
  double number(const std::vector<std::string>& row, const std::string& name) const {
    auto it = std::find(names.begin(), names.end(), name);
    const size_t i = size_t(it - names.begin());
    EXPECT_TRUE(it != names.end() && i < row.size()) << name;
    return it != names.end() && i < row.size() ? std::stod(row[i]) : 0.0;
  }
};

const fs::path kTinyStudy = fs::path(GPUMUX_SOURCE_DIR) / "tests/experiments/fixtures/tiny-study";

TEST(ExperimentCli, RunsResumesAndChecksTheTinyStudy) {
  fs::path out = fs::path(testing::TempDir()) / "experiment-cli-tiny";
  fs::remove_all(out);
  std::string log;
  std::string run = "experiment run " + kTinyStudy.string() + " --scale smoke --jobs 2 --out " + out.string();
  ASSERT_EQ(run_gpumux(run, log), 0) << log;
  EXPECT_NE(log.find("6 runs, 6 to do"), std::string::npos) << log;
  EXPECT_NE(log.find("[6/6] ok"), std::string::npos) << log;  // not a terminal: one line per run
  std::string csv = slurp(out / "results.csv");
  EXPECT_EQ(lines(csv), 1u + 2 * 2) << csv;  // header + (1 pair x 2 policies) x 2 apps
  EXPECT_EQ(csv.rfind("key,mix,apps,policy,config,seed,size,mix_benchmarks,category,app_index,app,benchmark,class,priority,passed", 0), 0u);
  EXPECT_EQ(lines(slurp(out / "isolated.csv")), 1u + 4);
  {  // times in whole cycles are integers, never 3.38852e+06
    std::istringstream rows(csv);
    std::string row;
    std::vector<size_t> columns;
    for (size_t r = 0; std::getline(rows, row); ++r) {
      std::vector<std::string> cells;
      std::istringstream cs(row);
      for (std::string c; std::getline(cs, c, ',');) cells.push_back(c);
      for (size_t i = 0; r == 0 && i < cells.size(); ++i)
        if (cells[i] == "shared_cycles" || cells[i] == "alone_cycles") columns.push_back(i);
      for (size_t i : columns) {
        if (r == 0) continue;
        EXPECT_EQ(cells.at(i).find_first_not_of("0123456789"), std::string::npos) << row;
      }
    }
    EXPECT_EQ(columns.size(), 2u);
  }
  EXPECT_NE(slurp(out / "study.json").find("\"speedup\""), std::string::npos);
  EXPECT_NE(slurp(out / "figures.json").find("\"ntt-cdf\""), std::string::npos);
  {
    const Csv table(csv);
    ASSERT_EQ(table.rows.size(), 4u);
    for (const auto& row : table.rows) {
      // The metrics on kernel CPI: a value in every row.
      EXPECT_GT(table.number(row, "cpi_stp"), 0.0);
      EXPECT_GT(table.number(row, "cpi_ntt"), 0.0);
      // Every completed run's turnaround: its tail, at least the first (measured) run, over the isolated time.
      EXPECT_GE(table.number(row, "runs"), 1.0);
      EXPECT_GE(table.number(row, "turnaround_p99"), table.number(row, "shared_cycles"));  // under 100 runs: the longest
      EXPECT_NEAR(table.number(row, "p99_ntt"),
                  table.number(row, "turnaround_p99") / table.number(row, "alone_cycles"), 1e-4);
    }
  }
  EXPECT_NE(slurp(out / "figures.json").find("\"cpi-stp\""), std::string::npos);
  for (const char* f : {"experiment.toml", "trends.json", "cache"}) EXPECT_TRUE(fs::exists(out / f)) << f;

  // Nothing to do a second time; a lost result is re-run and gives the same table.
  ASSERT_EQ(run_gpumux(run, log), 0) << log;
  EXPECT_NE(log.find("6 runs, 0 to do"), std::string::npos) << log;
  for (const auto& e : fs::directory_iterator(out / "runs"))
    if (slurp(e.path() / "workload.toml").find("smk-quota") != std::string::npos) fs::remove(e.path() / "run.json");
  ASSERT_EQ(run_gpumux(run, log), 0) << log;
  EXPECT_NE(log.find("6 runs, 1 to do"), std::string::npos) << log;
  EXPECT_EQ(slurp(out / "results.csv"), csv);

  ASSERT_EQ(run_gpumux("experiment check " + out.string(), log), 0) << log;
  EXPECT_NE(log.find("2 of 2 trends hold"), std::string::npos) << log;
  fs::remove_all(out);
}

// A high-priority application with host CPU time, with and without its
// priority: rows carry the mix's priority under both policies, the same mix
// label, and trends compare the application across policies.
TEST(ExperimentCli, PrioritiesAndCpuGapsReachTheResults) {
  fs::path out = fs::path(testing::TempDir()) / "experiment-cli-priorities";
  fs::remove_all(out);
  std::string log;
  fs::path study = fs::path(GPUMUX_SOURCE_DIR) / "tests/experiments/fixtures/priority-study";
  ASSERT_EQ(run_gpumux("experiment run " + study.string() + " --scale quick --jobs 2 --out " + out.string(), log), 0)
      << log;
  EXPECT_NE(log.find("4 runs, 4 to do"), std::string::npos) << log;  // pc with its CPU gap and vecadd alone, 2 mixes
  std::string csv = slurp(out / "results.csv");
  EXPECT_EQ(lines(csv), 1u + 2 * 3) << csv;
  EXPECT_EQ(csv.rfind("key,mix,apps,policy,config,seed,size,mix_benchmarks,app_index,app,benchmark,priority,passed", 0), 0u) << csv;
  for (const char* policy : {"fcfs", "prio"}) {
    EXPECT_NE(csv.find(fmt::format(",pc[cpu_gap_us=2;priority=1]+vecadd+vecadd,3,{},base,1,tiny,2,0,pc,pc,1,1,", policy)),
              std::string::npos) << csv;
    EXPECT_NE(csv.find(fmt::format(",3,{},base,1,tiny,2,2,vecadd-2,vecadd,0,1,", policy)), std::string::npos) << csv;
  }
  EXPECT_NE(slurp(out / "isolated.csv").find(",pc[cpu_gap_us=2],1,fcfs,"), std::string::npos);
  ASSERT_EQ(run_gpumux("experiment check " + out.string(), log), 0) << log;
  EXPECT_NE(log.find("2 of 2 trends hold"), std::string::npos) << log;
  fs::remove_all(out);
}

// A trace application (mixes' { trace = "DIR" }) runs alone for its baseline
// and in every mix, its results rows name it "trace:<name>" with no input size.
TEST(ExperimentCli, TraceApplicationsRunInStudies) {
  fs::path out = fs::path(testing::TempDir()) / "experiment-cli-trace";
  fs::remove_all(out);
  std::string log;
  fs::path study = fs::path(GPUMUX_SOURCE_DIR) / "tests/experiments/fixtures/trace-study";
  ASSERT_EQ(run_gpumux("experiment run " + study.string() + " --scale quick --jobs 2 --out " + out.string(), log), 0)
      << log;
  EXPECT_NE(log.find("5 runs, 5 to do"), std::string::npos) << log;  // 2 alone, 3 policies
  Csv csv(slurp(out / "results.csv"));
  size_t trace_rows = 0;
  const size_t benchmark = size_t(std::find(csv.names.begin(), csv.names.end(), "benchmark") - csv.names.begin());
  const size_t size = size_t(std::find(csv.names.begin(), csv.names.end(), "size") - csv.names.begin());
  const size_t passed = size_t(std::find(csv.names.begin(), csv.names.end(), "passed") - csv.names.begin());
  for (const auto& row : csv.rows) {
    if (row.at(benchmark) != "trace:vx") continue;
    ++trace_rows;
    EXPECT_EQ(row.at(size), "trace");
    EXPECT_EQ(row.at(passed), "1");
    EXPECT_GE(csv.number(row, "ntt"), 1.0);
  }
  EXPECT_EQ(trace_rows, 3u);
  EXPECT_NE(slurp(out / "isolated.csv").find("trace:vx"), std::string::npos);
  ASSERT_EQ(run_gpumux("experiment check " + out.string(), log), 0) << log;
  EXPECT_NE(log.find("2 of 2 trends hold"), std::string::npos) << log;
  fs::remove_all(out);
}

// [run] ipc_window reaches the mix and isolated runs: each app's IPC per
// window is a list cell, and a lines figure with x = "window" draws it over
// the window index, from the mixes' rows or (rows = "isolated") the
// isolated runs'.
TEST(ExperimentCli, IpcSeriesReachTheResultsAndALinesFigureOverWindows) {
  fs::path out = fs::path(testing::TempDir()) / "experiment-cli-windows";
  fs::remove_all(out);
  std::string log;
  fs::path study = fs::path(GPUMUX_SOURCE_DIR) / "tests/experiments/fixtures/windows-study";
  ASSERT_EQ(run_gpumux("experiment run " + study.string() + " --scale quick --jobs 2 --out " + out.string(), log), 0)
      << log;
  nlohmann::json figures = nlohmann::json::parse(slurp(out / "figures.json"));
  ASSERT_EQ(figures.size(), 2u);
  for (const nlohmann::json& fig : figures) {
    const nlohmann::json& series = fig["series"];
    ASSERT_EQ(series.size(), 2u) << figures.dump();
    for (const nlohmann::json& s : series) {
      const nlohmann::json& points = s["points"];
      ASSERT_GT(points.size(), 2u) << s.dump();  // several windows of 5000 cycles
      double positive = 0;
      for (size_t k = 0; k < points.size(); ++k) {
        EXPECT_EQ(points[k]["x"].get<size_t>(), k);
        positive += points[k]["y"].get<double>() > 0;
      }
      EXPECT_GT(positive, 0) << s.dump();
    }
  }
  // The second figure's series are the isolated runs' benchmarks.
  EXPECT_EQ(figures[1]["series"][0]["name"], "pc");
  EXPECT_EQ(figures[1]["series"][1]["name"], "vecadd");
  std::string csv = slurp(out / "results.csv");
  EXPECT_NE(csv.find("ipc_series"), std::string::npos);
  fs::remove_all(out);
}

// check fails on a failure not declared at the results' scale and on a
// declaration at that scale that now holds (stale); it passes when every
// failure is declared there.
TEST(ExperimentCli, CheckFailsOnUndeclaredFailuresAndStaleDeclarations) {
  fs::path dir = fs::path(testing::TempDir()) / "experiment-cli-failing";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string study = slurp(kTinyStudy / "experiment.toml");
  const std::string impossible = "\n[[trend]]\nname = \"impossible\"\nexpr = \"geomean(stp) > 100\"\n";
  std::string log;
  std::string run = "experiment run " + dir.string() + " --scale smoke --out " + (dir / "out").string();
  std::string check = "experiment check " + (dir / "out").string();
  auto with = [&](const std::string& extra) { std::ofstream(dir / "experiment.toml") << study << extra; };

  with(impossible);
  ASSERT_EQ(run_gpumux(run, log), 0) << log;
  EXPECT_EQ(run_gpumux(check, log), 1) << log;
  EXPECT_NE(log.find("FAILS          impossible"), std::string::npos) << log;
  EXPECT_NE(log.find("2 of 3 trends hold; 0 known failures, 1 undeclared failures, 0 stale"), std::string::npos) << log;
  EXPECT_NE(log.find("1 unit: the interval is the point"), std::string::npos) << log;

  // Declared, but for another scale: still an undeclared failure at smoke.
  with(impossible + "known_failure = { scales = [\"quick\"], reason = \"two tiny apps cannot reach 100\" }\n");
  ASSERT_EQ(run_gpumux(run, log), 0) << log;
  EXPECT_NE(log.find("0 to do"), std::string::npos) << log;  // the runs did not change, only the trends
  EXPECT_EQ(run_gpumux(check, log), 1) << log;
  EXPECT_NE(log.find("FAILS          impossible"), std::string::npos) << log;

  // Declared at smoke: check passes, --strict does not.
  with(impossible + "known_failure = [{ scales = [\"quick\"], reason = \"r\" },\n"
                    "                 { scales = [\"smoke\"], reason = \"two tiny apps cannot reach 100\" }]\n");
  ASSERT_EQ(run_gpumux(run, log), 0) << log;
  EXPECT_EQ(run_gpumux(check, log), 0) << log;
  EXPECT_NE(log.find("FAILS (known)  impossible"), std::string::npos) << log;
  EXPECT_NE(log.find("known failure at this scale: two tiny apps cannot reach 100"), std::string::npos) << log;
  EXPECT_EQ(run_gpumux("experiment check --strict " + (dir / "out").string(), log), 1) << log;

  // A declaration at smoke for a trend that holds there is stale.
  with("\n[[trend]]\nname = \"possible\"\nexpr = \"geomean(stp) > 0.01\"\n"
       "known_failure = { scales = [\"smoke\"], reason = \"expected to fail\" }\n");
  ASSERT_EQ(run_gpumux(run, log), 0) << log;
  EXPECT_EQ(run_gpumux(check, log), 1) << log;
  EXPECT_NE(log.find("STALE          possible"), std::string::npos) << log;
  EXPECT_NE(log.find("stale: declared a known failure at this scale, but it holds"), std::string::npos) << log;
  EXPECT_NE(log.find("1 stale declarations"), std::string::npos) << log;

  // The old bare-string form and unknown scales are refused.
  with(impossible + "known_failure = \"a reason\"\n");
  EXPECT_EQ(run_gpumux(run, log), 2) << log;
  EXPECT_NE(log.find("known_failure: expected { scales = [\"smoke\", ...], reason = \"...\" }"), std::string::npos) << log;
  EXPECT_NE(log.find("a bare reason is no longer accepted"), std::string::npos) << log;
  with(impossible + "known_failure = { scales = [\"full\"], reason = \"r\" }\n");
  EXPECT_EQ(run_gpumux(run, log), 2) << log;
  EXPECT_NE(log.find("no scale 'full' in this study (it has: smoke, quick, paper)"), std::string::npos) << log;
  with(impossible + "known_failure = { scales = [\"smoke\"] }\n");
  EXPECT_EQ(run_gpumux(run, log), 2) << log;
  EXPECT_NE(log.find("reason: missing"), std::string::npos) << log;
  fs::remove_all(dir);
}

TEST(ExperimentCli, BadInputEndsWithAClearError) {
  std::string log;
  EXPECT_EQ(run_gpumux("experiment run /nonexistent/study", log), 2);
  EXPECT_NE(log.find("/nonexistent/study: cannot open study file"), std::string::npos) << log;
  EXPECT_EQ(run_gpumux("experiment run " + kTinyStudy.string() + " --scale huge", log), 2);
  EXPECT_NE(log.find("no scale 'huge' (this study has: smoke, quick, paper)"), std::string::npos) << log;
  EXPECT_EQ(run_gpumux("experiment run " + kTinyStudy.string() + " --executor cloud --out " +
                           (fs::path(testing::TempDir()) / "x").string(),
                       log),
            2);
  EXPECT_NE(log.find("unknown executor 'cloud' (known: local"), std::string::npos) << log;
  EXPECT_EQ(run_gpumux("experiment run " + kTinyStudy.string() + " --partition debug", log), 2);
  EXPECT_NE(log.find("--partition is an option of --executor slurm"), std::string::npos) << log;
  EXPECT_EQ(run_gpumux("experiment check /nonexistent/out", log), 2);
  EXPECT_NE(log.find("no trends.json"), std::string::npos) << log;
  EXPECT_EQ(run_gpumux("experiment run-one /nonexistent/run", log), 2);
  EXPECT_NE(log.find("cannot open workload file"), std::string::npos) << log;
}

}  // namespace
}  // namespace gpumux::test
