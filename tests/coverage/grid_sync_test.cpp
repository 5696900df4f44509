// Cooperative launch (Context::launch_cooperative) of nvcc's grid-wide
// barrier (tests/coverage/grid_sync.cu): the timing model runs the grid scan
// with every block resident and matches the CPU; a grid that cannot be
// co-resident, the functional backend and a grid.sync() outside a cooperative
// launch are clear errors, never a hang.
#include <gtest/gtest.h>

#include <filesystem>

#include "backends_test_util.h"
#include "file_test_util.h"
#include "gpumux/core/error.h"
#include "gpumux/exec/address_space.h"

namespace gpumux::test {
namespace {

runtime::Module& load(runtime::Context& ctx) {
  static const std::string ptx =
      read_file(std::filesystem::path(GPUMUX_SOURCE_DIR) / "tests/coverage/grid_sync.ptx");
  return ctx.load_module_string(ptx, "grid_sync.ptx");
}

constexpr int kPerBlock = 48, kRounds = 2;

std::vector<int32_t> scan_input(int blocks) {
  std::vector<int32_t> v(size_t(blocks) * kPerBlock);
  for (size_t i = 0; i < v.size(); ++i) v[i] = int32_t(i % 5) - 1;
  return v;
}

runtime::KernelArgs scan_args(runtime::DevPtr data, runtime::DevPtr sums) {
  runtime::KernelArgs a;
  a.add(data).add(sums).add(int32_t(kPerBlock)).add(int32_t(kRounds));
  return a;
}

std::unique_ptr<runtime::Device> timing_device() { return timing::make_device(gpu::load_config("gtx980").values()); }

TEST(CooperativeLaunch, GridScanWithGridBarriersMatchesTheCpu) {
  auto dev = timing_device();
  runtime::Context& ctx = dev->create_context("grid_sync");
  runtime::Module& mod = load(ctx);
  // 8 blocks per SM of 64 threads fit every SM of gtx980 at once.
  const int blocks = 8 * int(dev->limits().num_sms);
  std::vector<int32_t> want = scan_input(blocks);
  runtime::DevPtr data = upload(ctx, want), sums = ctx.malloc(blocks * 4);
  const uint64_t allocated = ctx.memory().bytes_allocated();
  for (int launch = 0; launch < 2; ++launch) {  // each launch starts from a fresh barrier
    ctx.launch_cooperative(mod.kernel("grid_scan"), {uint32_t(blocks)}, {64}, 0, {}, scan_args(data, sums));
    for (int r = 0; r < kRounds; ++r)  // unsigned: the sums wrap as the GPU's do (signed overflow is UB)
      for (size_t i = 1; i < want.size(); ++i) want[i] = int32_t(uint32_t(want[i]) + uint32_t(want[i - 1]));
  }
  ctx.synchronize();
  EXPECT_EQ(read_back<int32_t>(ctx, data, want.size()), want);
  EXPECT_EQ(ctx.memory().bytes_allocated(), allocated);  // the workspaces are freed once drained
}

TEST(CooperativeLaunch, GridThatCannotBeCoResidentIsRefused) {
  auto dev = timing_device();
  runtime::Context& ctx = dev->create_context("grid_sync");
  runtime::Module& mod = load(ctx);
  runtime::DevPtr data = ctx.malloc(4), sums = ctx.malloc(4);
  const uint64_t allocated = ctx.memory().bytes_allocated();
  try {
    ctx.launch_cooperative(mod.kernel("grid_scan"), {100000}, {64}, 0, {}, scan_args(data, sums));
    FAIL() << "a grid of 100000 blocks was launched cooperatively";
  } catch (const ApiError& e) {
    EXPECT_NE(std::string(e.what()).find("are resident at once on the gtx980 config"), std::string::npos) << e.what();
  }
  EXPECT_EQ(ctx.memory().bytes_allocated(), allocated);  // no workspace left behind
}

TEST(CooperativeLaunch, FunctionalBackendRefusesIt) {
  runtime::Device dev;
  runtime::Context& ctx = dev.create_context("grid_sync");
  runtime::Module& mod = load(ctx);
  runtime::DevPtr data = ctx.malloc(4), sums = ctx.malloc(4);
  EXPECT_THROW(
      {
        try {
          ctx.launch_cooperative(mod.kernel("grid_scan"), {2}, {64}, 0, {}, scan_args(data, sums));
        } catch (const ApiError& e) {
          EXPECT_NE(std::string(e.what()).find("runs TBs one after another"), std::string::npos) << e.what();
          throw;
        }
      },
      ApiError);
}

// Without a workspace (%envreg1/2 read 0) cooperative_groups traps: a device fault.
TEST(CooperativeLaunch, GridSyncInAnOrdinaryLaunchTraps) {
  on_both_backends("grid_sync", [](runtime::Context& ctx) {
    runtime::Module& mod = load(ctx);
    runtime::DevPtr data = upload(ctx, scan_input(2)), sums = ctx.malloc(8);
    EXPECT_THROW(
        {
          ctx.launch(mod.kernel("grid_scan"), {2}, {64}, 0, {}, scan_args(data, sums));
          ctx.synchronize();
        },
        DeviceFault);
  });
}

}  // namespace
}  // namespace gpumux::test
