#include <cfenv>
#include <cmath>
#include <limits>

#include "exec_compute/inst_builder.h"

namespace gpumux::test {
namespace {

using ptx::Rounding;
using ptx::TestpMode;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr uint64_t kCanonicalNaN = 0x7fffffff;

// 1 + 2^-24 + 2^-30 lies just above the midpoint of 1 and 1 + 2^-23.
const uint64_t kOne = f32(1.0f), kAboveHalf = f32(0x1p-24f + 0x1p-30f);

TEST(ComputeFloat, AddRoundingModes) {
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F32), {kOne, kAboveHalf}), 0x3f800001u);
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F32).rnd(Rounding::Rn), {kOne, kAboveHalf}), 0x3f800001u);
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F32).rnd(Rounding::Rz), {kOne, kAboveHalf}), 0x3f800000u);
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F32).rnd(Rounding::Rm), {kOne, kAboveHalf}), 0x3f800000u);
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F32).rnd(Rounding::Rp), {kOne, kAboveHalf}), 0x3f800001u);
  const uint64_t neg_one = f32(-1.0f), neg_above = f32(-(0x1p-24f + 0x1p-30f));
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F32).rnd(Rounding::Rm), {neg_one, neg_above}), 0xbf800001u);
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F32).rnd(Rounding::Rp), {neg_one, neg_above}), 0xbf800000u);
  // Ties go to even.
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F32), {kOne, f32(0x1p-24f)}), 0x3f800000u);
  EXPECT_EQ(eval(Inst(Opcode::Sub, Type::F32).rnd(Rounding::Rp), {kOne, f32(-0x1p-24f)}), 0x3f800001u);
  // f64 directed rounding.
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F64).rnd(Rounding::Rz), {f64(1.0), f64(0x1p-53 + 0x1p-60)}), f64(1.0));
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F64).rnd(Rounding::Rp), {f64(1.0), f64(0x1p-60)}), f64(1.0 + 0x1p-52));
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);  // the host mode is restored
}

TEST(ComputeFloat, DivSqrtRcpRoundingModes) {
  const uint64_t three = f32(3.0f);
  EXPECT_EQ(eval(Inst(Opcode::Div, Type::F32).rnd(Rounding::Rn), {kOne, three}), 0x3eaaaaabu);
  EXPECT_EQ(eval(Inst(Opcode::Div, Type::F32).rnd(Rounding::Rz), {kOne, three}), 0x3eaaaaaau);
  EXPECT_EQ(eval(Inst(Opcode::Div, Type::F32).rnd(Rounding::Rm), {f32(-1.0f), three}), 0xbeaaaaabu);
  EXPECT_EQ(eval(Inst(Opcode::Div, Type::F32).rnd(Rounding::Rp), {f32(-1.0f), three}), 0xbeaaaaaau);
  EXPECT_EQ(eval(Inst(Opcode::Div, Type::F32).full(), {kOne, three}), 0x3eaaaaabu);
  EXPECT_EQ(eval(Inst(Opcode::Div, Type::F64).rnd(Rounding::Rn), {f64(1.0), f64(3.0)}), 0x3fd5555555555555u);
  EXPECT_EQ(eval(Inst(Opcode::Div, Type::F64).rnd(Rounding::Rp), {f64(1.0), f64(3.0)}), 0x3fd5555555555556u);
  EXPECT_EQ(eval(Inst(Opcode::Rcp, Type::F32).rnd(Rounding::Rz), {three}), 0x3eaaaaaau);
  EXPECT_EQ(eval(Inst(Opcode::Rcp, Type::F32).rnd(Rounding::Rp), {three}), 0x3eaaaaabu);
  EXPECT_EQ(eval(Inst(Opcode::Sqrt, Type::F32).rnd(Rounding::Rn), {f32(2.0f)}), 0x3fb504f3u);
  EXPECT_EQ(eval(Inst(Opcode::Sqrt, Type::F32).rnd(Rounding::Rp), {f32(2.0f)}), 0x3fb504f4u);
  EXPECT_EQ(eval(Inst(Opcode::Sqrt, Type::F64).rnd(Rounding::Rn), {f64(2.0)}), f64(std::sqrt(2.0)));
  EXPECT_TRUE(std::isnan(as_f32(eval(Inst(Opcode::Sqrt, Type::F32).rnd(Rounding::Rn), {f32(-1.0f)}))));
  EXPECT_EQ(eval(Inst(Opcode::Div, Type::F32).rnd(Rounding::Rn), {kOne, f32(0.0f)}), f32(kInf));
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
}

