#include "exec_compute/inst_builder.h"

namespace gpumux::test {
namespace {

using ptx::PrmtMode;
using ptx::ShfMode;
using ptx::ShiftDir;

TEST(ComputeBits, LogicOnRegistersAndPredicates) {
  EXPECT_EQ(eval(Inst(Opcode::And, Type::B32), {0xff00ff00, 0x0ff00ff0}), 0x0f000f00u);
  EXPECT_EQ(eval(Inst(Opcode::Or, Type::B64), {0xff00000000000000ull, 1}), 0xff00000000000001ull);
  EXPECT_EQ(eval(Inst(Opcode::Xor, Type::B16), {0xffff, 0x00ff}), 0xff00u);
  EXPECT_EQ(eval(Inst(Opcode::Not, Type::B16), {0x00ff}), 0xff00u);
  EXPECT_EQ(eval(Inst(Opcode::Not, Type::B32), {0}), 0xffffffffu);
  EXPECT_EQ(eval(Inst(Opcode::Cnot, Type::B32), {0}), 1u);
  EXPECT_EQ(eval(Inst(Opcode::Cnot, Type::B64), {0x100000000ull}), 0u);

  Regs regs;
  regs.p[1] = 0b1100;
  regs.p[2] = 0b1010;
  regs.p[0] = 0xffff0000;
  run(Inst(Opcode::And, Type::Pred).ops({P(0), P(1), P(2)}), regs, 0xff);
  EXPECT_EQ(regs.p[0], 0xffff0008u);  // only the executing lanes change
  run(Inst(Opcode::Or, Type::Pred).ops({P(0), P(1), P(2, true)}), regs);
  EXPECT_EQ(regs.p[0], ~0b0010u);
  run(Inst(Opcode::Xor, Type::Pred).ops({P(0), P(1), P(2)}), regs);
  EXPECT_EQ(regs.p[0], 0b0110u);
  run(Inst(Opcode::Not, Type::Pred).ops({P(3), P(1)}), regs);
  EXPECT_EQ(regs.p[3], ~0b1100u);
  run(Inst(Opcode::Xor, Type::Pred).ops({P(3), P(1), Imm(1)}), regs);
  EXPECT_EQ(regs.p[3], ~0b1100u);
}

TEST(ComputeBits, ShiftsIncludingLargeAmounts) {
  EXPECT_EQ(eval(Inst(Opcode::Shl, Type::B32), {1, 31}), 0x80000000u);
  EXPECT_EQ(eval(Inst(Opcode::Shl, Type::B32), {1, 32}), 0u);
  EXPECT_EQ(eval(Inst(Opcode::Shl, Type::B16), {0xffff, 15}), 0x8000u);
  EXPECT_EQ(eval(Inst(Opcode::Shl, Type::B16), {0xffff, 16}), 0u);
  EXPECT_EQ(eval(Inst(Opcode::Shl, Type::B64), {3, 0x100000000ull}), 3u);  // only the low 32 bits count
  EXPECT_EQ(eval(Inst(Opcode::Shl, Type::B64), {3, 0xffffffff}), 0u);
  EXPECT_EQ(eval(Inst(Opcode::Shr, Type::U32), {0x80000000, 31}), 1u);
  EXPECT_EQ(eval(Inst(Opcode::Shr, Type::B32), {0x80000000, 40}), 0u);
  EXPECT_EQ(eval(Inst(Opcode::Shr, Type::S32), {0x80000000, 4}), 0xf8000000u);
  EXPECT_EQ(eval(Inst(Opcode::Shr, Type::S32), {0x80000000, 1000}), 0xffffffffu);
  EXPECT_EQ(eval(Inst(Opcode::Shr, Type::S32), {0x70000000, 1000}), 0u);
  EXPECT_EQ(eval(Inst(Opcode::Shr, Type::S16), {0x8000, 15}), 0xffffu);
  EXPECT_EQ(eval(Inst(Opcode::Shr, Type::S64), {0x8000000000000000ull, 63}), ~0ull);
  EXPECT_EQ(eval(Inst(Opcode::Shr, Type::U64), {0x8000000000000000ull, 64}), 0u);
}

TEST(ComputeBits, FunnelShift) {
  auto shf = [](ShiftDir d, ShfMode m, uint64_t a, uint64_t b, uint64_t c) {
    return eval(Inst(Opcode::Shf, Type::B32).shf(d, m), {a, b, c});
  };
  EXPECT_EQ(shf(ShiftDir::Left, ShfMode::Wrap, 0x80000000, 0x00000001, 1), 0x00000003u);
  EXPECT_EQ(shf(ShiftDir::Left, ShfMode::Wrap, 0x80000000, 0x00000001, 33), 0x00000003u);
  EXPECT_EQ(shf(ShiftDir::Left, ShfMode::Clamp, 0x80000000, 0x00000001, 33), 0x80000000u);
  EXPECT_EQ(shf(ShiftDir::Left, ShfMode::Clamp, 0x12345678, 0x9abcdef0, 0), 0x9abcdef0u);
  EXPECT_EQ(shf(ShiftDir::Right, ShfMode::Wrap, 0x00000001, 0x00000003, 1), 0x80000000u);
  EXPECT_EQ(shf(ShiftDir::Right, ShfMode::Clamp, 0x00000001, 0x00000003, 100), 0x00000003u);
  EXPECT_EQ(shf(ShiftDir::Right, ShfMode::Wrap, 0x00000001, 0x00000003, 32), 0x00000001u);
  EXPECT_EQ(shf(ShiftDir::Left, ShfMode::Wrap, 0xdeadbeef, 0xdeadbeef, 8), 0xadbeefdeu);  // rotate
}

TEST(ComputeBits, BitFieldExtract) {
  EXPECT_EQ(eval(Inst(Opcode::Bfe, Type::U32), {0x12345678, 4, 8}), 0x67u);
  EXPECT_EQ(eval(Inst(Opcode::Bfe, Type::U32), {0x12345678, 28, 8}), 0x1u);   // clipped at the msb
  EXPECT_EQ(eval(Inst(Opcode::Bfe, Type::U32), {0x12345678, 32, 8}), 0u);     // start beyond the msb
  EXPECT_EQ(eval(Inst(Opcode::Bfe, Type::U32), {0x12345678, 4, 0}), 0u);      // empty field
  EXPECT_EQ(eval(Inst(Opcode::Bfe, Type::U32), {0x12345678, 0x104, 0x108}), 0x67u);  // low 8 bits used
  EXPECT_EQ(eval(Inst(Opcode::Bfe, Type::U32), {0x12345678, 0, 32}), 0x12345678u);
  EXPECT_EQ(eval(Inst(Opcode::Bfe, Type::S32), {0x000000f0, 4, 4}), 0xffffffffu);  // sign-extended
  EXPECT_EQ(eval(Inst(Opcode::Bfe, Type::S32), {0x00000070, 4, 4}), 7u);
  EXPECT_EQ(eval(Inst(Opcode::Bfe, Type::S32), {0x80000000, 28, 8}), 0xfffffff8u);  // sign: msb of a
  EXPECT_EQ(eval(Inst(Opcode::Bfe, Type::S32), {0x80000000, 40, 8}), 0xffffffffu);  // all sign
  EXPECT_EQ(eval(Inst(Opcode::Bfe, Type::S32), {0x80000000, 4, 0}), 0u);
  EXPECT_EQ(eval(Inst(Opcode::Bfe, Type::U64), {0xf000000000000000ull, 60, 4}), 0xfu);
  EXPECT_EQ(eval(Inst(Opcode::Bfe, Type::S64), {0xf000000000000000ull, 60, 4}), ~0ull);
  EXPECT_EQ(eval(Inst(Opcode::Bfe, Type::S64), {0x00000000ffff0000ull, 16, 16}), ~0ull);
}

TEST(ComputeBits, BitFieldInsert) {
  // bfi f, a, b, pos, len: insert the low len bits of a into b at pos.
  EXPECT_EQ(eval(Inst(Opcode::Bfi, Type::B32), {0xab, 0x12345678, 8, 8}), 0x1234ab78u);
  EXPECT_EQ(eval(Inst(Opcode::Bfi, Type::B32), {0xff, 0x00000000, 28, 8}), 0xf0000000u);  // clipped
  EXPECT_EQ(eval(Inst(Opcode::Bfi, Type::B32), {0xff, 0x12345678, 32, 8}), 0x12345678u);
  EXPECT_EQ(eval(Inst(Opcode::Bfi, Type::B32), {0xff, 0x12345678, 4, 0}), 0x12345678u);
  EXPECT_EQ(eval(Inst(Opcode::Bfi, Type::B32), {0xffffffff, 0, 0, 32}), 0xffffffffu);
  EXPECT_EQ(eval(Inst(Opcode::Bfi, Type::B64), {0x1, 0, 63, 1}), 0x8000000000000000ull);
}

TEST(ComputeBits, CountsAndReversal) {
  EXPECT_EQ(eval(Inst(Opcode::Brev, Type::B32), {0x00000001}), 0x80000000u);
  EXPECT_EQ(eval(Inst(Opcode::Brev, Type::B32), {0x12345678}), 0x1e6a2c48u);
  EXPECT_EQ(eval(Inst(Opcode::Brev, Type::B64), {0x0000000000000003ull}), 0xc000000000000000ull);
  EXPECT_EQ(eval(Inst(Opcode::Popc, Type::B32), {0xf0f0f0f1}), 17u);
  EXPECT_EQ(eval(Inst(Opcode::Popc, Type::B64), {~0ull}), 64u);
  EXPECT_EQ(eval(Inst(Opcode::Clz, Type::B32), {0}), 32u);
  EXPECT_EQ(eval(Inst(Opcode::Clz, Type::B32), {0x00010000}), 15u);
  EXPECT_EQ(eval(Inst(Opcode::Clz, Type::B64), {1}), 63u);
  EXPECT_EQ(eval(Inst(Opcode::Bfind, Type::U32), {0x00010000}), 16u);
  EXPECT_EQ(eval(Inst(Opcode::Bfind, Type::U32), {0}), 0xffffffffu);
  EXPECT_EQ(eval(Inst(Opcode::Bfind, Type::S32), {0xffffffff}), 0xffffffffu);  // -1: no non-sign bit
  EXPECT_EQ(eval(Inst(Opcode::Bfind, Type::S32), {0xfffffff0}), 3u);          // msb 0 of a negative
  EXPECT_EQ(eval(Inst(Opcode::Bfind, Type::S64), {0x4000000000000000ull}), 62u);
  EXPECT_EQ(eval(Inst(Opcode::Bfind, Type::U32).shiftamt(), {0x00010000}), 15u);
  EXPECT_EQ(eval(Inst(Opcode::Bfind, Type::U32).shiftamt(), {0}), 0xffffffffu);
  EXPECT_EQ(eval(Inst(Opcode::Bfind, Type::S32).shiftamt(), {0xfffffff0}), 28u);
}

TEST(ComputeBits, PermuteAllModes) {
  // Bytes of {b, a}: a = 0x33221100 (bytes 0-3), b = 0x77665544 (bytes 4-7).
  auto prmt = [](PrmtMode m, uint64_t c) {
    return eval(Inst(Opcode::Prmt, Type::B32).prmt(m), {0x33221100, 0x77665544, c});
  };
  EXPECT_EQ(prmt(PrmtMode::None, 0x3210), 0x33221100u);
  EXPECT_EQ(prmt(PrmtMode::None, 0x7654), 0x77665544u);
  EXPECT_EQ(prmt(PrmtMode::None, 0x0415), 0x00441155u);
  EXPECT_EQ(eval(Inst(Opcode::Prmt, Type::B32), {0x00008000, 0, 0x8989}), 0x00ff00ffu);  // sign replicate
  EXPECT_EQ(prmt(PrmtMode::F4e, 1), 0x44332211u);
  EXPECT_EQ(prmt(PrmtMode::F4e, 3), 0x66554433u);
  EXPECT_EQ(prmt(PrmtMode::B4e, 0), 0x55667700u);
  EXPECT_EQ(prmt(PrmtMode::B4e, 1), 0x66770011u);
  EXPECT_EQ(prmt(PrmtMode::Rc8, 2), 0x22222222u);
  EXPECT_EQ(prmt(PrmtMode::Ecl, 1), 0x33221111u);
  EXPECT_EQ(prmt(PrmtMode::Ecr, 1), 0x11111100u);
  EXPECT_EQ(prmt(PrmtMode::Ecr, 2), 0x22221100u);
  EXPECT_EQ(prmt(PrmtMode::Rc16, 1), 0x33223322u);
  EXPECT_EQ(prmt(PrmtMode::Rc16, 2), 0x11001100u);
}

TEST(ComputeBits, Lop3) {
  auto lop3 = [](uint64_t lut) {
    Regs regs;
    regs.fill(1, 0xf0f0f0f0);
    regs.fill(2, 0xcccccccc);
    regs.fill(3, 0xaaaaaaaa);
    run(Inst(Opcode::Lop3, Type::B32).ops({R(0), R(1), R(2), R(3), Imm(lut)}), regs);
    return regs.at(0, 5);
  };
  // With the canonical inputs a = 0xF0, b = 0xCC, c = 0xAA the result is the LUT.
  for (uint64_t lut : {0x00, 0x96, 0xe8, 0x80, 0xfe, 0xf0, 0x5a})
    EXPECT_EQ(lop3(lut), lut * 0x01010101u) << lut;
  EXPECT_EQ(eval(Inst(Opcode::Lop3, Type::B32).ops({R(0), R(1), R(2), R(3), Imm(0x96)}), {1, 2, 4}), 7u);
}

TEST(ComputeBits, DotProducts) {
  // a bytes {1, 2, 3, 4}; b bytes {5, 6, 7, 0xff}.
  EXPECT_EQ(eval(Inst(Opcode::Dp4a, Type::U32, Type::U32), {0x04030201, 0xff070605, 10}),
            10u + 5 + 12 + 21 + 4 * 255);
  EXPECT_EQ(eval(Inst(Opcode::Dp4a, Type::U32, Type::S32), {0x04030201, 0xff070605, 10}),
            uint32_t(10 + 5 + 12 + 21 - 4));
  EXPECT_EQ(eval(Inst(Opcode::Dp4a, Type::S32, Type::S32), {0xff0302ff, 0xff070605, 0}),
            uint32_t(-5 + 12 + 21 + 1));
  // dp2a: a halves {0xfffe, 3}; b bytes {1, 2, 3, 4}.
  EXPECT_EQ(eval(Inst(Opcode::Dp2a, Type::S32, Type::S32).mul(ptx::MulMode::Lo), {0x0003fffe, 0x04030201, 100}),
            uint32_t(100 - 2 + 6));
  EXPECT_EQ(eval(Inst(Opcode::Dp2a, Type::S32, Type::S32).mul(ptx::MulMode::Hi), {0x0003fffe, 0x04030201, 100}),
            uint32_t(100 - 6 + 12));
  EXPECT_EQ(eval(Inst(Opcode::Dp2a, Type::U32, Type::U32).mul(ptx::MulMode::Hi), {0x0003fffe, 0x04030201, 0}),
            uint32_t(0xfffe * 3 + 12));
}

TEST(ComputeBits, Rejections) {
  EXPECT_NE(rejection(Inst(Opcode::And, Type::U32).ops({R(0), R(1), R(2)})), "");
  EXPECT_NE(rejection(Inst(Opcode::Shl, Type::S32).ops({R(0), R(1), R(2)})), "");
  EXPECT_NE(rejection(Inst(Opcode::Shf, Type::B64).shf(ShiftDir::Left, ShfMode::Wrap).ops({R(0), R(1), R(2), R(3)})), "");
  EXPECT_NE(rejection(Inst(Opcode::Lop3, Type::B32).ops({R(0), R(1), R(2), R(3), R(4)})), "");
  EXPECT_NE(rejection(Inst(Opcode::Popc, Type::B16).ops({R(0), R(1)})), "");
  EXPECT_NE(rejection(Inst(Opcode::Dp2a, Type::S32, Type::S32).ops({R(0), R(1), R(2), R(3)})), "");
  EXPECT_NE(rejection(Inst(Opcode::And, Type::Pred).ops({P(0), R(1), P(2)})), "");
}

}  // namespace
}  // namespace gpumux::test

