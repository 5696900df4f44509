// The video instructions against values worked out by hand from the PTX ISA's
// semantics: selectors, sign extension, saturation to the destination's or
// the merged field's range, the secondary operation, the merge into c, the
// SIMD lane mask and the .add accumulate.
#include "exec_compute/inst_builder.h"
#include "ptx/ptx_test_util.h"

namespace gpumux::test {
namespace {

// Runs the video instruction `text` (operands d, a, b[, c]) with a, b, c in every lane.
uint32_t video(const std::string& text, uint32_t a, uint32_t b, uint32_t c = 0) {
  ptx::Instruction in = ptx::test::parse_one(text);
  for (unsigned i = 0; i < in.nops; ++i) in.ops[i] = R(uint16_t(i));
  Regs regs;
  regs.fill(1, a);
  regs.fill(2, b);
  regs.fill(3, c);
  run(in, regs);
  for (unsigned l = 1; l < exec::kWarpSize; ++l) EXPECT_EQ(regs.at(0, l), regs.at(0, 0)) << "lane " << l;
  return uint32_t(regs.at(0, 0));
}

TEST(ComputeVideo, QuadByteArithmeticWithSaturation) {
  // Bytes (low first) 02 01 ff 80 + 04 03 02 90: 06 04 (1)01 (1)10.
  EXPECT_EQ(video("vadd4.u32.u32.u32 %r0, %r1, %r2, %r3;", 0x80ff0102, 0x90020304), 0x10010406u);
  EXPECT_EQ(video("vadd4.u32.u32.u32.sat %r0, %r1, %r2, %r3;", 0x80ff0102, 0x90020304), 0xffff0406u);
  // 5-10 = -5; 0-0; -128-127 = -255 -> -128; 127-(-128) = 255 -> 127.
  EXPECT_EQ(video("vsub4.s32.s32.s32.sat %r0, %r1, %r2, %r3;", 0x7f800005, 0x807f000a), 0x7f8000fbu);
  // Rounded averages: (3+0+1)/2 = 2, (255+255+1)/2 = 255, (0+1+1)/2 = 1, (16+17+1)/2 = 17.
  EXPECT_EQ(video("vavrg4.u32.u32.u32 %r0, %r1, %r2, %r3;", 0x1000ff03, 0x1101ff00), 0x1101ff02u);
  // |a-b| per byte, signed: |-1-1| = 2, |127-(-128)| = 255.
  EXPECT_EQ(video("vabsdiff4.s32.s32.s32 %r0, %r1, %r2, %r3;", 0x00007fff, 0x00008001), 0x0000ff02u);
}

TEST(ComputeVideo, QuadByteSelectorsMaskAndAccumulate) {
  // a bytes: -128 127 -16 1; b bytes: -1 5. Lane 0: min(a3, b1) = 1; lane 2:
  // min(a1, b0) = -1; lanes 1 and 3 keep c's bytes.
  EXPECT_EQ(video("vmin4.s32.s32.s32 %r0.b20, %r1.b0123, %r2.b4455, %r3;", 0x01f07f80, 0x000005ff, 0xaabbccdd),
            0xaaffcc01u);
  // max per lane 4 3 3 4, summed into c = 100.
  EXPECT_EQ(video("vmax4.u32.u32.u32.add %r0, %r1, %r2, %r3;", 0x01020304, 0x04030201, 100), 114u);
  // Only the masked lanes accumulate: lanes 1 and 0 (4 + 3).
  EXPECT_EQ(video("vmax4.u32.u32.u32.add %r0.b10, %r1, %r2, %r3;", 0x01020304, 0x04030201, 0), 7u);
  // Sum of absolute differences (CUDA's __vsadu4): 3+1+1+3.
  EXPECT_EQ(video("vabsdiff4.u32.u32.u32.add %r0, %r1, %r2, %r3;", 0x01020304, 0x04030201, 0), 8u);
  // Comparisons give 0 or 1 per lane: 4<1, 3<2 no; 2<3, 1<4 yes.
  EXPECT_EQ(video("vset4.u32.u32.lt.add %r0, %r1, %r2, %r3;", 0x01020304, 0x04030201, 10), 12u);
  EXPECT_EQ(video("vset4.u32.u32.ne %r0, %r1, %r2, %r3;", 0x01020304, 0x01990304), 0x00010000u);
  // Signed against unsigned: 0xff is -1 in a (s32), 255 in b (u32).
  EXPECT_EQ(video("vset4.s32.u32.lt %r0, %r1, %r2, %r3;", 0x000000ff, 0x000000ff), 0x00000001u);
}

TEST(ComputeVideo, DualHalfForms) {
  // Lane 0: a.h1 + b.h0 = 32752 + 32 -> 32767; lane 1: a.h0 + b.h1 = 16 + 256.
  EXPECT_EQ(video("vadd2.s32.s32.s32.sat %r0, %r1.h01, %r2.h32, %r3;", 0x7ff00010, 0x01000020), 0x01107fffu);
  // Lane 1 only: 5 - 7 wraps to 0xfffe; lane 0 is c's.
  EXPECT_EQ(video("vsub2.u32.u32.u32 %r0.h1, %r1, %r2, %r3;", 0x00050009, 0x00070001, 0x12345678), 0xfffe5678u);
  // (-3 + 0) rounds away from zero to -2; (5 + 2 + 1) / 2 = 4.
  EXPECT_EQ(video("vavrg2.s32.s32.s32 %r0, %r1, %r2, %r3;", 0x0005fffd, 0x00020000), 0x0004fffeu);
  EXPECT_EQ(video("vset2.s32.s32.ge %r0, %r1, %r2, %r3;", 0xffff0003, 0x00000003), 0x00000001u);
  EXPECT_EQ(video("vmin2.u32.u32.u32.add %r0, %r1, %r2, %r3;", 0x00100200, 0x00200100, 1), 0x111u);
  EXPECT_EQ(video("vsub2.s32.s32.s32.sat %r0, %r1, %r2, %r3;", 0x80000001, 0x00010002), 0x8000ffffu);
}

TEST(ComputeVideo, ScalarFormsSelectSaturateCombineAndMerge) {
  // a.b1 = 0x80 (-128 as s32) + b.b3 = 2: -126, clamped to u32 by .sat.
  EXPECT_EQ(video("vadd.u32.s32.s32 %r0, %r1.b1, %r2.b3;", 0x8000, 0x02000000), 0xffffff82u);
  EXPECT_EQ(video("vadd.u32.s32.s32.sat %r0, %r1.b1, %r2.b3;", 0x8000, 0x02000000), 0u);
  EXPECT_EQ(video("vsub.s32.s32.s32.sat %r0, %r1, %r2;", 0x80000000, 1), 0x80000000u);
  EXPECT_EQ(video("vsub.s32.s32.s32.sat %r0, %r1, %r2;", 0x7fffffff, 0xffffffff), 0x7fffffffu);
  EXPECT_EQ(video("vsub.u32.u32.u32 %r0, %r1, %r2;", 3, 5), 0xfffffffeu);
  // 33-bit inputs: u32 0xffffffff - s32 -1 = 2^32, clamped to u32.
  EXPECT_EQ(video("vsub.u32.u32.s32.sat %r0, %r1, %r2;", 0xffffffff, 0xffffffff), 0xffffffffu);
  // |(-10) - 20| + c.
  EXPECT_EQ(video("vabsdiff.u32.s32.s32.add %r0, %r1.h0, %r2.h1, %r3;", 0x0000fff6, 0x00140000, 5), 35u);
  // max(200, -100) = 200, clamped to s8 for the byte field, merged into byte 2 of c.
  EXPECT_EQ(video("vmax.s32.u32.s32.sat %r0.b2, %r1.b0, %r2.h1, %r3;", 0xc8, 0xff9c0000, 0x11223344), 0x117f3344u);
  // The low half of 0x1ffff into half 1 of c.
  EXPECT_EQ(video("vadd.u32.u32.u32 %r0.h1, %r1, %r2, %r3;", 0x10000, 0xffff, 0x12345678), 0xffff5678u);
  EXPECT_EQ(video("vmin.s32.s32.s32.max %r0, %r1, %r2, %r3;", 5, 9, 0xfffffff0), 5u);
  EXPECT_EQ(video("vmin.s32.s32.s32.min %r0, %r1, %r2, %r3;", 5, 9, 0xfffffff0), 0xfffffff0u);
  EXPECT_EQ(video("vmin.u32.u32.u32.min %r0, %r1, %r2, %r3;", 5, 9, 0xfffffff0), 5u);  // c unsigned
  EXPECT_EQ(video("vset.u32.s32.gt.max %r0, %r1.h1, %r2.b2, %r3;", 0x00010000, 0x00ff0000, 0), 1u);
  EXPECT_EQ(video("vset.u32.u32.lt %r0, %r1, %r2;", 2, 1), 0u);
}

TEST(ComputeVideo, ScalarShiftsClampOrWrapTheAmount) {
  // 1 << min(40, 32) = 2^32, then min with c = 16.
  EXPECT_EQ(video("vshl.u32.u32.u32.clamp.min %r0, %r1, %r2.b0, %r3;", 1, 40, 16), 16u);
  EXPECT_EQ(video("vshl.u32.u32.u32.sat.clamp %r0, %r1, %r2;", 0x80000000, 1), 0xffffffffu);
  EXPECT_EQ(video("vshl.u32.u32.u32.wrap %r0, %r1, %r2;", 3, 33), 6u);  // 33 & 31 = 1
  EXPECT_EQ(video("vshr.s32.s32.u32.wrap %r0, %r1, %r2;", 0x80000000, 4), 0xf8000000u);
  EXPECT_EQ(video("vshr.u32.u32.u32.clamp %r0, %r1, %r2;", 0x80000000, 100), 0u);
}

}  // namespace
}  // namespace gpumux::test