TEST(ComputeFloat, FmaIsFusedAndMadToo) {
  // (1 + 2^-12)^2 - (1 + 2^-11) = 2^-24 exactly; an unfused multiply loses it.
  const std::initializer_list<uint64_t> src = {0x3f800800, 0x3f800800, 0xbf801000};
  EXPECT_EQ(eval(Inst(Opcode::Fma, Type::F32).rnd(Rounding::Rn), src), f32(0x1p-24f));
  EXPECT_EQ(eval(Inst(Opcode::Mad, Type::F32).rnd(Rounding::Rn), src), f32(0x1p-24f));
  EXPECT_EQ(eval(Inst(Opcode::Mad, Type::F32), src), f32(0x1p-24f));
  EXPECT_EQ(eval(Inst(Opcode::Fma, Type::F64).rnd(Rounding::Rn),
                 {f64(1.0 + 0x1p-30), f64(1.0 + 0x1p-30), f64(-(1.0 + 0x1p-29))}),
            f64(0x1p-60));
  // Special values through the round-to-nearest path.
  auto fma = [](float a, float b, float c) {
    return eval(Inst(Opcode::Fma, Type::F32).rnd(Rounding::Rn), {f32(a), f32(b), f32(c)});
  };
  EXPECT_EQ(fma(0.0f, 1.0f, -0.0f), 0u);
  EXPECT_EQ(fma(-0.0f, 1.0f, -0.0f), 0x80000000u);
  EXPECT_EQ(fma(-1.0f, 1.0f, 1.0f), 0u);
  EXPECT_EQ(fma(INFINITY, 0.0f, 1.0f), 0x7fffffffu);
  EXPECT_EQ(fma(INFINITY, 1.0f, 1.0f), f32(INFINITY));
  EXPECT_EQ(fma(3.4028235e38f, 2.0f, -3.4028235e38f), f32(3.4028235e38f));  // no intermediate overflow
  EXPECT_EQ(fma(3.4028235e38f, 2.0f, 0.0f), f32(INFINITY));
  EXPECT_EQ(fma(0x1p-100f, 0x1p-40f, 0x1p-149f), 0x00000201u);  // subnormal result
  EXPECT_EQ(fma(0x1p-75f, 0x1p-75f, 0.0f), 0u);                 // 2^-150: tie to even zero
  EXPECT_EQ(fma(0x1.8p-75f, 0x1p-75f, 0.0f), 1u);               // 1.5 * 2^-150 rounds up
  // Directed rounding of an inexact fma: 1 * 1 + 2^-30.
  EXPECT_EQ(eval(Inst(Opcode::Fma, Type::F32).rnd(Rounding::Rp), {kOne, kOne, f32(0x1p-30f)}), 0x3f800001u);
  EXPECT_EQ(eval(Inst(Opcode::Fma, Type::F32).rnd(Rounding::Rz), {kOne, kOne, f32(0x1p-30f)}), 0x3f800000u);
}

