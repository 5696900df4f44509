// Contiguous allocation makes placement matter: a hole left by a finished TB
// can keep a TB out although enough shared memory is free in total, and the
// dispatcher counts it (frontend.fragmented_placements); the SM measures the
// fragmented share and its duration (sm*.fragmentation.*, docs/two-way-allocation.md).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpumux/gpu/gpu.h"
#include "gpumux/timing/timing_backend.h"

namespace gpumux::frontend {
namespace {

const std::string kPtx = std::string(GPUMUX_SOURCE_DIR) + "/tests/timing/kernels/timing_tests.ptx";

// One SM with 96 KB of shared memory. Apps 0-2 each run one 24 KB TB (app 1's
// is short); app 3's TB needs 48 KB. When app 1's TB leaves, 48 KB are free
// but split in two 24 KB holes: app 3 waits for a long TB to finish.
struct OneSm {
  explicit OneSm(uint64_t last_smem)
      : config(Config::build(std::string(GPUMUX_SOURCE_DIR) + "/configs/gtx980.toml",
                             std::vector<std::string>{"gpu.num_sms=1", "frontend.launch_latency=10", "frontend.max_active_kernels=4",
                                                      "frontend.check_invariants=true"})),
        dev(timing::make_device(config.values())) {
    const int iters[4] = {3000, 10, 3000, 10};
    const uint64_t smem[4] = {24 << 10, 24 << 10, 24 << 10, last_smem};
    for (int i = 0; i < 4; ++i) {
      runtime::Context& c = dev->create_context("app" + std::to_string(i));
      runtime::Module& m = c.load_module_file(kPtx);
      runtime::KernelArgs a;
      a.add(c.malloc(32 * 4)).add(iters[i]);
      c.launch(m.kernel("fma_chains"), {1}, {32}, smem[i], {}, a);
      ctx.push_back(&c);
    }
    for (runtime::Context* c : ctx) c->synchronize();
  }
  gpu::Gpu& gpu() { return timing::backend_of(*dev).gpu(); }
  const KernelRecord& record(size_t i) { return timing::backend_of(*dev).kernels().at(i); }
  uint64_t fragmented() { return gpu().stats().sum("frontend.fragmented_placements"); }
  uint64_t sm_stat(const std::string& leaf) { return gpu().stats().sum("sm0.fragmentation." + leaf); }

  Config config;
  std::unique_ptr<runtime::Device> dev;
  std::vector<runtime::Context*> ctx;
};

TEST(Fragmentation, AHoleKeepsOutATbThatFitsInTotal) {
  OneSm s(48 << 10);
  EXPECT_GT(s.fragmented(), 0u);
  EXPECT_LT(s.record(1).finished, s.record(3).first_tb);
  // App 3 started only when a long TB freed a contiguous 48 KB.
  EXPECT_GE(s.record(3).first_tb, std::min(s.record(0).finished, s.record(2).finished));
  EXPECT_EQ(s.gpu().stats().sum("frontend.tbs_dispatched"), 4u);
  // One episode, from app 1's TB leaving to app 3's TB starting (to within
  // the dispatcher's cycle), with the 48 KB free in two holes fragmented.
  EXPECT_EQ(s.sm_stat("episodes"), 1u);
  const uint64_t waited = s.record(3).first_tb - s.record(1).finished, cycles = s.sm_stat("cycles");
  EXPECT_GE(cycles + 2, waited);
  EXPECT_LE(cycles, waited + 2);
  EXPECT_EQ(s.sm_stat("shared_byte_cycles"), cycles * (48 << 10));
  EXPECT_EQ(s.sm_stat("register_cycles"), 0u);
}

// A 24 KB TB fits the hole: no fragmentation, and it starts there at once.
TEST(Fragmentation, ATbThatFitsTheHoleIsNotBlocked) {
  OneSm s(24 << 10);
  EXPECT_EQ(s.fragmented(), 0u);
  EXPECT_EQ(s.sm_stat("episodes"), 0u);
  EXPECT_LT(s.record(3).first_tb, std::min(s.record(0).finished, s.record(2).finished));
}

}  // namespace
}  // namespace gpumux::frontend
