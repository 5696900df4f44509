// Sweeps opcode x type x modifier combinations through bind_compute: every
// accepted combination must execute on random inputs, writing only its
// destination in the executing lanes; every rejected one must say why.
#include <random>
#include <vector>

#include "exec_compute/inst_builder.h"
#include "gpumux/exec/compute/families.h"

namespace gpumux::test {
namespace {

using ptx::Rounding;

const Opcode kComputeOps[] = {
    Opcode::Mov,   Opcode::Cvt,  Opcode::Add,  Opcode::Sub,   Opcode::Mul,      Opcode::Mad,
    Opcode::Mul24, Opcode::Mad24, Opcode::Sad, Opcode::Div,   Opcode::Rem,      Opcode::Abs,
    Opcode::Neg,   Opcode::Min,  Opcode::Max,  Opcode::Fma,   Opcode::Rcp,      Opcode::Sqrt,
    Opcode::Rsqrt, Opcode::Sin,  Opcode::Cos,  Opcode::Lg2,   Opcode::Ex2,      Opcode::Tanh,
    Opcode::Copysign, Opcode::Testp, Opcode::And, Opcode::Or, Opcode::Xor,      Opcode::Not,
    Opcode::Cnot,  Opcode::Shl,  Opcode::Shr,  Opcode::Shf,   Opcode::Bfe,      Opcode::Bfi,
    Opcode::Brev,  Opcode::Popc, Opcode::Clz,  Opcode::Bfind, Opcode::Prmt,     Opcode::Lop3,
    Opcode::Dp4a,  Opcode::Dp2a, Opcode::Setp, Opcode::Set,   Opcode::Selp,     Opcode::Slct,
};

unsigned sources(const ptx::Instruction& in) {
  switch (in.op) {
    case Opcode::Mov: case Opcode::Abs: case Opcode::Neg: case Opcode::Rcp: case Opcode::Sqrt:
    case Opcode::Rsqrt: case Opcode::Sin: case Opcode::Cos: case Opcode::Lg2: case Opcode::Ex2:
    case Opcode::Tanh: case Opcode::Testp: case Opcode::Not: case Opcode::Cnot: case Opcode::Brev:
    case Opcode::Popc: case Opcode::Clz: case Opcode::Bfind:
      return 1;
    case Opcode::Cvt: return in.type == Type::F16x2 || in.type == Type::BF16x2 ? 2 : 1;
    case Opcode::Mad: case Opcode::Mad24: case Opcode::Sad: case Opcode::Fma: case Opcode::Shf:
    case Opcode::Bfe: case Opcode::Prmt: case Opcode::Lop3: case Opcode::Dp4a: case Opcode::Dp2a:
    case Opcode::Selp: case Opcode::Slct:
      return 3;
    case Opcode::Bfi: return 4;
    default: return 2;
  }
}

// Fills in the operands: %r0 (or %p0) = op(%r1, %r2, ...), predicate sources
// from %p1/%p2, selp's and the BoolOp's c from %p3.
void add_operands(ptx::Instruction& in) {
  const bool pred_logic = in.type == Type::Pred;
  const bool pred_dst = pred_logic || in.op == Opcode::Setp || in.op == Opcode::Testp;
  in.nops = 0;
  in.ops[in.nops++] = pred_dst ? P(0) : R(0);
  const unsigned n = sources(in);
  for (unsigned i = 1; i <= n; ++i) {
    if (pred_logic) in.ops[in.nops++] = P(uint16_t(i), i == 2);
    else if (in.op == Opcode::Selp && i == 3) in.ops[in.nops++] = P(3);
    else in.ops[in.nops++] = R(uint16_t(i));
  }
  if (in.op == Opcode::Lop3) in.ops[in.nops++] = Imm(0x6a);
  if ((in.op == Opcode::Setp || in.op == Opcode::Set) && in.bop != ptx::BoolOp::None) in.ops[in.nops++] = P(3);
  if (in.op == Opcode::Setp) in.pred_dst2 = 4;
}

struct Sweep {
  std::mt19937_64 rng{12345};
  unsigned accepted = 0, rejected = 0;

  uint64_t random_value() {
    // Mix in special values: zeros, all ones, float specials, small shifts.
    static const uint64_t kSpecial[] = {0, 1, ~0ull, 0x7fc00000, 0x7f800000, 0x80000000, 0x00000001,
                                        0x7ff8000000000000ull, 0x3c00, 0x7c00, 0xfc00, 0x8000, 31, 64};
    const uint64_t r = rng();
    return (r & 7) == 0 ? kSpecial[(r >> 3) % std::size(kSpecial)] : rng();
  }