namespace gpumux::test {
namespace {

uint64_t bmsk(ptx::ShfMode mode, uint32_t a, uint32_t b) {
  return eval(Inst(Opcode::Bmsk, Type::B32).shf(ptx::ShiftDir::None, mode), {a, b});
}

// bmsk d, a, b: b bits set from bit a.
TEST(ComputeBits, Bmsk) {
  using M = ptx::ShfMode;
  for (M m : {M::Wrap, M::Clamp}) {
    EXPECT_EQ(bmsk(m, 4, 8), 0xff0u);
    EXPECT_EQ(bmsk(m, 0, 1), 0x1u);
    EXPECT_EQ(bmsk(m, 31, 1), 0x80000000u);
    EXPECT_EQ(bmsk(m, 28, 8), 0xf0000000u);  // cut at bit 31
    EXPECT_EQ(bmsk(m, 5, 0), 0u);
    EXPECT_EQ(bmsk(m, 0, 31), 0x7fffffffu);
  }
  // .wrap takes both modulo 32: a = 36 is 4, b = 40 is 8, b = 32 is 0.
  EXPECT_EQ(bmsk(M::Wrap, 36, 8), 0xff0u);
  EXPECT_EQ(bmsk(M::Wrap, 4, 40), 0xff0u);
  EXPECT_EQ(bmsk(M::Wrap, 4, 32), 0u);
  // .clamp: a >= 32 gives 0, b >= 32 every bit from a.
  EXPECT_EQ(bmsk(M::Clamp, 32, 8), 0u);
  EXPECT_EQ(bmsk(M::Clamp, 4, 32), 0xfffffff0u);
  EXPECT_EQ(bmsk(M::Clamp, 0, 100), 0xffffffffu);
  EXPECT_NE(rejection(Inst(Opcode::Bmsk, Type::B64).shf(ptx::ShiftDir::None, M::Wrap).ops({R(0), R(1), R(2)})), "");
}

uint64_t fns(uint32_t mask, uint32_t base, int32_t offset) {
  return eval(Inst(Opcode::Fns, Type::B32), {mask, base, uint32_t(offset)});
}

// The PTX ISA's loop, bit by bit: the reference for the handler's bit tricks.
uint32_t fns_reference(uint32_t mask, uint32_t base, int32_t offset) {
  if (offset == 0) return (mask >> base) & 1 ? base : 0xffffffffu;
  int64_t count = (offset > 0 ? int64_t(offset) : -int64_t(offset)) - 1;
  for (int pos = int(base); pos >= 0 && pos < 32; pos += offset > 0 ? 1 : -1)
    if ((mask >> pos) & 1 && count-- == 0) return uint32_t(pos);
  return 0xffffffffu;
}

// fns d, mask, base, offset: the |offset|-th set bit from base (cooperative
// groups' lane of a coalesced group's rank).
TEST(ComputeBits, Fns) {
  // The ISA's examples.
  EXPECT_EQ(fns(0xaaaaaaaa, 3, 1), 3u);
  EXPECT_EQ(fns(0xaaaaaaaa, 3, -1), 3u);
  EXPECT_EQ(fns(0xaaaaaaaa, 2, 1), 3u);
  EXPECT_EQ(fns(0xaaaaaaaa, 2, -1), 1u);
  EXPECT_EQ(fns(0xaaaaaaaa, 0, 16), 31u);     // the last set bit
  EXPECT_EQ(fns(0xaaaaaaaa, 0, 17), 0xffffffffu);
  EXPECT_EQ(fns(0xaaaaaaaa, 31, -16), 1u);
  EXPECT_EQ(fns(0xaaaaaaaa, 2, 0), 0xffffffffu);  // offset 0: is bit base set?
  EXPECT_EQ(fns(0xaaaaaaaa, 5, 0), 5u);
  EXPECT_EQ(fns(0, 0, 1), 0xffffffffu);
  EXPECT_EQ(fns(0xffffffffu, 0, int32_t(0x80000000u)), 0xffffffffu);  // |INT_MIN| set bits
  uint32_t x = 0x12345678u;
  for (int i = 0; i < 2000; ++i) {
    x = x * 1664525u + 1013904223u;
    const uint32_t mask = i % 3 ? x : x & (x >> 7), base = (x >> 11) % 32;
    const int32_t offset = int32_t((x >> 17) % 67) - 33;
    ASSERT_EQ(fns(mask, base, offset), fns_reference(mask, base, offset)) << mask << " " << base << " " << offset;
  }
  EXPECT_NE(rejection(Inst(Opcode::Fns, Type::B64).ops({R(0), R(1), R(2), R(3)})), "");
}

}  // namespace
}  // namespace gpumux::test