// Every lane its own operands (the corner cases above among them), full and
// partial masks: each lane is the correctly rounded fused result (glibc's
// fmaf is exact), NaNs canonical, masked-off lanes untouched.
TEST(ComputeFloat, FmaPerLaneMatchesFusedReference) {
  const float special[][3] = {{0.0f, 1.0f, -0.0f},        {-0.0f, 1.0f, -0.0f},  {INFINITY, 0.0f, 1.0f},
                              {3.4028235e38f, 2.0f, -3.4028235e38f}, {0x1p-100f, 0x1p-40f, 0x1p-149f},
                              {0x1p-75f, 0x1p-75f, 0.0f}, {0x1.8p-75f, 0x1p-75f, 0.0f}, {NAN, 1.0f, 2.0f},
                              {1.0f + 0x1p-12f, 1.0f + 0x1p-12f, -(1.0f + 0x1p-11f)}};
  Regs regs;
  uint32_t seed = 12345;
  auto next = [&] { return seed = seed * 1664525u + 1013904223u; };
  for (unsigned l = 0; l < exec::kWarpSize; ++l) {
    for (uint16_t r = 1; r <= 3; ++r) {
      const size_t s = l % (2 * std::size(special));  // every other block of lanes random
      regs.at(r, l) = s < std::size(special) ? f32(special[s][r - 1]) : next();
    }
    regs.at(0, l) = 0xdead;
  }
  auto expected = [&](unsigned l) -> uint64_t {
    float r = std::fma(as_f32(regs.at(1, l)), as_f32(regs.at(2, l)), as_f32(regs.at(3, l)));
    return std::isnan(r) ? kCanonicalNaN : f32(r);
  };
  for (uint32_t mask : {exec::kFullMask, 0x5555aaaau}) {
    for (unsigned l = 0; l < exec::kWarpSize; ++l) regs.at(0, l) = 0xdead;
    run(Inst(Opcode::Fma, Type::F32).rnd(Rounding::Rn).ops({R(0), R(1), R(2), R(3)}), regs, mask);
    for (unsigned l = 0; l < exec::kWarpSize; ++l)
      EXPECT_EQ(regs.at(0, l), (mask >> l) & 1 ? expected(l) : 0xdead) << "lane " << l << " mask " << mask;
  }
}

TEST(ComputeFloat, FlushToZero) {
  const uint64_t tiny = 0x00000001, neg_tiny = 0x80000001;
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F32), {tiny, f32(0.0f)}), tiny);
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F32).ftz(), {tiny, f32(0.0f)}), 0u);
  EXPECT_EQ(eval(Inst(Opcode::Mul, Type::F32), {f32(0x1p-100f), f32(0x1p-40f)}), 0x00000200u);
  EXPECT_EQ(eval(Inst(Opcode::Mul, Type::F32).ftz(), {f32(0x1p-100f), f32(0x1p-40f)}), 0u);
  EXPECT_EQ(eval(Inst(Opcode::Mul, Type::F32).ftz(), {f32(-0x1p-100f), f32(0x1p-40f)}), 0x80000000u);
  EXPECT_EQ(eval(Inst(Opcode::Min, Type::F32), {neg_tiny, f32(0.0f)}), neg_tiny);
  EXPECT_EQ(eval(Inst(Opcode::Min, Type::F32).ftz(), {neg_tiny, f32(0.0f)}), 0x80000000u);
  EXPECT_EQ(eval(Inst(Opcode::Abs, Type::F32).ftz(), {neg_tiny}), 0u);
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F16).ftz(), {0x0001, 0x0000}), 0u);
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F16), {0x0001, 0x0000}), 1u);
}

TEST(ComputeFloat, Saturate) {
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F32).sat(), {f32(0.75f), f32(0.5f)}), f32(1.0f));
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F32).sat(), {f32(-0.5f), f32(0.25f)}), 0u);
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F32).sat(), {f32(kInf), f32(-kInf)}), 0u);  // NaN -> +0
  EXPECT_EQ(eval(Inst(Opcode::Mul, Type::F32).sat(), {f32(-0.0f), f32(1.0f)}), 0u);  // -0 -> +0
  EXPECT_EQ(eval(Inst(Opcode::Mul, Type::F32).sat(), {f32(0.5f), f32(0.5f)}), f32(0.25f));
  EXPECT_EQ(eval(Inst(Opcode::Fma, Type::F32).rnd(Rounding::Rn).sat(), {f32(2.0f), f32(2.0f), f32(1.0f)}),
            f32(1.0f));
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F16).sat(), {0x3c00, 0x3c00}), 0x3c00u);
}

