// Special registers read by whole warps: %tid of 3-D blocks whose rows do not
// fill a warp (the last warp partial), under a partial mask, and the values
// the same in every lane (%ctaid, %ntid, %warpid), against the CPU.
#include <gtest/gtest.h>

#include <vector>

#include "gpumux/runtime/runtime.h"

namespace gpumux {
namespace {

// Thread t of the block writes 6 words at out + 24 (ctaid.x * threads + t):
// tid.x, tid.y, tid.z, laneid, ctaid.x and ntid.y + 100 * warpid; threads
// whose tid.x is 2 skip the first three (a partial mask).
constexpr const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 threads)
{
  .reg .pred %p<2>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r10, [threads];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mov.u32 %r3, %tid.z;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %ntid.y;
  mad.lo.u32 %r6, %r3, %r5, %r2;
  mad.lo.u32 %r6, %r6, %r4, %r1;
  mov.u32 %r7, %ctaid.x;
  mad.lo.u32 %r6, %r7, %r10, %r6;
  mul.wide.u32 %rd2, %r6, 24;
  add.s64 %rd3, %rd1, %rd2;
  setp.eq.u32 %p1, %r1, 2;
  @%p1 bra SKIP;
  mov.u32 %r11, %tid.x;
  mov.u32 %r12, %tid.y;
  mov.u32 %r13, %tid.z;
  st.global.u32 [%rd3], %r11;
  st.global.u32 [%rd3+4], %r12;
  st.global.u32 [%rd3+8], %r13;
SKIP:
  mov.u32 %r8, %laneid;
  st.global.u32 [%rd3+12], %r8;
  st.global.u32 [%rd3+16], %r7;
  mov.u32 %r9, %warpid;
  mad.lo.u32 %r9, %r9, 100, %r5;
  st.global.u32 [%rd3+20], %r9;
  ret;
}
)";

TEST(SpecialRegisters, ThreadIndicesOfOddBlocksMatchTheCpu) {
  runtime::Device dev;
  runtime::Context& ctx = dev.create_context("special-registers");
  runtime::Module& mod = ctx.load_module_string(kPtx, "special_registers.ptx");
  const uint32_t bx = 5, by = 3, bz = 3, threads = bx * by * bz, blocks = 2;  // 45 threads: a full and a partial warp
  runtime::DevPtr out = ctx.malloc_copy(std::vector<uint32_t>(blocks * threads * 6, 0xffffffffu));
  ctx.launch(mod.kernel("k"), {blocks}, {bx, by, bz}, out, threads);
  std::vector<uint32_t> got = ctx.read<uint32_t>(out, blocks * threads * 6);
  for (uint32_t b = 0; b < blocks; ++b) {
    for (uint32_t t = 0; t < threads; ++t) {
      const uint32_t x = t % bx, y = t / bx % by, z = t / (bx * by);
      const uint32_t* w = &got[(b * threads + t) * 6];
      const bool skipped = x == 2;
      EXPECT_EQ(w[0], skipped ? 0xffffffffu : x) << "block " << b << " thread " << t;
      EXPECT_EQ(w[1], skipped ? 0xffffffffu : y) << "block " << b << " thread " << t;
      EXPECT_EQ(w[2], skipped ? 0xffffffffu : z) << "block " << b << " thread " << t;
      EXPECT_EQ(w[3], t % 32) << "block " << b << " thread " << t;
      EXPECT_EQ(w[4], b) << "block " << b << " thread " << t;
      EXPECT_EQ(w[5], by + 100 * (t / 32)) << "block " << b << " thread " << t;
    }
  }
}

}  // namespace
}  // namespace gpumux
