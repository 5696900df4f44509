// Parsing of WARP_SZ, the %clock_hi, %globaltimer_lo/_hi, %pm* and
// %current_graph_exec special registers,
// bmsk, carry arithmetic and redux.sync (conventions in parser.h).
#include <gtest/gtest.h>

#include "gpumux/ptx/parser.h"
#include "ptx_test_util.h"

namespace gpumux::ptx {
namespace {

using test::kernel_with;
const auto& error_of = test::body_error;
using test::parse_body;
using test::parse_one;


TEST(PtxNewInstructions, WarpSizeIsAnImmediateOfItsSlotType) {
  Instruction mov = parse_one("mov.u32 %r1, WARP_SZ;");
  EXPECT_EQ(mov.ops[1].kind, OperandKind::Imm);
  EXPECT_EQ(mov.ops[1].imm, 32u);
  EXPECT_EQ(parse_one("add.s64 %rd1, %rd2, WARP_SZ;").ops[2].imm, 32u);
  EXPECT_EQ(parse_one("cvt.rn.f32.u32 %f1, WARP_SZ;").ops[1].imm, 32u);
  EXPECT_EQ(parse_one("add.f32 %f1, %f2, WARP_SZ;").ops[2].imm, 0x42000000u);  // 32.0f
}

TEST(PtxNewInstructions, PredefinedSpecialRegisters) {
  EXPECT_EQ(parse_one("mov.u32 %r1, %clock_hi;").ops[1].sreg, SpecialReg::ClockHi);
  EXPECT_EQ(parse_one("mov.u32 %r1, %globaltimer_lo;").ops[1].sreg, SpecialReg::GlobaltimerLo);
  EXPECT_EQ(parse_one("mov.u32 %r1, %globaltimer_hi;").ops[1].sreg, SpecialReg::GlobaltimerHi);
  EXPECT_EQ(parse_one("mov.u64 %rd1, %current_graph_exec;").ops[1].sreg, SpecialReg::CurrentGraphExec);
  Instruction pm = parse_one("mov.u32 %r1, %pm7;");
  EXPECT_EQ(pm.ops[1].sreg, SpecialReg::Pm);
  EXPECT_EQ(pm.ops[1].comp, 7u);
  Instruction pm64 = parse_one("mov.u64 %rd1, %pm2_64;");
  EXPECT_EQ(pm64.ops[1].sreg, SpecialReg::Pm64);
  EXPECT_EQ(pm64.ops[1].comp, 2u);
  EXPECT_NE(error_of("mov.u32 %r1, %pm8;").find("undefined register '%pm8'"), std::string::npos);
  EXPECT_NE(error_of("mov.u32 %r1, %pm1_32;").find("undefined register '%pm1_32'"), std::string::npos);
}

TEST(PtxNewInstructions, Bmsk) {
  Instruction in = parse_one("bmsk.clamp.b32 %r1, %r2, 8;");
  EXPECT_EQ(in.op, Opcode::Bmsk);
  EXPECT_EQ(in.shf, ShfMode::Clamp);
  EXPECT_EQ(in.nops, 3u);
  EXPECT_EQ(parse_one("bmsk.wrap.b32 %r1, %r2, %r3;").shf, ShfMode::Wrap);
  EXPECT_NE(error_of("bmsk.b32 %r1, %r2, %r3;").find("'bmsk.b32' needs .clamp or .wrap"), std::string::npos);
}

// The carry flag is one hidden predicate per function, written by .cc and read
// by addc/subc/madc as their last operand.
TEST(PtxNewInstructions, CarryFlagIsAHiddenPredicate) {
  Function f = parse_body(
      "\tadd.cc.u32 %r1, %r2, %r3;\n"
      "\taddc.cc.u32 %r4, %r5, %r6;\n"
      "\tsubc.u32 %r7, %r8, 1;\n"
      "\tmad.lo.cc.u32 %r1, %r2, %r3, %r4;\n"
      "\tmadc.hi.u64 %rd1, %rd2, %rd3, %rd4;\n"
      "\tadd.u32 %r1, %r2, %r3;\n"
      "\tret;");
  ASSERT_EQ(f.pred_names.size(), 1u);
  EXPECT_EQ(f.pred_names[0], "%cc.cf");
  const auto& in = f.insts;
  EXPECT_TRUE(in[0].cc);
  EXPECT_EQ(in[0].pred_dst2, 0u);
  EXPECT_EQ(in[0].nops, 3u);
  EXPECT_EQ(in[1].op, Opcode::Addc);
  EXPECT_TRUE(in[1].cc);
  ASSERT_EQ(in[1].nops, 4u);
  EXPECT_EQ(in[1].ops[3].kind, OperandKind::Pred);
  EXPECT_EQ(in[1].ops[3].reg, 0u);
  EXPECT_EQ(in[2].op, Opcode::Subc);
  EXPECT_FALSE(in[2].cc);
  EXPECT_EQ(in[2].pred_dst2, kNoReg);
  EXPECT_EQ(in[2].ops[2].imm, 1u);
  EXPECT_EQ(in[2].ops[3].kind, OperandKind::Pred);
  EXPECT_EQ(in[3].op, Opcode::Mad);
  EXPECT_TRUE(in[3].cc);
  EXPECT_EQ(in[3].mul, MulMode::Lo);
  EXPECT_EQ(in[4].op, Opcode::Madc);
  EXPECT_EQ(in[4].mul, MulMode::Hi);
  EXPECT_EQ(in[4].nops, 5u);
  EXPECT_FALSE(in[5].cc);
  EXPECT_EQ(in[5].pred_dst2, kNoReg);

  EXPECT_NE(error_of("madc.u32 %r1, %r2, %r3, %r4;").find("needs .lo or .hi"), std::string::npos);
  EXPECT_NE(error_of("add.u32 %r1|%p1, %r2, %r3;").find("has no second predicate destination"), std::string::npos);
  // A function without carry arithmetic has no hidden predicate.
  EXPECT_TRUE(parse_body("\tadd.u32 %r1, %r2, %r3;\n\tret;").pred_names.empty());
}

TEST(PtxNewInstructions, ReduxSync) {
  Instruction in = parse_one("redux.sync.add.s32 %r1, %r2, 0xffffffff;");
  EXPECT_EQ(in.op, Opcode::Redux);
  EXPECT_EQ(in.aop, AtomOp::Add);
  EXPECT_TRUE(in.sync);
  EXPECT_EQ(in.type, Type::S32);
  EXPECT_EQ(in.ops[2].imm, 0xffffffffu);
  EXPECT_EQ(parse_one("redux.sync.xor.b32 %r1, %r2, %r3;").aop, AtomOp::Xor);
  EXPECT_NE(error_of("redux.sync.u32 %r1, %r2, -1;").find("needs an operation"), std::string::npos);
  EXPECT_NE(error_of("redux.add.u32 %r1, %r2, -1;").find("needs .sync"), std::string::npos);
}

}  // namespace
}  // namespace gpumux::ptx
