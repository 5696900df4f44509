// WARP_SZ, carry arithmetic, bmsk, redux.sync and the new special registers in one kernel,
// run functionally and on the timing model, against hand-computed results.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "gpumux/gpu/gpu.h"
#include "gpumux/runtime/runtime.h"
#include "gpumux/timing/timing_backend.h"

namespace gpumux {
namespace {

// Thread t writes 8 words at out + 32 t.
constexpr const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 32;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r2, WARP_SZ;
  st.global.u32 [%rd3], %r2;
  mov.u32 %r4, -1;
  add.cc.u32 %r3, %r4, 1;         // (t : 0xffffffff) + (0 : 1) = (t + 1 : 0)
  addc.u32 %r5, %r1, 0;
  st.global.u32 [%rd3+4], %r3;
  st.global.u32 [%rd3+8], %r5;
  bmsk.clamp.b32 %r6, %r1, 4;     // 0xf << t, cut at bit 31
  st.global.u32 [%rd3+12], %r6;
  redux.sync.add.u32 %r7, %r1, 0xffffffff;
  st.global.u32 [%rd3+16], %r7;
  sub.cc.u32 %r8, %r1, 1;         // borrows in thread 0 only
  subc.u32 %r9, 10, 0;
  st.global.u32 [%rd3+20], %r9;
  sub.s32 %r10, 0, %r1;
  redux.sync.min.s32 %r11, %r10, 0xffffffff;
  st.global.u32 [%rd3+24], %r11;
  mov.u32 %r12, %clock_hi;        // the high half of a small cycle count
  mov.u32 %r13, %pm3;             // performance counters are not modeled
  or.b32 %r12, %r12, %r13;
  mov.u64 %rd4, %current_graph_exec;  // not launched from a graph
  cvt.u32.u64 %r14, %rd4;
  or.b32 %r12, %r12, %r14;
  st.global.u32 [%rd3+28], %r12;
  ret;
}
)";

void run_and_check(runtime::Device& dev) {
  runtime::Context& ctx = dev.create_context("new-instructions");
  runtime::Module& mod = ctx.load_module_string(kPtx, "new_instructions.ptx");
  runtime::DevPtr out = ctx.malloc(32 * 32);
  ctx.launch(mod.kernel("k"), {1}, {32}, out);
  ctx.synchronize();
  std::vector<uint32_t> w(32 * 8);
  ctx.memcpy_d2h(w.data(), out, w.size() * 4);
  for (uint32_t t = 0; t < 32; ++t) {
    SCOPED_TRACE(t);
    const uint32_t* o = &w[t * 8];
    EXPECT_EQ(o[0], 32u);
    EXPECT_EQ(o[1], 0u);
    EXPECT_EQ(o[2], t + 1);
    EXPECT_EQ(o[3], uint32_t(uint64_t(0xf) << t));
    EXPECT_EQ(o[4], 496u);  // 0 + 1 + ... + 31
    EXPECT_EQ(o[5], t == 0 ? 9u : 10u);
    EXPECT_EQ(o[6], uint32_t(-31));
    EXPECT_EQ(o[7], 0u);
  }
}

TEST(NewInstructions, Functional) {
  runtime::Device dev;
  run_and_check(dev);
}

TEST(NewInstructions, TimingModel) {
  std::unique_ptr<runtime::Device> dev = timing::make_device(gpu::load_config("gtx980").values());
  run_and_check(*dev);
}

}  // namespace
}  // namespace gpumux
