// CUDA programs with managed memory (tests/cuda/managed_*.cu, built with nvcc
// when it is present) under demand paging (docs/virtual-memory.md): each
// checks its results against the CPU; the run's JSON gives the faults,
// prefetches and evictions. Without demand paging the same programs pass
// with managed memory resident on the device.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "cuda_build_util.h"

namespace {

namespace fs = std::filesystem;
using gpumux::test::kCudaOut;
using gpumux::test::run_gpumux;

const fs::path kConfigs = fs::path(GPUMUX_SOURCE_DIR) / "tests/cuda";

class ManagedPrograms : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    compile_log_ = gpumux::test::build_cuda_programs(
        {{"managed_prefetch", "managed_prefetch", "-arch=compute_80"},
         {"managed_oversubscribe", "managed_oversubscribe", "-arch=compute_80"},
         {"memory_variants", "memory_variants", "-arch=compute_80"}});
  }
  void SetUp() override { gpumux::test::require_cuda_programs(compile_log_); }

  // Runs `program` through gpumux exec on `config` (a file of tests/cuda or a
  // preset); expects it to pass; returns the run's JSON, its output in `out`.
  static nlohmann::json run(const std::string& program, const std::string& config, std::string& out,
                            const std::string& args = "") {
    const fs::path json = kCudaOut / fmt::format("{}-{}.json", program, fs::path(config).stem().string());
    const std::string c = fs::exists(kConfigs / config) ? (kConfigs / config).string() : config;
    EXPECT_EQ(run_gpumux(fmt::format("exec -c {} --json {} -- {} {}", c, json.string(),
                                     (kCudaOut / program).string(), args),
                         out),
              0)
        << out;
    EXPECT_NE(out.find("PASS " + program), std::string::npos) << out;
    std::ifstream f(json);
    std::stringstream ss;
    ss << f.rdbuf();
    return nlohmann::json::parse(ss.str());
  }

  static inline std::string compile_log_;
};

TEST_F(ManagedPrograms, PrefetchAndAdviceAreAcceptedWithoutPaging) {
  std::string out;
  nlohmann::json j = run("managed_prefetch", "gtx980", out);
  EXPECT_FALSE(j.contains("paging"));
  EXPECT_EQ(out.find("paging:"), std::string::npos) << out;
}

TEST_F(ManagedPrograms, ManagedDataFaultsInAndPrefetchedDataDoesNot) {
  std::string out;
  nlohmann::json j = run("managed_prefetch", "demand-paging.toml", out);
  const nlohmann::json& p = j.at("paging");
  // x and y (1 MB each, written by the host) and out (never written): 16 or
  // 17 units of 64 KB each, depending on where the allocations start.
  EXPECT_GE(p.at("faults").get<uint64_t>(), 48u) << p;
  EXPECT_LE(p.at("faults").get<uint64_t>(), 51u) << p;
  EXPECT_GE(p.at("allocation_faults").get<uint64_t>(), 15u) << p;  // out's units only
  EXPECT_LE(p.at("allocation_faults").get<uint64_t>(), 17u) << p;
  EXPECT_EQ(p.at("migrated_bytes").get<uint64_t>(),
            (p.at("faults").get<uint64_t>() - p.at("allocation_faults").get<uint64_t>()) * 65536)
      << p;
  // y went back to the host before the host updated it, then came back ahead of the kernel.
  EXPECT_GE(p.at("host_migrations").get<uint64_t>(), 16u) << p;
  EXPECT_GE(p.at("prefetched_bytes").get<uint64_t>(), 16u * 65536) << p;
  EXPECT_EQ(p.at("evictions").get<uint64_t>(), 0u) << p;
  EXPECT_NE(out.find("gpumux:   paging: "), std::string::npos) << out;
  // The kernel after the prefetches does not wait for faults: much faster than the first.
  // Parsed by hand: GCC 12 at -O1 (the sanitizer build) warns inside <regex>.
  const std::string faults_key = "with faults ", prefetch_key = " ms, after prefetches ";
  const size_t at = out.find(faults_key);
  ASSERT_NE(at, std::string::npos) << out;
  const size_t mid = out.find(prefetch_key, at);
  ASSERT_NE(mid, std::string::npos) << out;
  const double with_faults = std::stod(out.substr(at + faults_key.size()));
  const double after_prefetches = std::stod(out.substr(mid + prefetch_key.size()));
  EXPECT_LT(after_prefetches * 5, with_faults) << out;
}

// Managed memory with demand paging on a program written before it: the
// program's plain cudaMalloc memory never faults, its managed data does.
TEST_F(ManagedPrograms, OnlyManagedMemoryFaultsInAProgramWithPlainAllocations) {
  std::string out;
  nlohmann::json j = run("memory_variants", "demand-paging.toml", out);
  const nlohmann::json& p = j.at("paging");
  EXPECT_GT(p.at("faults").get<uint64_t>(), 0u) << p;
  EXPECT_LE(p.at("faults").get<uint64_t>(), 4u) << p;  // a 1.2 KB array and a __managed__ int
}

TEST_F(ManagedPrograms, AnOversubscribingProgramRunsSlowlyAndPasses) {
  std::string out_fit, out_over;
  nlohmann::json fit = run("managed_oversubscribe", "demand-paging.toml", out_fit);
  nlohmann::json over = run("managed_oversubscribe", "oversubscribed.toml", out_over);
  EXPECT_EQ(fit.at("paging").at("evictions").get<uint64_t>(), 0u);
  // Each of the 3 passes sweeps 2 MB (32 units) through 16 units of device memory.
  const nlohmann::json& p = over.at("paging");
  EXPECT_GE(p.at("evictions").get<uint64_t>(), 2u * 32) << p;
  EXPECT_GE(p.at("faults").get<uint64_t>(), 3u * 32) << p;
  EXPECT_EQ(p.at("written_back_bytes").get<uint64_t>(), p.at("evictions").get<uint64_t>() * 65536) << p;
  EXPECT_GT(over.at("simulated_ms").get<double>(), 2 * fit.at("simulated_ms").get<double>())
      << fit.at("simulated_ms") << " vs " << over.at("simulated_ms");
}

}  // namespace
