#include "exec_compute/inst_builder.h"

namespace gpumux::test {
namespace {

TEST(ComputeMove, ScalarCopiesMaskToTheType) {
  EXPECT_EQ(eval(Inst(Opcode::Mov, Type::U32), {0x123456789ull}), 0x23456789u);
  EXPECT_EQ(eval(Inst(Opcode::Mov, Type::B64), {0x123456789ull}), 0x123456789ull);
  EXPECT_EQ(eval(Inst(Opcode::Mov, Type::B16), {0xabcdef}), 0xcdefu);
  EXPECT_EQ(eval(Inst(Opcode::Mov, Type::F32).ops({R(0), Imm(0x3f800000)}), {}), 0x3f800000u);
  EXPECT_EQ(eval(Inst(Opcode::Mov, Type::F64).ops({R(0), Imm(0x4000000000000000ull)}), {}), 0x4000000000000000ull);
}

TEST(ComputeMove, PartialMaskLeavesOtherLanes) {
  Regs regs;
  for (unsigned l = 0; l < 32; ++l) regs.at(1, l) = 100 + l;
  regs.fill(0, 7);
  run(Inst(Opcode::Mov, Type::U32).ops({R(0), R(1)}), regs, 0x80000001);
  EXPECT_EQ(regs.at(0, 0), 100u);
  EXPECT_EQ(regs.at(0, 1), 7u);
  EXPECT_EQ(regs.at(0, 30), 7u);
  EXPECT_EQ(regs.at(0, 31), 131u);
}

TEST(ComputeMove, PackAndUnpack) {
  Regs regs;
  regs.fill(1, 0x11111111);
  regs.fill(2, 0x22222222);
  run(Inst(Opcode::Mov, Type::B64).ops({R(0), Vec({1, 2})}), regs);
  EXPECT_EQ(regs.at(0, 9), 0x2222222211111111ull);  // lowest element in the lowest bits

  regs.fill(3, 0x1234);
  regs.fill(4, 0xabcd);
  run(Inst(Opcode::Mov, Type::B32).ops({R(5), Vec({3, 4})}), regs);
  EXPECT_EQ(regs.at(5, 0), 0xabcd1234u);

  regs.fill(6, 0xaaaa);
  regs.fill(7, 0xbbbb);
  regs.fill(8, 0xcccc);
  regs.fill(9, 0xdddd);
  run(Inst(Opcode::Mov, Type::B64).ops({R(10), Vec({6, 7, 8, 9})}), regs);
  EXPECT_EQ(regs.at(10, 31), 0xddddccccbbbbaaaaull);

  run(Inst(Opcode::Mov, Type::B64).ops({Vec({11, 12}), R(0)}), regs);
  EXPECT_EQ(regs.at(11, 4), 0x11111111u);
  EXPECT_EQ(regs.at(12, 4), 0x22222222u);

  regs.fill(13, 0x5555);
  run(Inst(Opcode::Mov, Type::B32).ops({Vec({ptx::kNoReg, 14}), R(5)}), regs);  // {_, %h}
  EXPECT_EQ(regs.at(14, 2), 0xabcdu);

  run(Inst(Opcode::Mov, Type::B64).ops({Vec({15, 16, 17, 18}), R(10)}), regs, 0x1);
  EXPECT_EQ(regs.at(15, 0), 0xaaaau);
  EXPECT_EQ(regs.at(18, 0), 0xddddu);
  EXPECT_EQ(regs.at(18, 1), 0u);  // not executing
}

TEST(ComputeMove, Predicates) {
  Regs regs;
  regs.p[1] = 0x0f0f0f0f;
  run(Inst(Opcode::Mov, Type::Pred).ops({P(0), P(1)}), regs);
  EXPECT_EQ(regs.p[0], 0x0f0f0f0fu);
  run(Inst(Opcode::Mov, Type::Pred).ops({P(0), P(1, true)}), regs, 0xffff);
  EXPECT_EQ(regs.p[0], 0x0f0ff0f0u);
  run(Inst(Opcode::Mov, Type::Pred).ops({P(2), Imm(1)}), regs);
  EXPECT_EQ(regs.p[2], ~0u);
}

TEST(ComputeMove, Rejections) {
  EXPECT_NE(rejection(Inst(Opcode::Mov, Type::B128).ops({R(0), R(1)})), "");
  EXPECT_NE(rejection(Inst(Opcode::Mov, Type::B32).ops({R(0), Vec({1, 2, 3})})), "");
  EXPECT_NE(rejection(Inst(Opcode::Mov, Type::B32).ops({R(0), Vec({1, ptx::kNoReg})})), "");
  EXPECT_NE(rejection(Inst(Opcode::Mov, Type::Pred).ops({P(0), R(1)})), "");
  EXPECT_NE(rejection(Inst(Opcode::Mov, Type::U32).ops({R(0), P(1)})), "");
  EXPECT_EQ(rejection(Inst(Opcode::Ld, Type::U32).ops({R(0), R(1)})), "ld is not a compute instruction");
}

}  // namespace
}  // namespace gpumux::test