TEST(ComputeFloat, NaNResults) {
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F32), {f32(kInf), f32(-kInf)}), kCanonicalNaN);
  EXPECT_EQ(eval(Inst(Opcode::Mul, Type::F32), {0x7fc00001, kOne}), kCanonicalNaN);
  EXPECT_TRUE(std::isnan(as_f64(eval(Inst(Opcode::Add, Type::F64), {f64(INFINITY), f64(-INFINITY)}))));
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F16), {0x7c00, 0xfc00}), 0x7fffu);
}

TEST(ComputeFloat, MinMaxNaNAndSignedZero) {
  const uint64_t nan = 0x7fc00000;
  EXPECT_EQ(eval(Inst(Opcode::Min, Type::F32), {nan, kOne}), kOne);
  EXPECT_EQ(eval(Inst(Opcode::Min, Type::F32), {kOne, nan}), kOne);
  EXPECT_EQ(eval(Inst(Opcode::Max, Type::F32), {nan, f32(-2.0f)}), f32(-2.0f));
  EXPECT_EQ(eval(Inst(Opcode::Min, Type::F32), {nan, 0xffc00005}), kCanonicalNaN);
  EXPECT_EQ(eval(Inst(Opcode::Min, Type::F32), {f32(0.0f), f32(-0.0f)}), 0x80000000u);
  EXPECT_EQ(eval(Inst(Opcode::Min, Type::F32), {f32(-0.0f), f32(0.0f)}), 0x80000000u);
  EXPECT_EQ(eval(Inst(Opcode::Max, Type::F32), {f32(-0.0f), f32(0.0f)}), 0u);
  EXPECT_EQ(eval(Inst(Opcode::Max, Type::F64), {f64(-3.0), f64(2.0)}), f64(2.0));
  EXPECT_EQ(eval(Inst(Opcode::Min, Type::F64), {f64(NAN), f64(2.0)}), f64(2.0));
  EXPECT_EQ(eval(Inst(Opcode::Max, Type::BF16), {0x7fc0, 0xbf80}), 0xbf80u);
}

TEST(ComputeFloat, AbsNegCopysignAreBitOperations) {
  EXPECT_EQ(eval(Inst(Opcode::Abs, Type::F32), {0xffc00001}), 0x7fc00001u);  // NaN payload kept
  EXPECT_EQ(eval(Inst(Opcode::Neg, Type::F32), {0x7fc00001}), 0xffc00001u);
  EXPECT_EQ(eval(Inst(Opcode::Neg, Type::F32), {f32(0.0f)}), 0x80000000u);
  EXPECT_EQ(eval(Inst(Opcode::Neg, Type::F64), {f64(1.5)}), f64(-1.5));
  EXPECT_EQ(eval(Inst(Opcode::Abs, Type::F16), {0xbc00}), 0x3c00u);
  EXPECT_EQ(eval(Inst(Opcode::Neg, Type::F16x2), {0x3c00bc00}), 0xbc003c00u);
  // copysign d, a, b: the sign of a, the magnitude of b.
  EXPECT_EQ(eval(Inst(Opcode::Copysign, Type::F32), {f32(-1.0f), f32(2.0f)}), f32(-2.0f));
  EXPECT_EQ(eval(Inst(Opcode::Copysign, Type::F32), {f32(1.0f), f32(-2.0f)}), f32(2.0f));
  EXPECT_EQ(eval(Inst(Opcode::Copysign, Type::F64), {f64(-0.0), f64(3.0)}), f64(-3.0));
}

