#include "exec_compute/inst_builder.h"

namespace gpumux::test {
namespace {

using ptx::MulMode;

TEST(ComputeInt, AddSubWrapAndSaturate) {
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::S32), {0x7fffffff, 1}), 0x80000000u);
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::U16), {0xffff, 2}), 1u);
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::S64), {0xffffffffffffffffull, 5}), 4u);
  EXPECT_EQ(eval(Inst(Opcode::Sub, Type::U32), {0, 1}), 0xffffffffu);
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::S32).sat(), {0x7fffffff, 1}), 0x7fffffffu);
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::S32).sat(), {0x80000000, 0xffffffff}), 0x80000000u);
  EXPECT_EQ(eval(Inst(Opcode::Sub, Type::S32).sat(), {0x80000000, 1}), 0x80000000u);
  EXPECT_EQ(eval(Inst(Opcode::Sub, Type::S32).sat(), {0x7ffffffe, 0xfffffffe}), 0x7fffffffu);
  EXPECT_EQ(eval(Inst(Opcode::Add, Type::S32).sat(), {5, 0xfffffffd}), 2u);
}

TEST(ComputeInt, AddWithImmediateAndPartialMask) {
  Regs regs;
  for (unsigned l = 0; l < 32; ++l) regs.at(1, l) = l;
  regs.fill(0, 0xdead);
  run(Inst(Opcode::Add, Type::S32).ops({R(0), R(1), Imm(0xffffffff)}), regs, 0x0000000f0u);
  EXPECT_EQ(regs.at(0, 3), 0xdeadu);  // not executing
  EXPECT_EQ(regs.at(0, 4), 3u);
  EXPECT_EQ(regs.at(0, 7), 6u);
  EXPECT_EQ(regs.at(0, 8), 0xdeadu);
}

TEST(ComputeInt, MulModes) {
  EXPECT_EQ(eval(Inst(Opcode::Mul, Type::S32).mul(MulMode::Lo), {0xfffffffe, 3}), 0xfffffffau);
  EXPECT_EQ(eval(Inst(Opcode::Mul, Type::S32).mul(MulMode::Hi), {0xfffffffe, 3}), 0xffffffffu);
  EXPECT_EQ(eval(Inst(Opcode::Mul, Type::U32).mul(MulMode::Hi), {0xfffffffe, 3}), 2u);
  EXPECT_EQ(eval(Inst(Opcode::Mul, Type::S32).mul(MulMode::Wide), {0xfffffffe, 3}), 0xfffffffffffffffaull);
  EXPECT_EQ(eval(Inst(Opcode::Mul, Type::U32).mul(MulMode::Wide), {0xffffffff, 0xffffffff}),
            0xfffffffe00000001ull);
  EXPECT_EQ(eval(Inst(Opcode::Mul, Type::S16).mul(MulMode::Wide), {0x8000, 0x8000}), 0x40000000u);
  EXPECT_EQ(eval(Inst(Opcode::Mul, Type::U16).mul(MulMode::Lo), {0xffff, 0xffff}), 1u);
  EXPECT_EQ(eval(Inst(Opcode::Mul, Type::U16).mul(MulMode::Hi), {0xffff, 0xffff}), 0xfffeu);
  // 64-bit high halves through 128-bit products.
  EXPECT_EQ(eval(Inst(Opcode::Mul, Type::U64).mul(MulMode::Hi), {0xffffffffffffffffull, 0xffffffffffffffffull}),
            0xfffffffffffffffeull);
  EXPECT_EQ(eval(Inst(Opcode::Mul, Type::S64).mul(MulMode::Hi), {0xffffffffffffffffull, 0xffffffffffffffffull}),
            0u);
  EXPECT_EQ(eval(Inst(Opcode::Mul, Type::S64).mul(MulMode::Hi), {0x8000000000000000ull, 2}),
            0xffffffffffffffffull);
  EXPECT_EQ(eval(Inst(Opcode::Mul, Type::U64).mul(MulMode::Lo), {0x100000001ull, 0x100000001ull}),
            0x200000001ull);
}

TEST(ComputeInt, MadModes) {
  EXPECT_EQ(eval(Inst(Opcode::Mad, Type::S32).mul(MulMode::Lo), {7, 6, 0xffffffff}), 41u);
  EXPECT_EQ(eval(Inst(Opcode::Mad, Type::U32).mul(MulMode::Hi), {0x80000000, 4, 1}), 3u);
  EXPECT_EQ(eval(Inst(Opcode::Mad, Type::S32).mul(MulMode::Wide), {0xffffffff, 2, 10}), 8u);
  EXPECT_EQ(eval(Inst(Opcode::Mad, Type::U32).mul(MulMode::Wide), {0xffffffff, 0xffffffff, 0xffffffffull}),
            0xffffffff00000000ull);
  // mad.hi.sat.s32 clamps hi(a*b) + c.
  EXPECT_EQ(eval(Inst(Opcode::Mad, Type::S32).mul(MulMode::Hi).sat(), {0x40000000, 4, 0x7fffffff}),
            0x7fffffffu);
  EXPECT_EQ(eval(Inst(Opcode::Mad, Type::S32).mul(MulMode::Hi), {0x40000000, 4, 0x7fffffff}), 0x80000000u);
}

