// Test helpers for the compute handlers: build Instructions by hand and run
// them on a StepContext over a local register file (no Warp needed).
#pragma once

#include <bit>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpumux/exec/step_context.h"

namespace gpumux::test {

using ptx::Opcode;
using ptx::Operand;
using ptx::OperandKind;
using ptx::Type;

inline Operand R(uint16_t r) {
  Operand o;
  o.kind = OperandKind::Reg;
  o.reg = r;
  return o;
}
inline Operand Imm(uint64_t bits) {
  Operand o;
  o.kind = OperandKind::Imm;
  o.imm = bits;
  return o;
}
inline Operand P(uint16_t p, bool neg = false) {
  Operand o;
  o.kind = OperandKind::Pred;
  o.reg = p;
  o.neg = neg;
  return o;
}
inline Operand Vec(std::initializer_list<uint16_t> regs) {
  Operand o;
  o.kind = OperandKind::Vec;
  o.vcount = uint8_t(regs.size());
  unsigned i = 0;
  for (uint16_t r : regs) o.vec[i++] = r;
  return o;
}
inline Operand Sink() {
  Operand o;
  o.kind = OperandKind::Sink;
  return o;
}

// Fluent builder: Inst(Opcode::Add, Type::S32).sat().ops({R(0), R(1), R(2)}).
struct Inst {
  ptx::Instruction in;
  Inst(Opcode op, Type t, Type t2 = Type::None) {
    in.op = op;
    in.type = t;
    in.type2 = t2;
  }
  Inst& ops(std::initializer_list<Operand> os) {
    in.nops = 0;
    for (const Operand& o : os) in.ops[in.nops++] = o;
    return *this;
  }
  Inst& rnd(ptx::Rounding r) { in.rnd = r; return *this; }
  Inst& ftz() { in.ftz = true; return *this; }
  Inst& sat() { in.sat = true; return *this; }
  Inst& approx() { in.approx = true; return *this; }
  Inst& full() { in.full = true; return *this; }
  Inst& mul(ptx::MulMode m) { in.mul = m; return *this; }
  Inst& cmp(ptx::CmpOp c) { in.cmp = c; return *this; }
  Inst& bop(ptx::BoolOp b) { in.bop = b; return *this; }
  Inst& testp(ptx::TestpMode m) { in.testp = m; return *this; }
  Inst& prmt(ptx::PrmtMode m) { in.prmt = m; return *this; }
  Inst& shf(ptx::ShiftDir d, ptx::ShfMode m) { in.sdir = d; in.shf = m; return *this; }
  Inst& shiftamt() { in.shiftamt = true; return *this; }
  Inst& q(uint16_t p) { in.pred_dst2 = p; return *this; }
  operator const ptx::Instruction&() const { return in; }
};

// A warp's register file: 32 registers and 8 predicates.
struct Regs {
  static constexpr unsigned kRegs = 32;
  std::vector<uint64_t> r = std::vector<uint64_t>(kRegs * exec::kWarpSize, 0);
  uint32_t p[8] = {};

  exec::StepContext ctx(uint32_t mask = exec::kFullMask) {
    exec::StepContext c;
    c.mask = mask;
    c.regs = r.data();
    c.preds = p;
    return c;
  }
  uint64_t& at(uint16_t reg, unsigned lane) { return r[size_t(reg) * exec::kWarpSize + lane]; }
  void fill(uint16_t reg, uint64_t v) {
    for (unsigned l = 0; l < exec::kWarpSize; ++l) at(reg, l) = v;
  }
};

// Binds `in` (failing the test with the reason if it is rejected) and runs it.
inline void run(const ptx::Instruction& in, Regs& regs, uint32_t mask = exec::kFullMask) {
  std::string why;
  ptx::ExecHandler h = exec::bind_compute(in, why);
  ASSERT_NE(h, nullptr) << why;
  exec::StepContext c = regs.ctx(mask);
  h(c, in);
}

// Runs `in` with d = %r0 and sources %r1.. (unless ops were given) holding
// `src` in every lane; returns %r0 of lane 0 after checking that all lanes
// agree.
inline uint64_t eval(Inst b, std::initializer_list<uint64_t> src) {
  if (b.in.nops == 0) {
    b.in.ops[0] = R(0);
    b.in.nops = 1;
    for (size_t i = 0; i < src.size(); ++i) b.in.ops[b.in.nops++] = R(uint16_t(i + 1));
  }
  Regs regs;
  uint16_t r = 1;
  for (uint64_t v : src) regs.fill(r++, v);
  run(b, regs);
  for (unsigned l = 1; l < exec::kWarpSize; ++l) EXPECT_EQ(regs.at(0, l), regs.at(0, 0)) << "lane " << l;
  return regs.at(0, 0);
}

// Why bind_compute rejects `in` (empty if it is accepted).
inline std::string rejection(const ptx::Instruction& in) {
  std::string why;
  return exec::bind_compute(in, why) ? std::string() : why;
}

inline uint64_t f32(float v) { return std::bit_cast<uint32_t>(v); }
inline uint64_t f64(double v) { return std::bit_cast<uint64_t>(v); }
inline float as_f32(uint64_t b) { return std::bit_cast<float>(uint32_t(b)); }
inline double as_f64(uint64_t b) { return std::bit_cast<double>(b); }

}  // namespace gpumux::test