TEST(ComputeFloat, Testp) {
  auto test = [](TestpMode m, Type t, uint64_t v) {
    Regs regs;
    regs.fill(1, v);
    run(Inst(Opcode::Testp, t).testp(m).ops({P(0), R(1)}), regs);
    EXPECT_TRUE(regs.p[0] == 0 || regs.p[0] == 0xffffffffu);
    return regs.p[0] != 0;
  };
  EXPECT_TRUE(test(TestpMode::Finite, Type::F32, kOne));
  EXPECT_FALSE(test(TestpMode::Finite, Type::F32, f32(kInf)));
  EXPECT_FALSE(test(TestpMode::Finite, Type::F32, 0x7fc00000));
  EXPECT_TRUE(test(TestpMode::Infinite, Type::F64, f64(-INFINITY)));
  EXPECT_FALSE(test(TestpMode::Number, Type::F32, 0xffc00000));
  EXPECT_TRUE(test(TestpMode::NotANumber, Type::F64, f64(NAN)));
  EXPECT_TRUE(test(TestpMode::Normal, Type::F32, f32(0.0f)));  // zero counts as normal
  EXPECT_FALSE(test(TestpMode::Normal, Type::F32, 1));
  EXPECT_FALSE(test(TestpMode::Normal, Type::F32, f32(kInf)));
  EXPECT_TRUE(test(TestpMode::Subnormal, Type::F32, 0x80000001));
  EXPECT_FALSE(test(TestpMode::Subnormal, Type::F64, f64(0.0)));
}

TEST(ComputeFloat, Approximations) {
  EXPECT_EQ(eval(Inst(Opcode::Sin, Type::F32).approx(), {f32(0.0f)}), 0u);
  EXPECT_EQ(eval(Inst(Opcode::Cos, Type::F32).approx(), {f32(0.0f)}), kOne);
  EXPECT_EQ(eval(Inst(Opcode::Lg2, Type::F32).approx(), {f32(8.0f)}), f32(3.0f));
  EXPECT_EQ(eval(Inst(Opcode::Lg2, Type::F32).approx(), {f32(0.0f)}), f32(-kInf));
  EXPECT_EQ(eval(Inst(Opcode::Ex2, Type::F32).approx(), {f32(3.0f)}), f32(8.0f));
  EXPECT_EQ(eval(Inst(Opcode::Ex2, Type::F32).approx().ftz(), {f32(-kInf)}), 0u);
  EXPECT_EQ(eval(Inst(Opcode::Ex2, Type::F32).approx().ftz(), {f32(-140.0f)}), 0u);
  EXPECT_EQ(eval(Inst(Opcode::Rsqrt, Type::F32).approx(), {f32(4.0f)}), f32(0.5f));
  EXPECT_EQ(eval(Inst(Opcode::Rsqrt, Type::F32).approx(), {f32(0.0f)}), f32(kInf));
  EXPECT_EQ(eval(Inst(Opcode::Rsqrt, Type::F64).approx(), {f64(16.0)}), f64(0.25));
  EXPECT_EQ(eval(Inst(Opcode::Rcp, Type::F32).approx(), {f32(4.0f)}), f32(0.25f));
  EXPECT_EQ(eval(Inst(Opcode::Rcp, Type::F32).approx(), {f32(-0.0f)}), f32(-kInf));
  EXPECT_EQ(eval(Inst(Opcode::Sqrt, Type::F32).approx(), {f32(16.0f)}), f32(4.0f));
  EXPECT_EQ(eval(Inst(Opcode::Tanh, Type::F32).approx(), {f32(kInf)}), kOne);
  EXPECT_EQ(eval(Inst(Opcode::Ex2, Type::F16).approx(), {0x4000}), 0x4400u);        // 2^2 = 4
  EXPECT_EQ(eval(Inst(Opcode::Ex2, Type::F16x2).approx(), {0x3c004000}), 0x40004400u);
  EXPECT_EQ(eval(Inst(Opcode::Tanh, Type::BF16).approx(), {0x0000}), 0u);
  // div.approx: a * (1/b); a reciprocal below the normal range flushes to 0.
  EXPECT_NEAR(as_f32(eval(Inst(Opcode::Div, Type::F32).approx(), {kOne, f32(3.0f)})), 1.0f / 3.0f, 1e-7f);
  EXPECT_EQ(eval(Inst(Opcode::Div, Type::F32).approx(), {f32(4.0f), f32(0x1p127f)}), 0u);
  // rcp.approx.ftz.f64 keeps only the upper word of 1/a.
  EXPECT_EQ(eval(Inst(Opcode::Rcp, Type::F64).approx().ftz(), {f64(3.0)}), 0x3fd5555500000000u);
  EXPECT_EQ(eval(Inst(Opcode::Rcp, Type::F64).approx().ftz(), {f64(NAN)}), 0x7fffffff00000000u);
}

