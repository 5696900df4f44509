#include <cmath>

#include "exec_compute/inst_builder.h"

namespace gpumux::test {
namespace {

using ptx::BoolOp;
using ptx::CmpOp;

// setp.cmp.type p, a, b on uniform inputs: the predicate value.
bool setp(CmpOp c, Type t, uint64_t a, uint64_t b, bool ftz = false) {
  Regs regs;
  regs.fill(1, a);
  regs.fill(2, b);
  Inst i(Opcode::Setp, t, t);
  i.cmp(c).ops({P(0), R(1), R(2)});
  if (ftz) i.ftz();
  run(i, regs);
  EXPECT_TRUE(regs.p[0] == 0 || regs.p[0] == ~0u);
  return regs.p[0] != 0;
}

TEST(ComputeCompare, IntegerSignedAndUnsigned) {
  const uint64_t m1 = 0xffffffff;
  EXPECT_FALSE(setp(CmpOp::Eq, Type::S32, m1, 1));
  EXPECT_TRUE(setp(CmpOp::Ne, Type::S32, m1, 1));
  EXPECT_TRUE(setp(CmpOp::Lt, Type::S32, m1, 1));
  EXPECT_TRUE(setp(CmpOp::Le, Type::S32, m1, m1));
  EXPECT_FALSE(setp(CmpOp::Gt, Type::S32, m1, 1));
  EXPECT_TRUE(setp(CmpOp::Ge, Type::S32, 1, m1));
  EXPECT_FALSE(setp(CmpOp::Lt, Type::U32, m1, 1));
  EXPECT_FALSE(setp(CmpOp::Lo, Type::S32, m1, 1));  // lo/ls/hi/hs are unsigned
  EXPECT_TRUE(setp(CmpOp::Hi, Type::S32, m1, 1));
  EXPECT_TRUE(setp(CmpOp::Hs, Type::U64, ~0ull, ~0ull));
  EXPECT_TRUE(setp(CmpOp::Ls, Type::B16, 0x8000, 0xffff));
  EXPECT_TRUE(setp(CmpOp::Lt, Type::S16, 0x8000, 0x7fff));
  EXPECT_TRUE(setp(CmpOp::Lt, Type::S64, 0x8000000000000000ull, 0));
  EXPECT_TRUE(setp(CmpOp::Eq, Type::B32, 0x100000005ull, 5));  // only the type's bits count
}

TEST(ComputeCompare, FloatTruthTables) {
  const uint64_t one = f32(1.0f), two = f32(2.0f), nan = 0x7fc00000;
  // Expected results for (1, 2), (2, 1), (1, 1), (NaN, 1).
  const struct {
    CmpOp op;
    bool lt, gt, eq, un;
  } cases[] = {
      {CmpOp::Eq, 0, 0, 1, 0},  {CmpOp::Ne, 1, 1, 0, 0},  {CmpOp::Lt, 1, 0, 0, 0},
      {CmpOp::Le, 1, 0, 1, 0},  {CmpOp::Gt, 0, 1, 0, 0},  {CmpOp::Ge, 0, 1, 1, 0},
      {CmpOp::Equ, 0, 0, 1, 1}, {CmpOp::Neu, 1, 1, 0, 1}, {CmpOp::Ltu, 1, 0, 0, 1},
      {CmpOp::Leu, 1, 0, 1, 1}, {CmpOp::Gtu, 0, 1, 0, 1}, {CmpOp::Geu, 0, 1, 1, 1},
      {CmpOp::Num, 1, 1, 1, 0}, {CmpOp::Nan, 0, 0, 0, 1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(int(c.op));
    EXPECT_EQ(setp(c.op, Type::F32, one, two), c.lt);
    EXPECT_EQ(setp(c.op, Type::F32, two, one), c.gt);
    EXPECT_EQ(setp(c.op, Type::F32, one, one), c.eq);
    EXPECT_EQ(setp(c.op, Type::F32, nan, one), c.un);
    EXPECT_EQ(setp(c.op, Type::F64, f64(1.0), f64(NAN)), c.un);
    EXPECT_EQ(setp(c.op, Type::F16, 0x3c00, 0x4000), c.lt);
    EXPECT_EQ(setp(c.op, Type::BF16, 0x7fc1, 0x3f80), c.un);
  }
  EXPECT_TRUE(setp(CmpOp::Eq, Type::F32, f32(0.0f), f32(-0.0f)));
  EXPECT_FALSE(setp(CmpOp::Eq, Type::F32, 0x00000001, 0));
  EXPECT_TRUE(setp(CmpOp::Eq, Type::F32, 0x00000001, 0, /*ftz=*/true));
}

TEST(ComputeCompare, BoolOpAndSecondDestination) {
  Regs regs;
  for (unsigned l = 0; l < 32; ++l) regs.at(1, l) = l;
  regs.fill(2, 16);
  regs.p[2] = 0x0000ffffu ^ 0x00ff00ffu;  // c
  run(Inst(Opcode::Setp, Type::S32, Type::S32).cmp(CmpOp::Lt).bop(BoolOp::And).q(1).ops({P(0), R(1), R(2), P(2)}),
      regs);
  EXPECT_EQ(regs.p[0], 0x0000ff00u);  // (lane < 16) & c
  EXPECT_EQ(regs.p[1], 0x00ff0000u);  // !(lane < 16) & c
  run(Inst(Opcode::Setp, Type::S32, Type::S32).cmp(CmpOp::Lt).bop(BoolOp::Or).q(1).ops({P(0), R(1), R(2), P(2, true)}),
      regs);
  EXPECT_EQ(regs.p[0], 0xffffffffu & ~0x00ff0000u);
  EXPECT_EQ(regs.p[1], 0xffff0000u | ~0x00ffff00u);
  run(Inst(Opcode::Setp, Type::S32, Type::S32).cmp(CmpOp::Lt).bop(BoolOp::Xor).ops({P(0), R(1), R(2), P(2, true)}),
      regs, 0x0000000f);
  EXPECT_EQ(regs.p[0], 0xff00fff0u);  // lanes 0-3: true ^ !c = 0; the others keep their value
  // Sink as p, only q written.
  regs.p[3] = 0;
  run(Inst(Opcode::Setp, Type::U32, Type::U32).cmp(CmpOp::Ge).q(3).ops({Sink(), R(1), R(2)}), regs);
  EXPECT_EQ(regs.p[3], 0x0000ffffu);
}

TEST(ComputeCompare, PackedPairsSetBothPredicates) {
  Regs regs;
  regs.fill(1, 0x42003c00);  // {1, 3}
  regs.fill(2, 0x40004000);  // {2, 2}
  run(Inst(Opcode::Setp, Type::F16x2, Type::F16x2).cmp(CmpOp::Lt).q(1).ops({P(0), R(1), R(2)}), regs);
  EXPECT_EQ(regs.p[0], ~0u);  // 1 < 2
  EXPECT_EQ(regs.p[1], 0u);   // 3 < 2
  run(Inst(Opcode::Setp, Type::BF16x2, Type::BF16x2).cmp(CmpOp::Gt).q(1).ops({P(0), R(1), R(2)}), regs);
  EXPECT_EQ(regs.p[0], 0u);
  EXPECT_EQ(regs.p[1], ~0u);
}

TEST(ComputeCompare, Set) {
  EXPECT_EQ(eval(Inst(Opcode::Set, Type::U32, Type::F32).cmp(CmpOp::Gt), {f32(2.0f), f32(1.0f)}), 0xffffffffu);
  EXPECT_EQ(eval(Inst(Opcode::Set, Type::U32, Type::F32).cmp(CmpOp::Gt), {f32(1.0f), f32(1.0f)}), 0u);
  EXPECT_EQ(eval(Inst(Opcode::Set, Type::F32, Type::S32).cmp(CmpOp::Lt), {0xffffffff, 0}), f32(1.0f));
  EXPECT_EQ(eval(Inst(Opcode::Set, Type::S32, Type::U64).cmp(CmpOp::Lt), {~0ull, 0}), 0u);
  EXPECT_EQ(eval(Inst(Opcode::Set, Type::F16, Type::F16).cmp(CmpOp::Equ), {0x7e00, 0x3c00}), 0x3c00u);
  EXPECT_EQ(eval(Inst(Opcode::Set, Type::F16x2, Type::F16x2).cmp(CmpOp::Eq), {0x3c004000, 0x3c003c00}),
            0x3c000000u);
  EXPECT_EQ(eval(Inst(Opcode::Set, Type::U32, Type::F16x2).cmp(CmpOp::Eq), {0x3c004000, 0x3c003c00}),
            0xffff0000u);
  Regs regs;
  regs.fill(1, 1);
  regs.fill(2, 2);
  regs.p[0] = 0x0000ffff;
  run(Inst(Opcode::Set, Type::U32, Type::S32).cmp(CmpOp::Lt).bop(BoolOp::And).ops({R(0), R(1), R(2), P(0)}), regs);
  EXPECT_EQ(regs.at(0, 3), 0xffffffffu);
  EXPECT_EQ(regs.at(0, 20), 0u);
}

TEST(ComputeCompare, SelpAndSlct) {
  Regs regs;
  regs.fill(1, 0x1111);
  regs.fill(2, 0x2222);
  regs.p[0] = 0x5;
  run(Inst(Opcode::Selp, Type::B32).ops({R(0), R(1), R(2), P(0)}), regs);
  EXPECT_EQ(regs.at(0, 0), 0x1111u);
  EXPECT_EQ(regs.at(0, 1), 0x2222u);
  EXPECT_EQ(regs.at(0, 2), 0x1111u);
  run(Inst(Opcode::Selp, Type::F64).ops({R(0), R(1), Imm(f64(2.5)), P(0, true)}), regs);
  EXPECT_EQ(regs.at(0, 0), f64(2.5));
  EXPECT_EQ(regs.at(0, 1), 0x1111u);
  run(Inst(Opcode::Selp, Type::U16).ops({R(0), Imm(0x12345), R(2), Imm(1)}), regs);
  EXPECT_EQ(regs.at(0, 7), 0x2345u);  // masked to the type

  EXPECT_EQ(eval(Inst(Opcode::Slct, Type::S32, Type::S32), {1, 2, 0}), 1u);
  EXPECT_EQ(eval(Inst(Opcode::Slct, Type::S32, Type::S32), {1, 2, 0xffffffff}), 2u);
  EXPECT_EQ(eval(Inst(Opcode::Slct, Type::U32, Type::F32), {1, 2, f32(-0.0f)}), 1u);
  EXPECT_EQ(eval(Inst(Opcode::Slct, Type::U32, Type::F32), {1, 2, 0x7fc00000}), 2u);
  EXPECT_EQ(eval(Inst(Opcode::Slct, Type::U32, Type::F32), {1, 2, 0x80000001}), 2u);
  EXPECT_EQ(eval(Inst(Opcode::Slct, Type::U32, Type::F32).ftz(), {1, 2, 0x80000001}), 1u);
  EXPECT_EQ(eval(Inst(Opcode::Slct, Type::F64, Type::S32), {f64(1.5), f64(2.5), 7}), f64(1.5));
}

TEST(ComputeCompare, Rejections) {
  auto setp_ops = [](Inst i) { return rejection(i.ops({P(0), R(1), R(2)})); };
  EXPECT_NE(setp_ops(Inst(Opcode::Setp, Type::F32, Type::F32).cmp(CmpOp::Lo)), "");
  EXPECT_NE(setp_ops(Inst(Opcode::Setp, Type::S32, Type::S32).cmp(CmpOp::Ltu)), "");
  EXPECT_NE(setp_ops(Inst(Opcode::Setp, Type::S32, Type::S32)), "");  // no comparison
  EXPECT_NE(setp_ops(Inst(Opcode::Setp, Type::S32, Type::S32).cmp(CmpOp::Lt).bop(BoolOp::And)), "");  // no c
  EXPECT_NE(rejection(Inst(Opcode::Selp, Type::B32).ops({R(0), R(1), R(2), R(3)})), "");
  EXPECT_NE(rejection(Inst(Opcode::Slct, Type::S32, Type::U32).ops({R(0), R(1), R(2), R(3)})), "");
  EXPECT_EQ(setp_ops(Inst(Opcode::Setp, Type::F32, Type::F32).cmp(CmpOp::Hi)),
            "setp.hi.f32 not supported (unsigned comparison on a float type)");
}

}  // namespace
}  // namespace gpumux::test