  void check(const ptx::Instruction& in) {
    std::string why;
    const ptx::ExecHandler h = exec::bind_compute(in, why);
    if (!h) {
      ++rejected;
      EXPECT_FALSE(why.empty());
      return;
    }
    EXPECT_TRUE(why.empty()) << why;
    ++accepted;
    Regs regs;
    for (uint64_t& v : regs.r) v = random_value();
    for (uint32_t& p : regs.p) p = uint32_t(rng());
    const Regs before = regs;
    uint32_t mask = uint32_t(rng());
    if (mask == 0) mask = 1;
    exec::StepContext c = regs.ctx(mask);
    h(c, in);
    // Only the destination's executing lanes may change.
    for (uint16_t r = 0; r < Regs::kRegs; ++r)
      for (unsigned l = 0; l < exec::kWarpSize; ++l) {
        const bool writable = r == 0 && ((mask >> l) & 1);
        if (!writable && regs.at(r, l) != before.r[size_t(r) * exec::kWarpSize + l])
          ADD_FAILURE() << exec::compute::spelling(in) << " wrote %r" << r << " lane " << l;
      }
    for (uint16_t p = 0; p < 8; ++p) {
      const bool dst = p == 0 || (in.op == Opcode::Setp && p == 4);
      const uint32_t changed = regs.p[p] ^ before.p[p];
      if (changed & (dst ? ~mask : ~0u)) ADD_FAILURE() << exec::compute::spelling(in) << " wrote %p" << p;
    }
  }
};

TEST(ComputeSweep, AcceptedCombinationsExecuteAndRejectedOnesExplain) {
  constexpr Type kLast = Type::F64;
  const Rounding kRnd[] = {Rounding::None, Rounding::Rn,  Rounding::Rz,  Rounding::Rm,  Rounding::Rp,
                           Rounding::Rna,  Rounding::Rni, Rounding::Rzi, Rounding::Rmi, Rounding::Rpi};
  Sweep s;
  for (Opcode op : kComputeOps) {
    for (unsigned t = 0; t <= unsigned(kLast); ++t) {
      const bool two_types = op == Opcode::Cvt || op == Opcode::Set || op == Opcode::Slct ||
                             op == Opcode::Dp4a || op == Opcode::Dp2a;
      for (unsigned t2 = 0; t2 <= (two_types ? unsigned(kLast) : 0); ++t2) {
        Inst base(op, Type(t), two_types ? Type(t2) : op == Opcode::Setp ? Type(t) : Type::None);
        if (op == Opcode::Setp || op == Opcode::Set) {
          for (unsigned c = 0; c <= unsigned(ptx::CmpOp::Nan); ++c)
            for (unsigned b = 0; b <= unsigned(ptx::BoolOp::Xor); ++b)
              for (bool ftz : {false, true}) {
                Inst i = base;
                i.cmp(ptx::CmpOp(c)).bop(ptx::BoolOp(b));
                if (ftz) i.ftz();
                add_operands(i.in);
                s.check(i);
              }
          continue;
        }
        const bool has_mode = op == Opcode::Mul || op == Opcode::Mad || op == Opcode::Mul24 ||
                              op == Opcode::Mad24 || op == Opcode::Dp2a;
        for (Rounding r : kRnd)
          for (unsigned flags = 0; flags < (op == Opcode::Div ? 16u : 8u); ++flags)
            for (unsigned m = 0; m <= (has_mode ? unsigned(ptx::MulMode::Wide) : 0u); ++m)
              for (unsigned v = 0; v < 7; ++v) {  // op-specific variant
                Inst i = base;
                i.rnd(r).mul(ptx::MulMode(m));
                if (flags & 1) i.ftz();
                if (flags & 2) i.sat();
                if (flags & 4) i.approx();
                if (flags & 8) i.full();
                if (op == Opcode::Testp) i.testp(ptx::TestpMode(v));
                else if (op == Opcode::Prmt) i.prmt(ptx::PrmtMode(v));
                else if (op == Opcode::Shf) i.shf(ptx::ShiftDir(v % 3), ptx::ShfMode(v / 3 % 3));
                else if (op == Opcode::Bfind && v == 1) i.shiftamt();
                else if (v > 0) continue;
                add_operands(i.in);
                s.check(i);
              }
      }
    }
  }
  // Coverage guard: the sweep reaches a broad set of accepted combinations.
  EXPECT_GT(s.accepted, 5000u);
  EXPECT_GT(s.rejected, s.accepted);
  std::printf("sweep: %u accepted, %u rejected\n", s.accepted, s.rejected);
}

}  // namespace
}  // namespace gpumux::test
