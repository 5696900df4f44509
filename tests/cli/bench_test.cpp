// gpumux bench through the binary: after the speed table, the start-up cost
// of each config (a whole run of one empty kernel).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"

namespace gpumux {
namespace {

namespace fs = std::filesystem;

TEST(BenchCommand, PrintsTheStartUpCostOfAnEmptyKernelPerConfig) {
  fs::path json = fs::temp_directory_path() / "gpumux-bench-start-up.json";
  std::string out;
  ASSERT_EQ(test::run_gpumux("bench --size tiny --workloads vecadd --configs gtx980,titanv --json " + json.string(),
                             out),
            0)
      << out;
  EXPECT_NE(out.find("START-UP"), std::string::npos) << out;
  std::ifstream f(json);
  nlohmann::json all = nlohmann::json::parse(f);
  fs::remove(json);
  ASSERT_EQ(all.size(), 4u) << all.dump(1);  // vecadd on each config, then each config's start-up
  for (size_t i = 2; i < 4; ++i) {
    const nlohmann::json& s = all[i];
    EXPECT_EQ(s["workload"], "start-up");
    EXPECT_EQ(s["config"], i == 2 ? "gtx980" : "titanv");
    EXPECT_FALSE(s.contains("error")) << s.dump();
    EXPECT_EQ(s["warp_insts"], 1u) << s.dump();  // the kernel's ret, one warp
    EXPECT_GT(s["cycles"].get<uint64_t>(), 0u);
    EXPECT_GT(s["host_seconds"].get<double>(), 0.0);
    EXPECT_GT(s["peak_rss_bytes"].get<uint64_t>(), 0u);
  }
}

}  // namespace
}  // namespace gpumux