TEST(ComputeFloat, HalfArithmetic) {
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F16), {0x3c00, 0x3800}), 0x3e00u);  // 1 + 0.5
  EXPECT_EQ(eval(Inst(Opcode::Mul, Type::F16), {0x4200, 0x3800}), 0x3e00u);  // 3 * 0.5
  EXPECT_EQ(eval(Inst(Opcode::Sub, Type::F16), {0x3c00, 0x4000}), 0xbc00u);  // 1 - 2
  // 2048 + 1 and 2048 + 3 are ties: to even.
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F16).rnd(Rounding::Rn), {0x6800, 0x3c00}), 0x6800u);
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F16), {0x6800, 0x4200}), 0x6802u);
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F16), {0x7bff, 0x7bff}), 0x7c00u);  // overflow to inf
  // fma is fused: (1 + 2^-10)^2 - (1 + 2^-9) = 2^-20, a subnormal half.
  EXPECT_EQ(eval(Inst(Opcode::Fma, Type::F16).rnd(Rounding::Rn), {0x3c01, 0x3c01, 0xbc02}), 0x0010u);
  // f16x2: element-wise, element 0 in the low half.
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::F16x2), {0x3c004000, 0x38003c00}), 0x3e004200u);
  EXPECT_EQ(eval(Inst(Opcode::Max, Type::F16x2), {0x3c00c000, 0x7e004200}), 0x3c004200u);
  // {2 * 1 - 1, 2 * 2 + 1} = {1, 5}
  EXPECT_EQ(eval(Inst(Opcode::Fma, Type::F16x2).rnd(Rounding::Rn), {0x40004000, 0x40003c00, 0x3c00bc00}),
            0x45003c00u);
}

TEST(ComputeFloat, BFloat16Arithmetic) {
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::BF16), {0x3f80, 0x3f80}), 0x4000u);
  EXPECT_EQ(eval(Inst(Opcode::Mul, Type::BF16), {0x4040, 0x3f00}), 0x3fc0u);
  // {2 * 2 - 1, 1 * 2 + 1} = {3, 3}
  EXPECT_EQ(eval(Inst(Opcode::Fma, Type::BF16x2).rnd(Rounding::Rn), {0x3f804000, 0x40004000, 0x3f80bf80}),
            0x40404040u);
  // 1 + 2^-8 is a tie between 1 and 1 + 2^-7: to even.
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::BF16), {0x3f80, 0x3b80}), 0x3f80u);
}

TEST(ComputeFloat, RejectsInvalidCombinations) {
  EXPECT_NE(rejection(Inst(Opcode::Add, Type::F16).rnd(Rounding::Rz).ops({R(0), R(1), R(2)})), "");
  EXPECT_NE(rejection(Inst(Opcode::Add, Type::F64).sat().ops({R(0), R(1), R(2)})), "");
  EXPECT_NE(rejection(Inst(Opcode::Add, Type::F64).ftz().ops({R(0), R(1), R(2)})), "");
  EXPECT_NE(rejection(Inst(Opcode::Sin, Type::F64).approx().ops({R(0), R(1)})), "");
  EXPECT_NE(rejection(Inst(Opcode::Div, Type::F16).rnd(Rounding::Rn).ops({R(0), R(1), R(2)})), "");
  EXPECT_NE(rejection(Inst(Opcode::Rcp, Type::F64).approx().ops({R(0), R(1)})), "");
  EXPECT_NE(rejection(Inst(Opcode::Sqrt, Type::F32).approx().rnd(Rounding::Rn).ops({R(0), R(1)})), "");
  EXPECT_NE(rejection(Inst(Opcode::Copysign, Type::F16).ops({R(0), R(1), R(2)})), "");
  EXPECT_NE(rejection(Inst(Opcode::Testp, Type::F16).testp(TestpMode::Finite).ops({P(0), R(1)})), "");
}

}  // namespace
}  // namespace gpumux::test
