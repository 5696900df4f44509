// Thread-block and warp state can be saved, restored and discarded: the
// functional basis of context switching, SM flushing and warp preemption.
#include <gtest/gtest.h>

#include <vector>

#include "gpumux/exec/loaded_module.h"
#include "gpumux/exec/thread_block.h"
#include "gpumux/runtime/runtime.h"

namespace gpumux {
namespace {

using runtime::DevPtr;

// One TB of the tiled matmul (n = 16: a single 16x16 tile, two barriers per
// k-step), driven by hand so the test can stop it anywhere.
class TbStateTest : public ::testing::Test {
 protected:
  static constexpr int n = 16;
  runtime::Device dev;
  runtime::Context& ctx = dev.create_context("t");
  runtime::Module& mod =
      ctx.load_module_file(std::string(GPUMUX_SOURCE_DIR) + "/tests/exec/kernels/engine_tests.ptx");
  std::vector<float> A, B, ref;
  DevPtr dA = 0, dB = 0, dC = 0;
  exec::GridLaunch g;

  void SetUp() override {
    A.resize(n * n);
    B.resize(n * n);
    ref.assign(n * n, 0.f);
    for (int i = 0; i < n * n; ++i) {
      A[i] = float(i % 9) - 4.f;
      B[i] = float(i % 5) * 0.5f;
    }
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c)
        for (int k = 0; k < n; ++k) ref[r * n + c] += A[r * n + k] * B[k * n + c];
    dA = ctx.malloc_copy(A);
    dB = ctx.malloc_copy(B);
    dC = ctx.malloc(n * n * 4);
    runtime::Kernel k = mod.kernel("matmul_tiled");
    runtime::KernelArgs args;
    args.add(dA).add(dB).add(dC).add(n);
    g.module = &k.module();
    g.kernel = k.index();
    g.grid = {1, 1, 1};
    g.block = {16, 16, 1};
    g.params = runtime::pack_arguments(k.function(), args);
    g.mem = &ctx.memory();
  }

  // Steps warps round-robin, one instruction each, `steps` times in total.
  static void advance(exec::ThreadBlock& tb, int steps) {
    while (steps > 0) {
      bool any = false;
      for (exec::Warp& w : tb.warps())
        if (w.ready() && steps > 0) {
          w.step();
          --steps;
          any = true;
        }
      ASSERT_TRUE(any) << "TB finished or blocked before the requested steps";
    }
  }
  std::vector<float> result() { return ctx.read<float>(dC, n * n); }
};

TEST_F(TbStateTest, SavedTbResumesToTheSameResult) {
  exec::ThreadBlock tb(g, {0, 0, 0}, 0);
  while (tb.warps()[0].ready()) tb.warps()[0].step();  // warp 0 waits at the first barrier
  advance(tb, 30);                                      // the others are mid-way
  exec::ThreadBlock saved = tb;  // context save
  bool someone_waits = false;
  for (const exec::Warp& w : saved.warps()) someone_waits |= w.state() == exec::WarpState::AtBarrier;
  EXPECT_TRUE(someone_waits);
  tb.run_to_completion();
  EXPECT_EQ(result(), ref);

  ctx.memset(dC, 0, n * n * 4);
  exec::ThreadBlock restored(g, {0, 0, 0}, 3);  // another SM's TB slot
  restored = saved;                             // context restore
  EXPECT_EQ(&restored.warps()[0].tb(), &restored);  // warps follow the copy
  restored.run_to_completion();
  EXPECT_EQ(result(), ref);
}

TEST_F(TbStateTest, DiscardedTbRerunsFromTheStart) {
  {
    exec::ThreadBlock tb(g, {0, 0, 0}, 0);
    advance(tb, 150);
  }  // flushed: progress dropped (the kernel has stored nothing yet: idempotent)
  exec::ThreadBlock again(g, {0, 0, 0}, 0);
  again.run_to_completion();
  EXPECT_EQ(result(), ref);
}

TEST_F(TbStateTest, SingleWarpStateSavesAndRestores) {
  exec::ThreadBlock tb(g, {0, 0, 0}, 0);
  advance(tb, 40);
  exec::Warp& w = tb.warps()[2];
  exec::Warp saved = w;  // warp-level preemption: save one warp
  uint32_t pc = w.pc();
  // It runs on for a few instructions (short of a barrier: barrier arrivals
  // are TB state, which warp-level preemption leaves alone)...
  for (int i = 0; i < 3 && w.ready() && w.next_instruction().op != ptx::Opcode::Bar; ++i) w.step();
  EXPECT_NE(w.pc(), pc);
  w = saved;  // ...and is rolled back
  EXPECT_EQ(w.pc(), pc);
  tb.run_to_completion();
  EXPECT_EQ(result(), ref);
}

}  // namespace
}  // namespace gpumux
