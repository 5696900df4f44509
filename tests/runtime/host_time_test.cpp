// Host CPU time in the runtime: host_compute() and the CPU gap before each
// API call reach the device's host clock, once per call.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "gpumux/runtime/runtime.h"

namespace gpumux::runtime {
namespace {

class RecordingClock : public HostClock {
 public:
  void spend(uint64_t ps) override { spent.push_back(ps); }
  std::vector<uint64_t> spent;
};

const char* kEmptyKernel = ".version 9.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";

TEST(HostTime, HostComputeReachesTheHostClock) {
  Device dev;
  RecordingClock clock;
  Context& ctx = dev.create_context("app");
  ctx.host_compute(1.5);  // no clock yet: takes no time
  dev.set_host_clock(&clock);
  ctx.host_compute(1.5);
  ctx.host_compute(0);  // nothing to spend
  EXPECT_EQ(clock.spent, (std::vector<uint64_t>{1500}));
}

// One gap per call, although copies also synchronize inside.
TEST(HostTime, CpuGapIsSpentOnceBeforeEachCall) {
  Device dev;
  RecordingClock clock;
  dev.set_host_clock(&clock);
  Context& ctx = dev.create_context("app");
  Module& m = ctx.load_module_string(kEmptyKernel, "k.ptx");
  DevPtr p = ctx.malloc(64);
  ctx.set_cpu_gap_ns(2000);
  std::vector<uint8_t> host(64, 1);
  ctx.memcpy_h2d(p, host.data(), 64);
  ctx.launch(m.kernel("k"), {1}, {32});
  ctx.memset(p, 0, 64);
  ctx.memcpy_d2h(host.data(), p, 64);
  ctx.synchronize();
  Event e = ctx.create_event();
  ctx.record(e);
  ctx.free(p);  // allocations spend nothing
  EXPECT_EQ(clock.spent, std::vector<uint64_t>(6, 2'000'000));
  ctx.set_cpu_gap_ns(0);
  ctx.synchronize();
  EXPECT_EQ(clock.spent.size(), 6u);
}

TEST(HostTime, BadDurationsAreApiErrors) {
  Device dev;
  Context& ctx = dev.create_context("app");
  EXPECT_THROW(ctx.host_compute(-1), ApiError);
  EXPECT_THROW(ctx.host_compute(std::nan("")), ApiError);
  EXPECT_THROW(ctx.set_cpu_gap_ns(2e12), ApiError);
}

}  // namespace
}  // namespace gpumux::runtime
