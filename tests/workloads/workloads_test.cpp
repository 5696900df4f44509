// The workload library: every benchmark passes its CPU check at tiny size in
// functional mode (and, opt-in, at small size), the size names parse back,
// the catalogue is complete, the committed PTX is what nvcc generates, runs
// are deterministic, and the `gpumux list` / `gpumux verify` commands behave.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>

#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"

#include "gpumux/exec/address_space.h"
#include "gpumux/runtime/functional_backend.h"
#include "gpumux/runtime/runtime.h"
#include "workload.h"
#include "workload_test_name.h"

namespace gpumux::workloads {
namespace {

CheckResult run_alone(const WorkloadSpec& w, Size size, uint64_t seed) {
  runtime::Device dev;
  runtime::Context& ctx = dev.create_context(w.name);
  return run_workload(w, ctx, size, seed);
}

// gtest names are identifiers: "pc-pt" becomes "pc_pt".
std::string test_name(const ::testing::TestParamInfo<const WorkloadSpec*>& info) {
  return test::workload_test_name(info.param->name);
}

class WorkloadTiny : public ::testing::TestWithParam<const WorkloadSpec*> {};

TEST_P(WorkloadTiny, PassesCheck) {
  const WorkloadSpec& w = *GetParam();
  CheckResult r = run_alone(w, Size::Tiny, 1);
  EXPECT_TRUE(r.passed) << w.name << ": " << r.detail;
}

INSTANTIATE_TEST_SUITE_P(All, WorkloadTiny, ::testing::ValuesIn(all_workloads()), test_name);

// Small sizes take minutes in functional mode: opt-in through the "Small" label.
class WorkloadSmall : public ::testing::TestWithParam<const WorkloadSpec*> {};

TEST_P(WorkloadSmall, PassesCheck) {
  const WorkloadSpec& w = *GetParam();
  CheckResult r = run_alone(w, Size::Small, 1);
  EXPECT_TRUE(r.passed) << w.name << ": " << r.detail;
}

INSTANTIATE_TEST_SUITE_P(All, WorkloadSmall, ::testing::ValuesIn(all_workloads()), test_name);

TEST(WorkloadSizes, NamesRoundTripInSizeOrder) {
  EXPECT_STREQ(size_names(), "tiny, medium, small, large or paper");
  for (size_t i = 0; i < std::size(all_sizes); ++i) {
    Size parsed = Size::Tiny;
    EXPECT_TRUE(parse_size(size_name(all_sizes[i]), parsed)) << size_name(all_sizes[i]);
    EXPECT_EQ(parsed, all_sizes[i]);
    if (i > 0) {
      EXPECT_LT(all_sizes[i - 1], all_sizes[i]);
    }
  }
  Size unchanged = Size::Tiny;
  EXPECT_FALSE(parse_size("huge", unchanged));
}

// Every benchmark defines tiny to large; paper only where a paper's grids are
// larger than medium's, and asking a benchmark for a size it lacks is an error.
TEST(WorkloadSizes, OptionalSizeRefusedWhereMissing) {
  for (const WorkloadSpec* w : all_workloads())
    for (Size z : {Size::Tiny, Size::Medium, Size::Small, Size::Large}) EXPECT_TRUE(has_size(*w, z)) << w->name;
  const WorkloadSpec* with = find_workload("sgemm");
  const WorkloadSpec* without = find_workload("vecadd");
  ASSERT_TRUE(with && without);
  EXPECT_TRUE(has_size(*with, Size::Paper));
  ASSERT_FALSE(has_size(*without, Size::Paper));
  EXPECT_EQ(missing_size_message(*without, Size::Paper),
            "benchmark 'vecadd' has no paper size (it has tiny, medium, small, large)");
  EXPECT_THROW(run_alone(*without, Size::Paper, 1), std::invalid_argument);
}

TEST(WorkloadCatalogue, HasEveryRequiredBenchmark) {
  const char* required[] = {
      // compute-heavy and network (workload library part A)
      "sgemm", "cutcp", "mriq", "tpacf", "sad", "hotspot", "backprop", "binomial", "pathfinder",
      "conv2d", "dxtc", "pc", "lavamd", "blackscholes", "ipv4", "ipv6", "memc", "ipsec",
      // memory-bound and irregular (part B)
      "vecadd", "stencil", "lbm", "spmv", "histo", "bfs", "kmeans", "srad", "streamcluster", "fdtd",
      "fwt", "nw", "lud", "atax", "btree", "mm",
      // the last three of GPU Maestro's 22 (Rodinia)
      "heartwall", "leukocyte", "mummergpu"};
  for (const char* name : required) EXPECT_NE(find_workload(name), nullptr) << name;
}

TEST(WorkloadCatalogue, SpecsAreComplete) {
  std::set<std::string> names;
  for (const WorkloadSpec* w : all_workloads()) {
    EXPECT_TRUE(names.insert(w->name).second) << "duplicate " << w->name;
    EXPECT_FALSE(w->description.empty()) << w->name;
    EXPECT_TRUE(w->category == "compute" || w->category == "memory" || w->category == "network")
        << w->name << ": " << w->category;
    EXPECT_NE(w->ptx.find(".entry"), std::string_view::npos) << w->name;
    for (Size z : {Size::Tiny, Size::Medium, Size::Small, Size::Large})
      EXPECT_FALSE(w->sizes[size_t(z)].empty()) << w->name << " " << size_name(z);
    EXPECT_NE(w->run, nullptr) << w->name;
  }
}

TEST(WorkloadPtx, CommittedPtxMatchesGenerator) {
  if (!std::filesystem::exists("/usr/local/cuda/bin/nvcc"))
    GTEST_SKIP() << "nvcc not installed: cannot regenerate the PTX";
  std::string cmd = std::string(GPUMUX_SOURCE_DIR) + "/scripts/gen_ptx.sh --check";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << "stale PTX: run scripts/gen_ptx.sh and commit";
}

// A functional backend that also digests, after every launch, the contents
// of every allocation a kernel parameter points to: the bytes each kernel
// produced, across the whole launch sequence of a run.
class DigestBackend : public runtime::LaunchBackend {
 public:
  explicit DigestBackend(uint32_t num_sms) : inner_(num_sms) {}
  void launch(Launch& l) override {
    const std::vector<uint8_t> params = l.params;  // the inner backend may consume them
    inner_.launch(l);
    for (size_t off = 0; off + 8 <= params.size(); off += 8) {
      uint64_t addr;
      std::memcpy(&addr, params.data() + off, 8);
      const exec::AddressSpace::Allocation* a = l.ctx->memory().find(addr);
      if (!a) continue;
      for (uint64_t i = 0; i < a->size; ++i) digest_ = (digest_ ^ a->data[i]) * 0x100000001b3ull;
    }
  }
  void synchronize(runtime::Context& ctx) override { inner_.synchronize(ctx); }
  double now_ms() const override { return inner_.now_ms(); }
  uint64_t digest() const { return digest_; }
  uint64_t warp_instructions() const { return inner_.warp_instructions(); }