TEST(ComputeInt, Mul24AndMad24) {
  // 0xffffff is -1 as a signed 24-bit value, 16777215 unsigned.
  EXPECT_EQ(eval(Inst(Opcode::Mul24, Type::S32).mul(MulMode::Lo), {0x00ffffff, 5}), 0xfffffffbu);
  EXPECT_EQ(eval(Inst(Opcode::Mul24, Type::U32).mul(MulMode::Lo), {0x00ffffff, 5}), 0x04fffffbu);
  EXPECT_EQ(eval(Inst(Opcode::Mul24, Type::U32).mul(MulMode::Lo), {0xff000003, 0x7f000005}), 15u);
  // hi: bits 47..16 of the 48-bit product.
  EXPECT_EQ(eval(Inst(Opcode::Mul24, Type::U32).mul(MulMode::Hi), {0x00ffffff, 0x00ffffff}), 0xfffffe00u);
  EXPECT_EQ(eval(Inst(Opcode::Mul24, Type::S32).mul(MulMode::Hi), {0x00ffffff, 0x00000002}), 0xffffffffu);
  EXPECT_EQ(eval(Inst(Opcode::Mad24, Type::U32).mul(MulMode::Lo), {3, 4, 5}), 17u);
  EXPECT_EQ(eval(Inst(Opcode::Mad24, Type::S32).mul(MulMode::Hi).sat(), {0x007fffff, 0x007fffff, 0x7fffffff}),
            0x7fffffffu);
}

TEST(ComputeInt, SadMinMaxAbsNeg) {
  EXPECT_EQ(eval(Inst(Opcode::Sad, Type::S32), {0xfffffffe, 3, 10}), 15u);  // |-2 - 3| + 10
  EXPECT_EQ(eval(Inst(Opcode::Sad, Type::U32), {0xfffffffe, 3, 10}), 0xfffffffbu + 10);
  EXPECT_EQ(eval(Inst(Opcode::Min, Type::S32), {0xffffffff, 1}), 0xffffffffu);
  EXPECT_EQ(eval(Inst(Opcode::Min, Type::U32), {0xffffffff, 1}), 1u);
  EXPECT_EQ(eval(Inst(Opcode::Max, Type::S16), {0x8000, 0x7fff}), 0x7fffu);
  EXPECT_EQ(eval(Inst(Opcode::Max, Type::U64), {0x8000000000000000ull, 1}), 0x8000000000000000ull);
  EXPECT_EQ(eval(Inst(Opcode::Abs, Type::S32), {0xfffffffb}), 5u);
  EXPECT_EQ(eval(Inst(Opcode::Abs, Type::S32), {0x80000000}), 0x80000000u);  // INT_MIN stays
  EXPECT_EQ(eval(Inst(Opcode::Neg, Type::S64), {0x8000000000000000ull}), 0x8000000000000000ull);
  EXPECT_EQ(eval(Inst(Opcode::Neg, Type::S16), {1}), 0xffffu);
}

TEST(ComputeInt, DivRemIncludingUnspecifiedCases) {
  EXPECT_EQ(eval(Inst(Opcode::Div, Type::S32), {0xfffffff9, 2}), 0xfffffffdu);  // -7 / 2 = -3
  EXPECT_EQ(eval(Inst(Opcode::Rem, Type::S32), {0xfffffff9, 2}), 0xffffffffu);  // -7 % 2 = -1
  EXPECT_EQ(eval(Inst(Opcode::Div, Type::U32), {0xfffffff9, 2}), 0x7ffffffcu);
  // Division by zero: all ones; remainder: the dividend.
  EXPECT_EQ(eval(Inst(Opcode::Div, Type::U32), {7, 0}), 0xffffffffu);
  EXPECT_EQ(eval(Inst(Opcode::Div, Type::S32), {7, 0}), 0xffffffffu);
  EXPECT_EQ(eval(Inst(Opcode::Div, Type::U64), {7, 0}), 0xffffffffffffffffull);
  EXPECT_EQ(eval(Inst(Opcode::Rem, Type::S64), {0xfffffffffffffff9ull, 0}), 0xfffffffffffffff9ull);
  EXPECT_EQ(eval(Inst(Opcode::Rem, Type::U16), {9, 0}), 9u);
  // INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0.
  EXPECT_EQ(eval(Inst(Opcode::Div, Type::S32), {0x80000000, 0xffffffff}), 0x80000000u);
  EXPECT_EQ(eval(Inst(Opcode::Rem, Type::S32), {0x80000000, 0xffffffff}), 0u);
  EXPECT_EQ(eval(Inst(Opcode::Div, Type::S64), {0x8000000000000000ull, 0xffffffffffffffffull}),
            0x8000000000000000ull);
  EXPECT_EQ(eval(Inst(Opcode::Div, Type::S16), {0x8000, 0xffff}), 0x8000u);
}

TEST(ComputeInt, RejectsInvalidCombinations) {
  EXPECT_NE(rejection(Inst(Opcode::Add, Type::U32).sat().ops({R(0), R(1), R(2)})), "");
  EXPECT_NE(rejection(Inst(Opcode::Mul, Type::S64).mul(MulMode::Wide).ops({R(0), R(1), R(2)})), "");
  EXPECT_NE(rejection(Inst(Opcode::Mul, Type::S32).ops({R(0), R(1), R(2)})), "");
  EXPECT_NE(rejection(Inst(Opcode::Abs, Type::U32).ops({R(0), R(1)})), "");
  EXPECT_NE(rejection(Inst(Opcode::Mul24, Type::U64).mul(MulMode::Lo).ops({R(0), R(1), R(2)})), "");
  EXPECT_NE(rejection(Inst(Opcode::Add, Type::S32).ops({R(0), R(1)})), "");  // missing operand
  EXPECT_EQ(rejection(Inst(Opcode::Add, Type::U32).sat().ops({R(0), R(1), R(2)})),
            "add.sat.u32 not supported (.sat applies only to add/sub.s32)");
}

}  // namespace
}  // namespace gpumux::test
