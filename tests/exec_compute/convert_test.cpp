#include <cfenv>
#include <cmath>
#include <limits>

#include "exec_compute/inst_builder.h"

namespace gpumux::test {
namespace {

using ptx::Rounding;

uint64_t cvt(Type d, Type s, Rounding r, uint64_t v) { return eval(Inst(Opcode::Cvt, d, s).rnd(r), {v}); }

TEST(ComputeCvt, F32ToF16EdgeCases) {
  auto h = [](float v, Rounding r = Rounding::Rn) { return cvt(Type::F16, Type::F32, r, f32(v)); };
  EXPECT_EQ(h(1.0f), 0x3c00u);
  EXPECT_EQ(h(65504.0f), 0x7bffu);   // largest half
  EXPECT_EQ(h(65519.0f), 0x7bffu);
  EXPECT_EQ(h(65520.0f), 0x7c00u);   // rounds up to inf
  EXPECT_EQ(h(1e10f), 0x7c00u);
  EXPECT_EQ(h(-INFINITY), 0xfc00u);
  EXPECT_EQ(h(-0.0f), 0x8000u);
  EXPECT_EQ(h(NAN), 0x7fffu);        // canonical NaN
  EXPECT_EQ(h(0x1p-14f), 0x0400u);   // smallest normal
  EXPECT_EQ(h(0x1p-24f), 0x0001u);   // smallest subnormal
  EXPECT_EQ(h(0x1p-25f), 0x0000u);   // tie between 0 and 2^-24: to even
  EXPECT_EQ(h(0x3p-26f), 0x0001u);
  EXPECT_EQ(h(0x3p-25f), 0x0002u);   // tie between 1 and 2 ulps: to even
  EXPECT_EQ(h(0x1.ff8p-15f), 0x03ffu);  // largest subnormal
  EXPECT_EQ(h(0x1.ffcp-15f), 0x0400u);  // tie rounding up into the normals
  // 1 + 2^-11 + 2^-20 lies just above the midpoint of 1 and 1 + 2^-10.
  const float above = 1.0f + 0x1p-11f + 0x1p-20f;
  EXPECT_EQ(h(above, Rounding::Rn), 0x3c01u);
  EXPECT_EQ(h(above, Rounding::Rz), 0x3c00u);
  EXPECT_EQ(h(above, Rounding::Rm), 0x3c00u);
  EXPECT_EQ(h(above, Rounding::Rp), 0x3c01u);
  EXPECT_EQ(h(-above, Rounding::Rm), 0xbc01u);
  EXPECT_EQ(h(-above, Rounding::Rp), 0xbc00u);
  // Overflow with directed modes stops at the largest finite value.
  EXPECT_EQ(h(65520.0f, Rounding::Rz), 0x7bffu);
  EXPECT_EQ(h(1e10f, Rounding::Rm), 0x7bffu);
  EXPECT_EQ(h(-1e10f, Rounding::Rm), 0xfc00u);
  EXPECT_EQ(h(-1e10f, Rounding::Rp), 0xfbffu);
  EXPECT_EQ(h(0x1p-30f, Rounding::Rp), 0x0001u);
  EXPECT_EQ(cvt(Type::F16, Type::F64, Rounding::Rn, f64(65504.0)), 0x7bffu);
  EXPECT_EQ(cvt(Type::F16, Type::F64, Rounding::Rn, f64(0x1p-24 + 0x1p-60)), 0x0001u);
}

TEST(ComputeCvt, F16ToWider) {
  EXPECT_EQ(cvt(Type::F32, Type::F16, Rounding::None, 0x0001), f32(0x1p-24f));
  EXPECT_EQ(cvt(Type::F32, Type::F16, Rounding::None, 0x03ff), f32(1023 * 0x1p-24f));
  EXPECT_EQ(cvt(Type::F32, Type::F16, Rounding::None, 0x7bff), f32(65504.0f));
  EXPECT_EQ(cvt(Type::F32, Type::F16, Rounding::None, 0xfc00), f32(-INFINITY));
  EXPECT_EQ(cvt(Type::F32, Type::F16, Rounding::None, 0x8000), f32(-0.0f));
  EXPECT_EQ(cvt(Type::F32, Type::F16, Rounding::None, 0x7e00), 0x7fffffffu);
  EXPECT_EQ(cvt(Type::F64, Type::F16, Rounding::None, 0xc500), f64(-5.0));
  EXPECT_EQ(cvt(Type::F64, Type::F32, Rounding::None, 0x7fc00000), 0x7fffffffffffffffu);
}

TEST(ComputeCvt, BFloat16) {
  EXPECT_EQ(cvt(Type::BF16, Type::F32, Rounding::Rn, 0x3f800000), 0x3f80u);
  EXPECT_EQ(cvt(Type::BF16, Type::F32, Rounding::Rn, 0x3f808000), 0x3f80u);  // tie: to even
  EXPECT_EQ(cvt(Type::BF16, Type::F32, Rounding::Rn, 0x3f818000), 0x3f82u);  // tie: to even
  EXPECT_EQ(cvt(Type::BF16, Type::F32, Rounding::Rn, 0x3f808001), 0x3f81u);
  EXPECT_EQ(cvt(Type::BF16, Type::F32, Rounding::Rz, 0x3f80ffff), 0x3f80u);
  EXPECT_EQ(cvt(Type::BF16, Type::F32, Rounding::Rn, 0x7f7fffff), 0x7f80u);  // overflow to inf
  EXPECT_EQ(cvt(Type::BF16, Type::F32, Rounding::Rn, 0x7fc00001), 0x7fffu);
  EXPECT_EQ(cvt(Type::BF16, Type::F32, Rounding::Rn, 0x00010000), 0x0001u);  // subnormal
  EXPECT_EQ(cvt(Type::F32, Type::BF16, Rounding::None, 0x0001), 0x00010000u);
  EXPECT_EQ(cvt(Type::F32, Type::BF16, Rounding::None, 0xc040), f32(-3.0f));
  EXPECT_EQ(cvt(Type::BF16, Type::S64, Rounding::Rn, 0x8000000000000000ull), 0xdf00u);  // -2^63
  EXPECT_EQ(cvt(Type::BF16, Type::F16, Rounding::Rn, 0x3c00), 0x3f80u);
}

TEST(ComputeCvt, FloatNarrowingAndIntToFloat) {
  EXPECT_EQ(cvt(Type::F32, Type::F64, Rounding::Rn, f64(1.0 / 3)), 0x3eaaaaabu);
  EXPECT_EQ(cvt(Type::F32, Type::F64, Rounding::Rz, f64(1.0 / 3)), 0x3eaaaaaau);
  EXPECT_EQ(cvt(Type::F32, Type::F64, Rounding::Rz, f64(1e300)), 0x7f7fffffu);
  EXPECT_EQ(cvt(Type::F32, Type::F64, Rounding::Rn, f64(1e300)), f32(INFINITY));
  EXPECT_EQ(cvt(Type::F32, Type::S32, Rounding::Rn, 16777217), 0x4b800000u);  // tie: to even
  EXPECT_EQ(cvt(Type::F32, Type::S32, Rounding::Rp, 16777217), 0x4b800001u);
  EXPECT_EQ(cvt(Type::F32, Type::S32, Rounding::Rm, uint32_t(-16777217)), 0xcb800001u);
  EXPECT_EQ(cvt(Type::F32, Type::U64, Rounding::Rn, ~0ull), 0x5f800000u);  // 2^64
  EXPECT_EQ(cvt(Type::F32, Type::U64, Rounding::Rz, ~0ull), 0x5f7fffffu);
  EXPECT_EQ(cvt(Type::F32, Type::U32, Rounding::Rz, 0xffffffff), 0x4f7fffffu);
  EXPECT_EQ(cvt(Type::F64, Type::S64, Rounding::Rn, 0x8000000000000000ull), f64(-0x1p63));
  EXPECT_EQ(cvt(Type::F64, Type::U64, Rounding::Rm, ~0ull), f64(0x1.fffffffffffffp63));
  EXPECT_EQ(cvt(Type::F16, Type::S32, Rounding::Rn, 70000), 0x7c00u);
  EXPECT_EQ(cvt(Type::F16, Type::S32, Rounding::Rz, 70000), 0x7bffu);
  EXPECT_EQ(cvt(Type::F16, Type::S32, Rounding::Rn, uint32_t(-3)), 0xc200u);
  EXPECT_EQ(cvt(Type::F16, Type::U8, Rounding::Rn, 0x1ff), 0x5bf8u);  // only the low byte: 255
  EXPECT_EQ(cvt(Type::F16, Type::S32, Rounding::Rn, 2049), 0x6800u);  // tie: to even
  EXPECT_EQ(cvt(Type::F32, Type::S32, Rounding::None, 7), f32(7.0f));  // .rn by default
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
}

TEST(ComputeCvt, FloatToIntRoundsAndSaturates) {
  auto s32 = [](float v, Rounding r) { return cvt(Type::S32, Type::F32, r, f32(v)); };
  EXPECT_EQ(s32(2.7f, Rounding::Rzi), 2u);
  EXPECT_EQ(s32(-2.7f, Rounding::Rzi), 0xfffffffeu);
  EXPECT_EQ(s32(2.5f, Rounding::Rni), 2u);
  EXPECT_EQ(s32(3.5f, Rounding::Rni), 4u);
  EXPECT_EQ(s32(-2.5f, Rounding::Rni), 0xfffffffeu);
  EXPECT_EQ(s32(-2.1f, Rounding::Rmi), 0xfffffffdu);
  EXPECT_EQ(s32(2.1f, Rounding::Rpi), 3u);
  EXPECT_EQ(s32(3e9f, Rounding::Rzi), 0x7fffffffu);
  EXPECT_EQ(s32(-3e9f, Rounding::Rzi), 0x80000000u);
  EXPECT_EQ(s32(INFINITY, Rounding::Rni), 0x7fffffffu);
  EXPECT_EQ(s32(NAN, Rounding::Rzi), 0u);
  EXPECT_EQ(cvt(Type::U32, Type::F32, Rounding::Rzi, f32(-1.5f)), 0u);
  EXPECT_EQ(cvt(Type::U32, Type::F32, Rounding::Rzi, f32(5e9f)), 0xffffffffu);
  EXPECT_EQ(cvt(Type::U8, Type::F32, Rounding::Rzi, f32(300.0f)), 0xffu);
  EXPECT_EQ(cvt(Type::S8, Type::F32, Rounding::Rzi, f32(-200.0f)), 0xffffffffffffff80ull);
  // NaN: 1 << (width - 1) for an .f64 source or a 64-bit destination.
  EXPECT_EQ(cvt(Type::S32, Type::F64, Rounding::Rzi, f64(NAN)), 0x80000000u);
  EXPECT_EQ(cvt(Type::U32, Type::F64, Rounding::Rzi, f64(NAN)), 0x80000000u);
  EXPECT_EQ(cvt(Type::U64, Type::F32, Rounding::Rzi, f32(NAN)), 0x8000000000000000ull);
  EXPECT_EQ(cvt(Type::U16, Type::F32, Rounding::Rzi, f32(NAN)), 0u);
  EXPECT_EQ(cvt(Type::S64, Type::F64, Rounding::Rzi, f64(9.3e18)), 0x7fffffffffffffffull);
  EXPECT_EQ(cvt(Type::S64, Type::F64, Rounding::Rzi, f64(-9.3e18)), 0x8000000000000000ull);
  EXPECT_EQ(cvt(Type::S64, Type::F64, Rounding::Rni, f64(0x1p63)), 0x7fffffffffffffffull);
  EXPECT_EQ(cvt(Type::U64, Type::F64, Rounding::Rzi, f64(1.8e19)), 18000000000000000000ull);
  EXPECT_EQ(cvt(Type::U64, Type::F64, Rounding::Rzi, f64(2e19)), ~0ull);
  EXPECT_EQ(cvt(Type::S32, Type::F16, Rounding::Rni, 0x4100), 2u);  // 2.5
  // .ftz flushes a subnormal .f32 input before rounding.
  EXPECT_EQ(cvt(Type::S32, Type::F32, Rounding::Rmi, 0x80000001), 0xffffffffu);
  EXPECT_EQ(eval(Inst(Opcode::Cvt, Type::S32, Type::F32).rnd(Rounding::Rmi).ftz(), {0x80000001}), 0u);
}

TEST(ComputeCvt, IntToInt) {
  auto c = [](Type d, Type s, uint64_t v, bool sat = false) {
    Inst i(Opcode::Cvt, d, s);
    if (sat) i.sat();
    return eval(i, {v});
  };
  EXPECT_EQ(c(Type::S32, Type::S8, 0xff), 0xffffffffu);
  EXPECT_EQ(c(Type::U32, Type::U8, 0x1ff), 0xffu);
  EXPECT_EQ(c(Type::S64, Type::S32, 0x80000000), 0xffffffff80000000ull);
  EXPECT_EQ(c(Type::U64, Type::S32, 0x80000000), 0xffffffff80000000ull);
  EXPECT_EQ(c(Type::U64, Type::U32, 0x80000000), 0x80000000u);
  EXPECT_EQ(c(Type::U16, Type::U32, 0x12345), 0x2345u);
  EXPECT_EQ(c(Type::U32, Type::U64, 0x123456789ull), 0x23456789u);
  // A narrow signed result is extended to the whole register.
  EXPECT_EQ(c(Type::S8, Type::S32, 0x80), 0xffffffffffffff80ull);
  EXPECT_EQ(c(Type::S16, Type::U32, 0x18000), 0xffffffffffff8000ull);
  EXPECT_EQ(c(Type::S8, Type::S32, 300, true), 0x7fu);
  EXPECT_EQ(c(Type::S8, Type::S32, uint32_t(-300), true), 0xffffffffffffff80ull);
  EXPECT_EQ(c(Type::U8, Type::S32, uint32_t(-5), true), 0u);
  EXPECT_EQ(c(Type::U32, Type::S32, 0xffffffff, true), 0u);
  EXPECT_EQ(c(Type::S32, Type::U32, 0xffffffff, true), 0x7fffffffu);
  EXPECT_EQ(c(Type::U16, Type::U64, 0x10000, true), 0xffffu);
  EXPECT_EQ(c(Type::S64, Type::U64, ~0ull, true), 0x7fffffffffffffffull);
  EXPECT_EQ(c(Type::U64, Type::S64, ~0ull, true), 0u);
}

TEST(ComputeCvt, FloatToFloatIntegerRoundingFtzSat) {
  EXPECT_EQ(cvt(Type::F32, Type::F32, Rounding::Rni, f32(2.5f)), f32(2.0f));
  EXPECT_EQ(cvt(Type::F32, Type::F32, Rounding::Rzi, f32(-2.7f)), f32(-2.0f));
  EXPECT_EQ(cvt(Type::F32, Type::F32, Rounding::Rpi, f32(-0.5f)), 0x80000000u);
  EXPECT_EQ(cvt(Type::F64, Type::F64, Rounding::Rmi, f64(-0.5)), f64(-1.0));
  EXPECT_EQ(cvt(Type::F64, Type::F64, Rounding::Rni, f64(0x1p60 + 0x1p8)), f64(0x1p60 + 0x1p8));
  EXPECT_EQ(cvt(Type::F16, Type::F16, Rounding::Rni, 0x4100), 0x4000u);  // 2.5 -> 2
  EXPECT_EQ(eval(Inst(Opcode::Cvt, Type::F32, Type::F32).sat(), {f32(2.0f)}), f32(1.0f));
  EXPECT_EQ(eval(Inst(Opcode::Cvt, Type::F32, Type::F32).sat(), {0x7fc00000}), 0u);
  EXPECT_EQ(eval(Inst(Opcode::Cvt, Type::F32, Type::F32).ftz(), {0x00000005}), 0u);
  EXPECT_EQ(eval(Inst(Opcode::Cvt, Type::F32, Type::F64).rnd(Rounding::Rn).ftz(), {f64(0x1p-140)}), 0u);
  EXPECT_EQ(eval(Inst(Opcode::Cvt, Type::F32, Type::F64).rnd(Rounding::Rn), {f64(0x1p-140)}), 0x200u);
}

TEST(ComputeCvt, PackTwoFloatsIntoPairs) {
  EXPECT_EQ(eval(Inst(Opcode::Cvt, Type::F16x2, Type::F32).rnd(Rounding::Rn), {f32(1.0f), f32(2.0f)}),
            0x3c004000u);
  EXPECT_EQ(eval(Inst(Opcode::Cvt, Type::BF16x2, Type::F32).rnd(Rounding::Rn), {f32(1.0f), f32(-2.0f)}),
            0x3f80c000u);
  EXPECT_EQ(eval(Inst(Opcode::Cvt, Type::F16x2, Type::F32).rnd(Rounding::Rz), {f32(65520.0f), f32(1e10f)}),
            0x7bff7bffu);
}

TEST(ComputeCvt, Rejections) {
  auto r = [](Inst i) { return rejection(i.ops({R(0), R(1)})); };
  EXPECT_EQ(r(Inst(Opcode::Cvt, Type::S32, Type::F32)),
            "cvt.s32.f32 not supported (needs .rni, .rzi, .rmi or .rpi)");
  EXPECT_NE(r(Inst(Opcode::Cvt, Type::F32, Type::S32).rnd(Rounding::Rni)), "");
  EXPECT_NE(r(Inst(Opcode::Cvt, Type::F64, Type::F32).rnd(Rounding::Rni)), "");
  EXPECT_NE(r(Inst(Opcode::Cvt, Type::F64, Type::S32).ftz()), "");
  EXPECT_NE(r(Inst(Opcode::Cvt, Type::S32, Type::S16).rnd(Rounding::Rn)), "");
  EXPECT_NE(r(Inst(Opcode::Cvt, Type::F16x2, Type::F32).rnd(Rounding::Rn)), "");  // needs two sources
  EXPECT_EQ(rejection(Inst(Opcode::Cvt, Type::F16x2, Type::F16).rnd(Rounding::Rn).ops({R(0), R(1), R(2)})),
            "cvt.rn.f16x2.f16 not supported");
  EXPECT_NE(r(Inst(Opcode::Cvt, Type::B32, Type::F32).rnd(Rounding::Rzi)), "");
}

}  // namespace
}  // namespace gpumux::test