 private:
  runtime::FunctionalBackend inner_;
  uint64_t digest_ = 0xcbf29ce484222325ull;
};

struct RunDigest {
  bool passed;
  uint64_t digest, warp_insts;
};

RunDigest digest_run(const WorkloadSpec& w, uint64_t seed) {
  runtime::DeviceLimits limits;
  auto backend = std::make_unique<DigestBackend>(limits.num_sms);
  DigestBackend* b = backend.get();
  runtime::Device dev(limits, std::move(backend));
  runtime::Context& ctx = dev.create_context(w.name);
  CheckResult r = run_workload(w, ctx, Size::Tiny, seed);
  return {r.passed, b->digest(), b->warp_instructions()};
}

class WorkloadDeterminism : public ::testing::TestWithParam<const char*> {};

TEST_P(WorkloadDeterminism, SameSeedSameBytes) {
  const WorkloadSpec* w = find_workload(GetParam());
  ASSERT_NE(w, nullptr);
  RunDigest a = digest_run(*w, 7), b = digest_run(*w, 7), c = digest_run(*w, 8);
  EXPECT_TRUE(a.passed && b.passed && c.passed);
  EXPECT_EQ(a.digest, b.digest) << "same seed, different device results";
  EXPECT_EQ(a.warp_insts, b.warp_insts);
  EXPECT_NE(a.digest, c.digest) << "the seed does not reach the inputs";
}

// Float sums in a fixed order, shared atomics, CAS inserts, warp shuffles.
INSTANTIATE_TEST_SUITE_P(Some, WorkloadDeterminism,
                         ::testing::Values("sgemm", "tpacf", "memc", "dxtc"));

using test::run_gpumux;

TEST(WorkloadCli, ListJsonNamesEveryWorkload) {
  std::string out;
  ASSERT_EQ(run_gpumux("list --json", out), 0) << out;
  nlohmann::json j = nlohmann::json::parse(out);
  ASSERT_TRUE(j.is_array());
  EXPECT_EQ(j.size(), all_workloads().size());
  for (const auto& e : j) {
    EXPECT_TRUE(e.contains("name") && e.contains("description") && e.contains("category") &&
                e.contains("kernels") && e.contains("sizes"));
    EXPECT_FALSE(e["kernels"].empty()) << e["name"];
  }
}

TEST(WorkloadCli, VerifyPassesAndFails) {
  std::string out;
  EXPECT_EQ(run_gpumux("verify pc sad --size tiny --seed 3 --functional", out), 0) << out;
  EXPECT_NE(out.find("pc"), std::string::npos);
  EXPECT_NE(out.find("PASS"), std::string::npos);
  EXPECT_NE(run_gpumux("verify no_such_benchmark", out), 0) << out;
}

}  // namespace
}  // namespace gpumux::workloads
