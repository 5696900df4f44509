// Every benchmark of the workload library runs at tiny size under the timing
// model on gtx980 with correct results; a few have pinned cycle counts.
#include <gtest/gtest.h>

#include <algorithm>

#include "gpumux/gpu/gpu.h"
#include "gpumux/timing/timing_backend.h"
#include "workload.h"
#include "workload_test_name.h"

namespace gpumux::test {
namespace {

struct TimedRun {
  workloads::CheckResult check;
  Cycle cycles = 0;
  uint64_t warp_insts = 0;
};

TimedRun run_timed(const std::string& name, const std::string& preset = "gtx980") {
  Config cfg = Config::build(std::string(GPUMUX_SOURCE_DIR) + "/configs/" + preset + ".toml", {});
  auto dev = timing::make_device(cfg.values());
  runtime::Context& ctx = dev->create_context(name);
  TimedRun r;
  r.check = workloads::run_workload(*workloads::find_workload(name), ctx, workloads::Size::Tiny, 1);
  r.cycles = timing::backend_of(*dev).busy_cycles();
  r.warp_insts = timing::backend_of(*dev).warp_instructions();
  return r;
}

class WorkloadTimingTiny : public ::testing::TestWithParam<const workloads::WorkloadSpec*> {};

TEST_P(WorkloadTimingTiny, CorrectUnderTheTimingModel) {
  TimedRun r = run_timed(GetParam()->name);
  EXPECT_TRUE(r.check.passed) << r.check.detail;
  EXPECT_GT(r.cycles, 0u);
  EXPECT_GT(r.warp_insts, 0u);
}

// gtest names are identifiers: "pc-pt" becomes "pc_pt".
INSTANTIATE_TEST_SUITE_P(All, WorkloadTimingTiny, ::testing::ValuesIn(workloads::all_workloads()), [](const auto& info) {
  return test::workload_test_name(info.param->name);
});

// Pinned simulated cycles: any change to the timing model that moves these
// must be deliberate (update the numbers and say why in the commit). Copies
// take simulated time since the PCIe model: kernels start at other phases of
// the DRAM clock (vecadd, sgemm) and stencil's busy span includes its copies.
TEST(PinnedCycles, TinyWorkloadsOnGtx980) {
  struct Pin {
    const char* name;
    Cycle cycles;
  };
  for (Pin p : {Pin{"vecadd", 4452}, Pin{"sgemm", 52231}, Pin{"pc", 11238}, Pin{"stencil", 41465}}) {
    TimedRun r = run_timed(p.name);
    EXPECT_TRUE(r.check.passed) << p.name;
    EXPECT_EQ(r.cycles, p.cycles) << p.name;
  }
}

TEST(PinnedCycles, RunsAreDeterministic) {
  TimedRun a = run_timed("histo"), b = run_timed("histo");
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.warp_insts, b.warp_insts);
}

}  // namespace
}  // namespace gpumux::test
