// gpumux experiment run --sample and gpumux experiment publish end to end on
// the tiny test study: a sample runs only its mixes, says so in trends.json,
// check and the report, and a larger sample reuses the runs already done;
// publish copies the results with their commit into STUDY/results/<scale>.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_test_util.h"

namespace gpumux::test {
namespace {

namespace fs = std::filesystem;

// The tiny study copied into a temporary folder (publish writes beside it).
fs::path tiny_study_copy(const std::string& name) {
  fs::path dir = fs::path(testing::TempDir()) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(fs::path(GPUMUX_SOURCE_DIR) / "tests/experiments/fixtures/tiny-study/experiment.toml",
                dir / "experiment.toml");
  return dir;
}

TEST(ExperimentCli, ASampleRunsItsMixesAndSaysSoEverywhere) {
  fs::path dir = tiny_study_copy("experiment-sample"), out = dir / "out";
  std::string log;
  // quick: the ordered pairs of pc and vecadd (2 mixes) under 2 policies, 2 benchmarks alone and classified.
  const std::string run = "experiment run " + dir.string() + " --scale quick --jobs 2 --out " + out.string();
  ASSERT_EQ(run_gpumux(run + " --sample 1 --dry-run", log), 0) << log;
  EXPECT_NE(log.find("(quick scale, sampled 1 of 2 mixes (seed 1)): 6 runs, 6 to do"), std::string::npos) << log;
  ASSERT_EQ(run_gpumux(run + " --sample 1", log), 0) << log;
  nlohmann::json trends = nlohmann::json::parse(slurp(out / "trends.json"));
  ASSERT_FALSE(trends.empty());
  for (const auto& t : trends) {
    EXPECT_EQ(t["sample"]["text"], "sampled 1 of 2 mixes (seed 1)") << t.dump();
    EXPECT_EQ(t["sample"]["mixes"], 1);
    EXPECT_EQ(t["sample"]["of"], 2);
  }
  EXPECT_EQ(nlohmann::json::parse(slurp(out / "study.json"))["sample"]["seed"], 1);
  run_gpumux("experiment check " + out.string(), log);
  EXPECT_EQ(log.rfind("a sample of the scale, not all of it: sampled 1 of 2 mixes (seed 1)\n", 0), 0u) << log;
  EXPECT_NE(log.find("stale declarations (sampled 1 of 2 mixes (seed 1))"), std::string::npos) << log;
  ASSERT_EQ(run_gpumux("experiment report " + out.string(), log), 0) << log;
  EXPECT_NE(slurp(out / "report.html").find("sampled 1 of 2 mixes (seed 1): a fraction of the scale"),
            std::string::npos);

  // A larger sample keeps the smaller one's runs; the whole scale is no sample.
  ASSERT_EQ(run_gpumux(run + " --sample 2", log), 0) << log;
  EXPECT_NE(log.find("sampled 2 of 2 mixes (seed 1)): 8 runs, 2 to do"), std::string::npos) << log;
  ASSERT_EQ(run_gpumux(run, log), 0) << log;
  EXPECT_NE(log.find("(quick scale): 8 runs, 0 to do"), std::string::npos) << log;
  for (const auto& t : nlohmann::json::parse(slurp(out / "trends.json"))) EXPECT_TRUE(t["sample"].is_null());

  // Out of range, or a seed without a sample: clear errors.
  EXPECT_EQ(run_gpumux(run + " --sample 3", log), 2) << log;
  EXPECT_NE(log.find("--sample 3: the quick scale has 2 mixes; a sample takes 1 to 2 of them"), std::string::npos)
      << log;
  EXPECT_EQ(run_gpumux(run + " --sample 0", log), 2) << log;
  EXPECT_NE(log.find("--sample: a sample takes at least 1 mix"), std::string::npos) << log;
  EXPECT_EQ(run_gpumux(run + " --sample-seed 3", log), 2) << log;
  EXPECT_NE(log.find("--sample-seed is an option of --sample"), std::string::npos) << log;
  fs::remove_all(dir);
}

TEST(ExperimentCli, PublishCopiesTheResultsWithTheirCommit) {
  fs::path dir = tiny_study_copy("experiment-publish"), out = dir / "out";
  std::string log, version;
  ASSERT_EQ(run_gpumux("experiment run " + dir.string() + " --scale quick --sample 1 --sample-seed 4 --out " +
                           out.string(), log),
            0)
      << log;
  const std::string publish = "experiment publish " + dir.string() + " --scale quick --out " + out.string();
  ASSERT_EQ(run_gpumux(publish, log), 0) << log;
  fs::path dest = dir / "results/quick";
  for (const char* f : {"results.csv", "trends.json", "report.html", "figures/stp.svg", "figures/ntt-cdf.svg"})
    EXPECT_EQ(slurp(dest / f), slurp(out / f)) << f;
  // The commit the results came from: the binary's (gpumux --version's "commit" line).
  ASSERT_EQ(run_gpumux("--version", version), 0) << version;
  const size_t at = version.find("commit ") + 7;
  const std::string commit = slurp(dest / "commit");
  EXPECT_EQ(commit.substr(0, commit.find('\n')), version.substr(at, version.find('\n', at) - at)) << commit;
  EXPECT_NE(commit.find("study experiment-publish, scale quick, sampled 1 of 2 mixes (seed 4)"), std::string::npos)
      << commit;
  // The report opens from the published folder: nothing in it points into OUT.
  EXPECT_EQ(slurp(dest / "report.html").find(out.string()), std::string::npos);
  EXPECT_NE(slurp(dest / "report.html").find("href=\"results.csv\""), std::string::npos);

  // Results of another scale, or no results: refused.
  EXPECT_EQ(run_gpumux("experiment publish " + dir.string() + " --scale smoke --out " + out.string(), log), 2);
  EXPECT_NE(log.find("holds the results of study 'experiment-publish' at scale 'quick', not 'experiment-publish' at "
                     "'smoke'"),
            std::string::npos)
      << log;
  EXPECT_EQ(run_gpumux("experiment publish " + dir.string() + " --scale quick --out " + (dir / "none").string(), log),
            2);
  EXPECT_NE(log.find("no study.json"), std::string::npos) << log;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux::test
