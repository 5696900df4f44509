#include "gpumux/ptx/parser.h"

#include <gtest/gtest.h>

#include <bit>

#include "ptx_test_util.h"

namespace gpumux::ptx {
namespace {

using test::kBodyLine;
using test::kernel_with;
using test::parse_body;
using test::parse_one;
using test::reg_index;

std::string error_of(const std::string& text) {
  try {
    parse_ptx(text, "bad.ptx");
  } catch (const LoadError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(PtxParser, ModuleHeader) {
  Module m = parse_ptx(kernel_with("\tret;"), "t.ptx");
  EXPECT_EQ(m.version, "9.0");
  EXPECT_EQ(m.target, "sm_80");
  EXPECT_EQ(m.address_size, 64u);
  ASSERT_EQ(m.functions.size(), 1u);
  const Function& k = m.functions[0];
  EXPECT_TRUE(k.is_entry);
  EXPECT_TRUE(k.visible);
  EXPECT_FALSE(k.is_extern);
  ASSERT_EQ(k.params.size(), 2u);
  EXPECT_EQ(k.params[1].name, "k_param_1");
  EXPECT_EQ(k.params[1].offset, 8u);
  EXPECT_EQ(k.param_bytes, 12u);
  EXPECT_EQ(m.find_function("k"), &m.functions[0]);
  EXPECT_EQ(k.insts.size(), 1u);
  EXPECT_EQ(k.insts[0].op, Opcode::Ret);
  EXPECT_EQ(k.insts[0].line, kBodyLine);
}

TEST(PtxParser, ImmediatesTakeTheirSlotType) {
  EXPECT_EQ(parse_one("add.s32 %r1, %r2, -1;").ops[2].imm, 0xffffffffu);
  EXPECT_EQ(parse_one("add.s64 %rd1, %rd2, -1;").ops[2].imm, ~uint64_t(0));
  EXPECT_EQ(parse_one("add.u32 %r1, %r2, 0x10;").ops[2].imm, 16u);
  EXPECT_EQ(parse_one("add.u32 %r1, %r2, 010;").ops[2].imm, 8u);
  EXPECT_EQ(parse_one("add.u32 %r1, %r2, 0b11;").ops[2].imm, 3u);
  EXPECT_EQ(parse_one("add.f32 %f1, %f2, 0f3F800000;").ops[2].imm, 0x3f800000u);
  EXPECT_EQ(parse_one("add.f32 %f1, %f2, 1.0;").ops[2].imm, 0x3f800000u);
  EXPECT_EQ(parse_one("add.f32 %f1, %f2, 2;").ops[2].imm, std::bit_cast<uint32_t>(2.0f));
  EXPECT_EQ(parse_one("add.f64 %fd1, %fd2, 0d3FF0000000000000;").ops[2].imm,
            std::bit_cast<uint64_t>(1.0));
  EXPECT_EQ(parse_one("add.f64 %fd1, %fd2, 0f3F800000;").ops[2].imm, std::bit_cast<uint64_t>(1.0));
  EXPECT_EQ(parse_one("mul.f32 %f1, %f2, 0d3FE0000000000000;").ops[2].imm,
            std::bit_cast<uint32_t>(0.5f));
  EXPECT_EQ(parse_one("mov.f32 %f1, -1.5;").ops[1].imm, std::bit_cast<uint32_t>(-1.5f));
  EXPECT_EQ(parse_one("mov.b32 %r1, 0f3F800000;").ops[1].imm, 0x3f800000u);
  EXPECT_EQ(parse_one("st.global.u8 [%rd1], 300;").ops[1].imm, 44u);
}

TEST(PtxParser, ImmediateSlotsWithTheirOwnType) {
  // cvt: the source slot has type2.
  Instruction cvt = parse_one("cvt.rn.f32.s32 %f1, -2;");
  EXPECT_EQ(cvt.type, Type::F32);
  EXPECT_EQ(cvt.type2, Type::S32);
  EXPECT_EQ(cvt.ops[1].imm, 0xfffffffeu);
  // Shift amounts, bit-field positions and lengths are u32.
  EXPECT_EQ(parse_one("shl.b64 %rd1, %rd2, -1;").ops[2].imm, 0xffffffffu);
  Instruction bfe = parse_one("bfe.u64 %rd1, %rd2, 4, 8;");
  EXPECT_EQ(bfe.ops[2].imm, 4u);
  EXPECT_EQ(bfe.ops[3].imm, 8u);
  Instruction bfi = parse_one("bfi.b64 %rd1, %rd2, %rd3, -1, 3;");
  EXPECT_EQ(bfi.ops[3].imm, 0xffffffffu);
  EXPECT_EQ(parse_one("shf.l.wrap.b32 %r1, %r2, %r3, -1;").ops[3].imm, 0xffffffffu);
  // setp compares in its type; selp's selector is a predicate.
  Instruction setp = parse_one("setp.lt.f32 %p1, %f1, 1;");
  EXPECT_EQ(setp.type, Type::F32);
  EXPECT_EQ(setp.type2, Type::F32);
  EXPECT_EQ(setp.ops[2].imm, std::bit_cast<uint32_t>(1.0f));
  EXPECT_EQ(parse_one("selp.f64 %fd1, 1, 0, %p1;").ops[1].imm, std::bit_cast<uint64_t>(1.0));
  // mad.wide: the addend has twice the width.
  EXPECT_EQ(parse_one("mad.wide.s32 %rd1, %r1, 4, -1;").ops[3].imm, ~uint64_t(0));
  // shfl lane/clamp/membermask are u32.
  Instruction shfl = parse_one("shfl.sync.idx.b32 %r1, %r2, 0, 31, -1;");
  EXPECT_EQ(shfl.ops[4].imm, 0xffffffffu);
}

TEST(PtxParser, OperandKinds) {
  Function f = parse_body(
      "\tmov.u32 %r1, %tid.y;\n"
      "\tmov.u32 %r2, %envreg7;\n"
      "\tmov.u32 %r3, %dynamic_smem_size;\n"
      "\tmov.u32 %r4, %total_smem_size;\n"
      "\tmov.u64 %rd1, %clock64;\n"
      "\t@!%p1 add.s32 %r5, %r1, %r2;\n"
      "\tmov.pred %p2, %p3;\n"
      "\tret;");
  const auto& in = f.insts;
  EXPECT_EQ(in[0].ops[1].kind, OperandKind::Special);
  EXPECT_EQ(in[0].ops[1].sreg, SpecialReg::Tid);
  EXPECT_EQ(in[0].ops[1].comp, 1);
  EXPECT_EQ(in[1].ops[1].sreg, SpecialReg::Envreg);
  EXPECT_EQ(in[1].ops[1].comp, 7);
  EXPECT_EQ(in[2].ops[1].sreg, SpecialReg::DynamicSmemSize);
  EXPECT_EQ(in[3].ops[1].sreg, SpecialReg::TotalSmemSize);
  EXPECT_EQ(in[4].ops[1].sreg, SpecialReg::Clock64);
  EXPECT_EQ(in[5].guard, 0);  // %p1 is the first predicate used
  EXPECT_TRUE(in[5].guard_neg);
  EXPECT_EQ(in[5].ops[0].kind, OperandKind::Reg);
  EXPECT_EQ(in[5].ops[0].reg, reg_index(f, "%r5"));
  EXPECT_EQ(in[5].ops[1].reg, reg_index(f, "%r1"));
  EXPECT_EQ(in[6].ops[0].kind, OperandKind::Pred);
  EXPECT_EQ(f.num_preds, 3u);
  EXPECT_EQ(f.num_regs, 6u);  // registers are numbered on first use
  EXPECT_EQ(f.reg_types[reg_index(f, "%rd1")], Type::B64);
}

TEST(PtxParser, AddressForms) {
  Function f = parse_body(
      "\tld.global.u32 %r1, [%rd1];\n"
      "\tld.global.u32 %r2, [%rd1+8];\n"
      "\tld.global.u32 %r3, [%rd1+-4];\n"
      "\tld.param.u64 %rd2, [k_param_0];\n"
      "\tld.param.u32 %r4, [k_param_1+0];\n"
      "\tld.global.u32 %r5, [64];\n"
      "\tld.global.u32 %r6, [%rd1-12];\n"
      "\tret;");
  const auto& in = f.insts;
  EXPECT_EQ(in[0].ops[1].kind, OperandKind::Addr);
  EXPECT_EQ(in[0].ops[1].reg, reg_index(f, "%rd1"));
  EXPECT_EQ(in[0].ops[1].sym, kNoSym);
  EXPECT_EQ(in[1].ops[1].imm, 8u);
  EXPECT_EQ(in[2].ops[1].imm, uint64_t(-4));
  EXPECT_EQ(in[3].ops[1].reg, kNoReg);
  EXPECT_EQ(in[3].ops[1].scope, SymScope::Param);
  EXPECT_EQ(in[3].ops[1].sym, 0u);
  EXPECT_EQ(in[4].ops[1].sym, 1u);
  EXPECT_EQ(in[5].ops[1].reg, kNoReg);
  EXPECT_EQ(in[5].ops[1].imm, 64u);
  EXPECT_EQ(in[6].ops[1].imm, uint64_t(-12));
}

TEST(PtxParser, VectorOperands) {
  Function f = parse_body(
      "\tld.global.nc.v4.f32 {%f1, %f2, _, %f4}, [%rd1];\n"
      "\tst.shared.v2.u32 [%r1+8], {%r2, %r3};\n"
      "\tmov.b64 %rd2, {%r4, %r5};\n"
      "\tmov.b64 {%r6, %r7}, %rd2;\n"
      "\tmov.b32 %r8, {%rs1, %rs2};\n"
      "\tret;");
  const auto& in = f.insts;
  EXPECT_EQ(in[0].vec, 4);
  EXPECT_TRUE(in[0].nc);
  EXPECT_EQ(in[0].space, Space::Global);
  EXPECT_EQ(in[0].ops[0].kind, OperandKind::Vec);
  EXPECT_EQ(in[0].ops[0].vcount, 4);
  EXPECT_EQ(in[0].ops[0].vec[0], reg_index(f, "%f1"));
  EXPECT_EQ(in[0].ops[0].vec[2], kNoReg);
  EXPECT_EQ(in[1].vec, 2);
  EXPECT_EQ(in[1].ops[1].kind, OperandKind::Vec);
  EXPECT_EQ(in[2].ops[1].kind, OperandKind::Vec);
  EXPECT_EQ(in[2].ops[1].vec[0], reg_index(f, "%r4"));
  EXPECT_EQ(in[3].ops[0].kind, OperandKind::Vec);
  EXPECT_EQ(in[3].ops[0].vec[1], reg_index(f, "%r7"));
  EXPECT_EQ(in[4].ops[1].vcount, 2);
}

TEST(PtxParser, MemoryModifiers) {
  Instruction a = parse_one("ld.volatile.shared.u32 %r1, [%r2];");
  EXPECT_TRUE(a.is_volatile);
  EXPECT_EQ(a.space, Space::Shared);
  for (const char* hint : {"ca", "cg", "cs", "lu", "cv", "L1::evict_last", "L2::256B", "L1::no_allocate"}) {
    Instruction h = parse_one(std::string("ld.global.") + hint + ".f32 %f1, [%rd1];");
    EXPECT_EQ(h.space, Space::Global) << hint;
    EXPECT_EQ(h.type, Type::F32) << hint;
    EXPECT_FALSE(h.is_volatile) << hint;
  }
  EXPECT_TRUE(parse_one("ld.relaxed.gpu.global.u32 %r1, [%rd1];").is_volatile);
  EXPECT_EQ(parse_one("st.global.wb.u32 [%rd1], %r1;").space, Space::Global);
  EXPECT_EQ(parse_one("ld.u32 %r1, [%rd1];").space, Space::Generic);
  Instruction ldu = parse_one("ldu.global.f32 %f1, [%rd1];");
  EXPECT_EQ(ldu.op, Opcode::Ldu);
  Instruction pf = parse_one("prefetch.global.L2 [%rd1];");
  EXPECT_EQ(pf.op, Opcode::Prefetch);
  EXPECT_EQ(pf.space, Space::Global);
  EXPECT_EQ(pf.nops, 1);
}

TEST(PtxParser, Atomics) {
  Instruction cas = parse_one("atom.global.cas.b32 %r1, [%rd1], %r2, 5;");
  EXPECT_EQ(cas.op, Opcode::Atom);
  EXPECT_EQ(cas.aop, AtomOp::Cas);
  EXPECT_EQ(cas.nops, 4);
  EXPECT_EQ(cas.ops[3].imm, 5u);
  Instruction fadd = parse_one("atom.shared.add.f32 %f1, [%r1], 0f3F800000;");
  EXPECT_EQ(fadd.space, Space::Shared);
  EXPECT_EQ(fadd.type, Type::F32);
  Instruction red = parse_one("red.global.add.u64 [%rd1], %rd2;");
  EXPECT_EQ(red.op, Opcode::Red);
  EXPECT_EQ(red.ops[0].kind, OperandKind::Addr);
  Instruction h = parse_one("atom.add.noftz.f16 %rs1, [%rd1], %rs2;");
  EXPECT_EQ(h.type, Type::F16);
  EXPECT_EQ(h.space, Space::Generic);
  EXPECT_FALSE(h.ftz);
  Instruction sys = parse_one("atom.acq_rel.gpu.global.exch.b64 %rd1, [%rd2], %rd3;");
  EXPECT_EQ(sys.aop, AtomOp::Exch);
}

TEST(PtxParser, ArithmeticModifiers) {
  Instruction mw = parse_one("mul.wide.s32 %rd1, %r1, %r2;");
  EXPECT_EQ(mw.mul, MulMode::Wide);
  EXPECT_EQ(mw.type, Type::S32);
  EXPECT_EQ(parse_one("mad.hi.u32 %r1, %r2, %r3, %r4;").mul, MulMode::Hi);
  Instruction rcp = parse_one("rcp.approx.ftz.f64 %fd1, %fd2;");
  EXPECT_TRUE(rcp.approx);
  EXPECT_TRUE(rcp.ftz);
  EXPECT_EQ(parse_one("sqrt.rn.f32 %f1, %f2;").rnd, Rounding::Rn);
  EXPECT_TRUE(parse_one("ex2.approx.ftz.f32 %f1, %f2;").approx);
  EXPECT_EQ(parse_one("tanh.approx.f32 %f1, %f2;").op, Opcode::Tanh);
  EXPECT_TRUE(parse_one("div.full.f32 %f1, %f2, %f3;").full);
  EXPECT_TRUE(parse_one("add.sat.s32 %r1, %r2, %r3;").sat);
  EXPECT_EQ(parse_one("fma.rm.f32 %f1, %f2, %f3, %f4;").rnd, Rounding::Rm);
  EXPECT_EQ(parse_one("testp.finite.f32 %p1, %f1;").testp, TestpMode::Finite);
  EXPECT_EQ(parse_one("copysign.f32 %f1, %f2, %f3;").op, Opcode::Copysign);
  EXPECT_EQ(parse_one("mul24.lo.s32 %r1, %r2, %r3;").mul, MulMode::Lo);
  EXPECT_EQ(parse_one("sad.u32 %r1, %r2, %r3, %r4;").op, Opcode::Sad);
}

TEST(PtxParser, ConversionModifiers) {
  Instruction a = parse_one("cvt.rzi.s32.f32 %r1, %f1;");
  EXPECT_EQ(a.rnd, Rounding::Rzi);
  EXPECT_EQ(a.type, Type::S32);
  EXPECT_EQ(a.type2, Type::F32);
  Instruction b = parse_one("cvt.rn.f16.f32 %rs1, %f1;");
  EXPECT_EQ(b.type, Type::F16);
  EXPECT_EQ(parse_one("cvt.f32.f16 %f1, %rs1;").type2, Type::F16);
  Instruction c = parse_one("cvt.sat.u8.s32 %rs1, %r1;");
  EXPECT_TRUE(c.sat);
  EXPECT_EQ(c.type, Type::U8);
  Instruction d = parse_one("cvta.to.global.u64 %rd1, %rd2;");
  EXPECT_TRUE(d.cvta_to);
  EXPECT_EQ(d.space, Space::Global);
  Instruction e = parse_one("cvta.shared.u64 %rd1, %rd2;");
  EXPECT_FALSE(e.cvta_to);
  EXPECT_EQ(e.space, Space::Shared);
  Instruction f = parse_one("isspacep.shared %p1, %rd1;");
  EXPECT_EQ(f.space, Space::Shared);
  EXPECT_EQ(f.ops[0].kind, OperandKind::Pred);
}

TEST(PtxParser, BitModifiers) {
  EXPECT_EQ(parse_one("prmt.b32.f4e %r1, %r2, %r3, %r4;").prmt, PrmtMode::F4e);
  EXPECT_EQ(parse_one("prmt.b32 %r1, %r2, %r3, 0x5410;").prmt, PrmtMode::None);
  Instruction lop = parse_one("lop3.b32 %r1, %r2, %r3, %r4, 0x96;");
  EXPECT_EQ(lop.nops, 5);
  EXPECT_EQ(lop.ops[4].imm, 0x96u);
  Instruction shf = parse_one("shf.r.clamp.b32 %r1, %r2, %r3, %r4;");
  EXPECT_EQ(shf.sdir, ShiftDir::Right);
  EXPECT_EQ(shf.shf, ShfMode::Clamp);
  EXPECT_FALSE(parse_one("bfind.u32 %r1, %r2;").shiftamt);
  EXPECT_TRUE(parse_one("bfind.shiftamt.s32 %r1, %r2;").shiftamt);
  Instruction dp = parse_one("dp4a.u32.s32 %r1, %r2, %r3, -1;");
  EXPECT_EQ(dp.type, Type::U32);
  EXPECT_EQ(dp.type2, Type::S32);
  EXPECT_EQ(dp.ops[3].imm, 0xffffffffu);
  EXPECT_EQ(parse_one("dp2a.hi.u32.u32 %r1, %r2, %r3, %r4;").mul, MulMode::Hi);
  EXPECT_EQ(parse_one("popc.b64 %r1, %rd1;").type, Type::B64);
  EXPECT_EQ(parse_one("and.pred %p1, %p2, %p3;").ops[0].kind, OperandKind::Pred);
}

TEST(PtxParser, Comparisons) {
  Instruction s = parse_one("setp.lt.and.f32 %p1|%p2, %f1, %f2, !%p3;");
  EXPECT_EQ(s.cmp, CmpOp::Lt);
  EXPECT_EQ(s.bop, BoolOp::And);
  EXPECT_EQ(s.nops, 4);
  EXPECT_NE(s.pred_dst2, kNoReg);
  EXPECT_NE(s.pred_dst2, s.ops[0].reg);
  EXPECT_EQ(s.ops[3].kind, OperandKind::Pred);
  EXPECT_TRUE(s.ops[3].neg);
  Instruction set = parse_one("set.gt.u32.f32 %r1, %f1, 0f3F800000;");
  EXPECT_EQ(set.type, Type::U32);
  EXPECT_EQ(set.type2, Type::F32);
  EXPECT_EQ(set.ops[2].imm, 0x3f800000u);
  EXPECT_EQ(parse_one("setp.geu.f64 %p1, %fd1, %fd2;").cmp, CmpOp::Geu);
  Instruction slct = parse_one("slct.s32.f32 %r1, %r2, %r3, %f1;");
  EXPECT_EQ(slct.type2, Type::F32);
}

TEST(PtxParser, WarpAndBarrierInstructions) {
  Instruction shfl = parse_one("shfl.sync.bfly.b32 %r1|%p1, %r2, %r3, %r4, %r5;");
  EXPECT_EQ(shfl.shfl, ShflMode::Bfly);
  EXPECT_TRUE(shfl.sync);
  EXPECT_EQ(shfl.nops, 5);
  EXPECT_NE(shfl.pred_dst2, kNoReg);
  Instruction ballot = parse_one("vote.sync.ballot.b32 %r1, %p1, -1;");
  EXPECT_EQ(ballot.vote, VoteMode::Ballot);
  EXPECT_EQ(ballot.ops[2].imm, 0xffffffffu);
  Instruction all = parse_one("vote.all.pred %p1, !%p2;");
  EXPECT_FALSE(all.sync);
  EXPECT_EQ(all.nops, 2);
  Instruction m = parse_one("match.any.sync.b32 %r1, %r2, -1;");
  EXPECT_EQ(m.op, Opcode::Match);
  EXPECT_EQ(m.vote, VoteMode::Any);
  EXPECT_EQ(parse_one("match.all.sync.b32 %r1|%p1, %r2, %r3;").vote, VoteMode::All);
  EXPECT_EQ(parse_one("activemask.b32 %r1;").op, Opcode::Activemask);

  Instruction b0 = parse_one("bar.sync 0;");
  EXPECT_EQ(b0.bar, BarKind::Sync);
  EXPECT_TRUE(b0.aligned);
  EXPECT_EQ(b0.nops, 1);
  Instruction b1 = parse_one("bar.sync 1, 64;");
  EXPECT_EQ(b1.nops, 2);
  EXPECT_EQ(b1.ops[1].imm, 64u);
  Instruction b2 = parse_one("barrier.sync %r1;");
  EXPECT_FALSE(b2.aligned);
  EXPECT_TRUE(parse_one("barrier.sync.aligned 0;").aligned);
  Instruction red = parse_one("bar.red.popc.u32 %r1, 0, %p1;");
  EXPECT_EQ(red.bar, BarKind::Red);
  EXPECT_EQ(red.bred, RedOp::Popc);
  EXPECT_EQ(red.nops, 3);
  Instruction redand = parse_one("bar.red.and.pred %p1, 0, 128, !%p2;");
  EXPECT_EQ(redand.ops[0].kind, OperandKind::Pred);
  EXPECT_EQ(redand.nops, 4);
  EXPECT_EQ(parse_one("bar.arrive 1, 128;").bar, BarKind::Arrive);
  Instruction warp = parse_one("bar.warp.sync -1;");
  EXPECT_EQ(warp.bar, BarKind::Warp);
  EXPECT_EQ(warp.ops[0].imm, 0xffffffffu);
  for (const char* fence : {"membar.gl;", "membar.cta;", "membar.sys;", "fence.acq_rel.gpu;", "fence.sc.cta;"})
    EXPECT_EQ(parse_one(fence).op, Opcode::Membar) << fence;
  EXPECT_EQ(parse_one("nanosleep.u32 100;").ops[0].imm, 100u);
  EXPECT_EQ(parse_one("trap;").op, Opcode::Trap);
  EXPECT_EQ(parse_one("brkpt;").op, Opcode::Brkpt);
  EXPECT_EQ(parse_one("exit;").op, Opcode::Exit);
}

TEST(PtxParser, ModuleVariablesAndInitializers) {
  const std::string vars =
      ".global .align 4 .b8 bytes[6] = {1, 2, 255};\n"
      ".const .align 8 .f64 scale = 0d3FC0000000000000;\n"
      ".global .align 4 .u32 arr[2][2] = {{1, 2}, {3, -1}};\n"
      ".global .align 4 .f32 fl[2] = {1.5, 0f40000000};\n"
      ".global .align 8 .u64 ptrs[3] = {generic(bytes), generic(arr)+8, fl};\n"
      ".extern .shared .align 16 .b8 dyn[];\n"
      ".visible .global .u32 counter;\n"
      ".global .b8 unsized[] = {7, 8, 9};\n";
  Module m = parse_ptx(kernel_with("\tmov.u64 %rd1, counter;\n\tret;", vars), "t.ptx");
  ASSERT_EQ(m.globals.size(), 8u);
  const Variable& bytes = *m.find_global("bytes");
  EXPECT_EQ(bytes.size, 6u);
  EXPECT_EQ(bytes.align, 4u);
  EXPECT_EQ(bytes.init, (std::vector<uint8_t>{1, 2, 255}));
  const Variable& scale = *m.find_global("scale");
  EXPECT_EQ(scale.space, Space::Const);
  ASSERT_EQ(scale.init.size(), 8u);
  EXPECT_EQ(scale.init[7], 0x3f);
  const Variable& arr = *m.find_global("arr");
  EXPECT_EQ(arr.size, 16u);
  EXPECT_EQ(arr.init, (std::vector<uint8_t>{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 255, 255, 255, 255}));
  const Variable& fl = *m.find_global("fl");
  EXPECT_EQ(fl.init, (std::vector<uint8_t>{0, 0, 0xc0, 0x3f, 0, 0, 0, 0x40}));
  const Variable& ptrs = *m.find_global("ptrs");
  ASSERT_EQ(ptrs.init_addrs.size(), 3u);
  EXPECT_EQ(ptrs.init_addrs[0], (std::pair<uint64_t, std::string>{0, "bytes"}));
  EXPECT_EQ(ptrs.init_addrs[1], (std::pair<uint64_t, std::string>{8, "arr"}));
  EXPECT_EQ(ptrs.init_addrs[2], (std::pair<uint64_t, std::string>{16, "fl"}));
  EXPECT_EQ(ptrs.init[8], 8);  // the addend of generic(arr)+8
  const Variable& dyn = *m.find_global("dyn");
  EXPECT_TRUE(dyn.is_extern);
  EXPECT_EQ(dyn.space, Space::Shared);
  EXPECT_EQ(dyn.size, 0u);
  EXPECT_TRUE(m.find_global("counter")->visible);
  EXPECT_EQ(m.find_global("unsized")->size, 3u);
  const Operand& sym = m.functions[0].insts[0].ops[1];
  EXPECT_EQ(sym.kind, OperandKind::Symbol);
  EXPECT_EQ(sym.scope, SymScope::Module);
  EXPECT_EQ(sym.sym, m.global_index.at("counter"));
}

TEST(PtxParser, FunctionsParamsAndCalls) {
  const std::string text = std::string(test::kHeader) +
                           ".func (.param .align 4 .b8 retval[12]) make(.param .b32 a, .param .align 8 .b8 b[16]);\n"
                           ".func (.param .align 4 .b8 retval[12]) make(.param .b32 a, .param .align 8 .b8 b[16])\n"
                           "{\n"
                           "\t.reg .b32 %r<3>;\n"
                           "\tld.param.b32 %r1, [a];\n"
                           "\tst.param.b32 [retval+4], %r1;\n"
                           "\tret;\n"
                           "}\n"
                           ".entry kern(.param .u64 .ptr .global .align 16 p)\n"
                           ".maxntid 128, 2, 1\n"
                           ".minnctapersm 4\n"
                           "{\n"
                           "\t.reg .b32 %r<4>;\n"
                           "\t{ // callseq 0, 0\n"
                           "\t.param .b32 param0;\n"
                           "\tst.param.b32 [param0+0], %r1;\n"
                           "\t.param .align 8 .b8 param1[16];\n"
                           "\t.param .align 4 .b8 retval0[12];\n"
                           "\tcall.uni (retval0), make, (param0, param1);\n"
                           "\tld.param.b32 %r2, [retval0+4];\n"
                           "\t}\n"
                           "\t{\n"
                           "\t.param .b32 param0;\n"
                           "\t.param .align 8 .b8 param1[16];\n"
                           "\t.param .align 4 .b8 retval0[12];\n"
                           "\tst.param.b32 [param0], 7;\n"
                           "\tcall (retval0), make, (param0, param1);\n"
                           "\t}\n"
                           "\tret;\n"
                           "}\n";
  Module m = parse_ptx(text, "t.ptx");
  ASSERT_EQ(m.functions.size(), 2u);
  const Function& make = m.functions[0];
  EXPECT_FALSE(make.is_extern);
  EXPECT_FALSE(make.is_entry);
  ASSERT_EQ(make.params.size(), 2u);
  EXPECT_EQ(make.params[1].offset, 8u);
  EXPECT_EQ(make.params[1].size, 16u);
  EXPECT_EQ(make.param_bytes, 24u);
  ASSERT_EQ(make.rets.size(), 1u);
  EXPECT_EQ(make.ret_bytes, 12u);
  EXPECT_EQ(make.insts[1].ops[0].scope, SymScope::Ret);
  EXPECT_EQ(make.insts[1].ops[0].imm, 4u);
  EXPECT_EQ(make.insts[0].ops[1].scope, SymScope::Param);

  const Function& k = m.functions[1];
  EXPECT_TRUE(k.is_entry);
  EXPECT_FALSE(k.visible);
  EXPECT_TRUE(k.params[0].is_ptr);
  EXPECT_EQ(k.params[0].align, 16u);
  EXPECT_EQ(k.maxntid, (std::array<uint32_t, 3>{128, 2, 1}));
  EXPECT_EQ(k.minnctapersm, 4u);
  // Two call blocks: six call-block .param variables, same names in both.
  ASSERT_EQ(k.locals.size(), 6u);
  EXPECT_EQ(k.locals[0].space, Space::Param);
  EXPECT_EQ(k.locals[3].name, "param0");
  const Instruction& call = k.insts[1];
  EXPECT_EQ(call.op, Opcode::Call);
  EXPECT_TRUE(call.uni);
  EXPECT_EQ(call.ops[0].kind, OperandKind::Func);
  EXPECT_EQ(call.ops[0].sym, 0u);
  ASSERT_EQ(call.call_args.size(), 2u);
  EXPECT_EQ(call.call_args[1].scope, SymScope::Local);
  EXPECT_EQ(call.call_args[1].sym, 1u);
  ASSERT_EQ(call.call_rets.size(), 1u);
  EXPECT_EQ(call.call_rets[0].sym, 2u);
  EXPECT_EQ(k.insts[2].ops[1].sym, 2u);  // ld.param from the first block's retval0
  EXPECT_EQ(k.insts[3].ops[0].sym, 3u);  // the second block's param0
  EXPECT_EQ(k.insts[4].call_args[0].sym, 3u);
  EXPECT_FALSE(k.insts[4].uni);
}

TEST(PtxParser, IndirectCallWithPrototype) {
  const std::string text = std::string(test::kHeader) +
                           ".func (.param .b32 r) f(.param .b32 x)\n{\n\tst.param.b32 [r], 1;\n\tret;\n}\n"
                           ".entry k()\n{\n"
                           "\t.reg .b64 %rd<3>;\n"
                           "\tmov.u64 %rd1, f;\n"
                           "\t{\n"
                           "\t.param .b32 param0;\n"
                           "\t.param .b32 retval0;\n"
                           "\tprototype_1 : .callprototype (.param .b32 _) _ (.param .b32 _);\n"
                           "\tcall (retval0), %rd1, (param0), prototype_1;\n"
                           "\t}\n"
                           "\tret;\n}\n";
  Module m = parse_ptx(text, "t.ptx");
  const Function& k = m.functions[1];
  EXPECT_EQ(k.insts[0].ops[1].kind, OperandKind::Func);
  EXPECT_EQ(k.insts[0].ops[1].sym, 0u);
  EXPECT_EQ(k.insts[1].ops[0].kind, OperandKind::Reg);
  EXPECT_EQ(k.insts[1].call_args.size(), 1u);
  EXPECT_TRUE(m.unsupported.empty());
  // A prototype of the wrong arity is an error.
  std::string bad = text;
  bad.replace(bad.find("(param0), prototype_1"), 21, "(), prototype_1");
  EXPECT_NE(error_of(bad).find("does not match prototype 'prototype_1'"), std::string::npos);
}

TEST(PtxParser, NestedScopesAndLabels) {
  Function f = parse_body(
      "\t{ .reg .pred p;\n"
      "\tsetp.lt.s32 p, %r1, 10;\n"
      "\t@p bra DONE;\n"
      "\tadd.s32 %r1, %r1, 1;\n"
      "DONE:\n"
      "\t}\n"
      "\t{ .reg .pred p;\n"
      "\tsetp.gt.s32 p, %r1, 10;\n"
      "\t@!p bra DONE;\n"
      "DONE:\n"
      "\t}\n"
      "\tbra.uni DONE;\n"
      "DONE:\n"
      "\tret;");
  ASSERT_EQ(f.insts.size(), 7u);
  EXPECT_EQ(f.insts[1].ops[0].kind, OperandKind::Label);
  EXPECT_EQ(f.insts[1].ops[0].imm, 3u);
  EXPECT_EQ(f.insts[4].ops[0].imm, 5u);  // the second block's own DONE
  EXPECT_EQ(f.insts[5].ops[0].imm, 6u);
  EXPECT_TRUE(f.insts[5].uni);
  EXPECT_NE(f.insts[0].ops[0].reg, f.insts[3].ops[0].reg);  // two different p
  EXPECT_EQ(f.num_preds, 2u);
  EXPECT_EQ(f.labels.size(), 3u);
}

TEST(PtxParser, LocAndFileDirectives) {
  const std::string body =
      "\t.loc\t1 10 3\n"
      "\tadd.s32 %r1, %r2, %r3;\n"
      "\t.loc\t2 631 1, function_name $L__info_string3, inlined_at 1 14 5\n"
      "\tmul.lo.s32 %r1, %r2, %r3;\n"
      "\tret;";
  const std::string text = kernel_with(body) +
                           "\t.file\t1 \"/src/app.cu\"\n"
                           "\t.file\t2 \"/cuda/include/cuda_fp16.hpp\", 1700000000, 1234\n"
                           "\t.section\t.debug_str\n\t{\n$L__info_string3:\n.b8 95,90,0\n\t}\n"
                           "@@DWARF .byte 0x01\n";
  Module m = parse_ptx(text, "t.ptx");
  ASSERT_EQ(m.files.size(), 3u);
  EXPECT_EQ(m.files[1], "/src/app.cu");
  EXPECT_EQ(m.files[2], "/cuda/include/cuda_fp16.hpp");
  const auto& in = m.functions[0].insts;
  EXPECT_EQ(in[0].src_file, 1u);
  EXPECT_EQ(in[0].src_line, 10u);
  EXPECT_EQ(in[1].src_file, 2u);
  EXPECT_EQ(in[1].src_line, 631u);
  EXPECT_EQ(in[1].line, kBodyLine + 3);
}

TEST(PtxParser, UnsupportedConstructsAreRecordedNotFatal) {
  const std::string body =
      "\tistypep.texref %p1, %rd1;\n"                                  // 15
      "\tmbarrier.expect_tx.shared.b64 [%rd1], %r2;\n"                  // 16
      "\tbrx.idx %r1, %r2;\n"                                           // 17
      "\twgmma.fence.sync.aligned;\n"                                    // 18
      "\tcp.async.bulk.commit_group;\n"                                  // 19
      "\tfrobnicate.u32 %r1;\n"                                         // 20
      "\tmov.u32 %r1, %cluster_ctarank;\n"                              // 21
      "\tld.global.L2::cache_hint.f32 %f1, [%rd1], %rd2;\n"             // 22
      "\tcvt.rn.satfinite.e4m3x2.f32 %r1, %f1, %f2;\n"                  // 23
      "\tsured.b.add.1d.u32.trap [%rd1, {%r7}], %r6;\n"                // 24
      "\tadd.s32 %r1, %r2, %r3;\n"
      "\tret;";
  Module m = parse_ptx(kernel_with(body, ".global .texref tref;\n"), "u.ptx");
  // The kernel moved down by the one-line prefix.
  ASSERT_EQ(m.unsupported.size(), 11u);
  EXPECT_EQ(m.unsupported[0].line, 4u);
  EXPECT_NE(m.unsupported[0].construct.find(".texref"), std::string::npos);
  EXPECT_EQ(m.unsupported[1].line, kBodyLine + 1);
  EXPECT_EQ(m.unsupported[1].construct, "istypep.texref (texture)");
  EXPECT_EQ(m.unsupported[2].construct, "mbarrier.expect_tx.shared.b64 (modifier .expect_tx)");
  EXPECT_EQ(m.unsupported[3].construct, "brx.idx (indirect branch)");
  EXPECT_NE(m.unsupported[4].construct.find("tensor core"), std::string::npos);
  EXPECT_EQ(m.unsupported[5].construct, "cp.async.bulk.commit_group (modifier .bulk)");
  EXPECT_EQ(m.unsupported[6].construct, "unknown instruction frobnicate.u32");
  EXPECT_EQ(m.unsupported[7].construct, "special register %cluster_ctarank");
  EXPECT_NE(m.unsupported[8].construct.find(".L2::cache_hint"), std::string::npos);
  EXPECT_NE(m.unsupported[9].construct.find("e4m3x2"), std::string::npos);
  EXPECT_EQ(m.unsupported[10].construct, "sured.b.add.1d.u32.trap (surface)");
  EXPECT_EQ(m.unsupported[10].line, kBodyLine + 10);
  // Parsing went on: the supported instructions are there.
  ASSERT_EQ(m.functions[0].insts.size(), 2u);
  EXPECT_EQ(m.functions[0].insts[0].op, Opcode::Add);

  try {
    require_supported(m);
    FAIL() << "require_supported accepted unsupported constructs";
  } catch (const LoadError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("u.ptx:16: unsupported: istypep.texref (texture)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("u.ptx:25: unsupported: sured.b.add.1d.u32.trap (surface)"), std::string::npos) << msg;
  }
}

// A call to an undefined .extern function is unsupported unless the engine
// implements it (ptx/builtins.h); either way the call stays in the IR.
TEST(PtxParser, ExternCallsAreUnsupportedUnlessBuiltin) {
  auto module_calling = [](const std::string& callee) {
    return std::string(test::kHeader) + ".extern .func (.param .b32 func_retval0) " + callee +
           "\n(\n\t.param .b64 p_0,\n\t.param .b64 p_1\n)\n;\n"
           ".entry k()\n{\n"
           "\t{\n"
           "\t.param .b64 param0;\n"
           "\t.param .b64 param1;\n"
           "\t.param .b32 retval0;\n"
           "\tcall.uni (retval0), \n\t" + callee + ", \n\t(\n\tparam0, \n\tparam1\n\t);\n"
           "\t}\n"
           "\tret;\n}\n";
  };
  Module m = parse_ptx(module_calling("cudaLaunchDeviceV2"), "p.ptx");
  ASSERT_EQ(m.unsupported.size(), 1u);
  EXPECT_EQ(m.unsupported[0].line, 16u);
  EXPECT_EQ(m.unsupported[0].construct, "call to external function cudaLaunchDeviceV2 (dynamic parallelism)");
  EXPECT_TRUE(m.functions[0].is_extern);

  Module builtin = parse_ptx(module_calling("vprintf"), "p.ptx");
  EXPECT_TRUE(builtin.unsupported.empty());
  EXPECT_EQ(builtin.functions[1].insts[0].op, Opcode::Call);
  EXPECT_EQ(builtin.functions[1].insts[0].ops[0].sym, 0u);
}

TEST(PtxParser, SyntaxErrorsNameFileLineAndToken) {
  EXPECT_EQ(error_of(kernel_with("\tadd.s32 %r1, %r2, %nope;")),
            "bad.ptx:15: undefined register '%nope'");
  EXPECT_EQ(error_of(kernel_with("\tadd.s32 %r1, %r2, %r3\n\tret;")),
            "bad.ptx:16: expected ';' after 'add.s32' but found 'ret'");
  EXPECT_EQ(error_of(kernel_with("\tbra.uni NOWHERE;")), "bad.ptx:15: undefined label 'NOWHERE'");
  EXPECT_EQ(error_of(kernel_with("\tadd.s32 %r1, %r2;")),
            "bad.ptx:15: 'add.s32' takes 3 operands, found 2");
  EXPECT_EQ(error_of(kernel_with("\tadd %r1, %r2, %r3;")), "bad.ptx:15: 'add' needs 1 type suffix");
  EXPECT_EQ(error_of(kernel_with("\tadd.u32 %r1, %r2, 0x;")), "bad.ptx:15: malformed or out-of-range integer literal '0x'");
  EXPECT_EQ(error_of(kernel_with("\tadd.u32 %r1, %r2, 1.5;")), "bad.ptx:15: literal not allowed for .u32 operand");
  EXPECT_EQ(error_of(kernel_with("\tmov.u32 5, %r1;")), "bad.ptx:15: operand 1 of 'mov.u32' must be a register");
  EXPECT_EQ(error_of(kernel_with("\tld.global.u32 %r1, %rd1;")),
            "bad.ptx:15: operand 2 of 'ld.global.u32' must be an address [...]");
  EXPECT_EQ(error_of(kernel_with("\t@%r1 ret;")), "bad.ptx:15: guard '%r1' is not a predicate register");
  EXPECT_EQ(error_of(kernel_with("\tret;\n\t/* open")), "bad.ptx:16: unterminated /* comment");
  EXPECT_EQ(error_of(kernel_with("\tret; ~")), "bad.ptx:15: unexpected character '~'");
  EXPECT_EQ(error_of(kernel_with("\tret;", ".global .u32 x = {1, 2};\n")), "bad.ptx:4: too many initializers for 'x'");
  EXPECT_EQ(error_of(std::string(test::kHeader) + "foo"), "bad.ptx:4: expected a directive but found 'foo'");
  EXPECT_EQ(error_of(std::string(test::kHeader) + ".entry k(.param .u32 a"),
            "bad.ptx:4: expected ')' to close the parameter list but found end of file");
  EXPECT_EQ(error_of(kernel_with("\t.reg .b32 %r<2>;")), "bad.ptx:15: redeclaration of register '%r'");
}

TEST(PtxParser, DeepNestingIsAnErrorNotACrash) {
  std::string open(200, '{'), close(200, '}');
  EXPECT_NE(error_of(kernel_with(open + close)).find("nested too deeply"), std::string::npos);
  std::string init = ".global .u32 x[1] = " + open + "1" + close + ";\n";
  EXPECT_NE(error_of(kernel_with("\tret;", init)).find("nested too deeply"), std::string::npos);
}

}  // namespace
}  // namespace gpumux::ptx

namespace gpumux::ptx {
namespace {

// __managed__ variables: ordinary globals to the device (cudart maps them for the host).
TEST(PtxParser, ManagedVariableAttribute) {
  Module m = parse_ptx(std::string(test::kHeader) + ".global .attribute(.managed) .align 4 .u32 counter;\n", "t.ptx");
  ASSERT_EQ(m.globals.size(), 1u);
  EXPECT_EQ(m.globals[0].name, "counter");
  EXPECT_EQ(m.globals[0].space, Space::Global);
  EXPECT_TRUE(m.unsupported.empty());
  EXPECT_NE(error_of(std::string(test::kHeader) + ".global .attribute(.unified) .u32 x;\n")
                .find("unsupported variable attribute .unified"),
            std::string::npos);
}

}  // namespace
}  // namespace gpumux::ptx
