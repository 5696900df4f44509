// Carry arithmetic against hand-computed multi-word sums, differences and
// products. The carry flag is predicate 7 here (the parser's hidden one).
#include "exec_compute/inst_builder.h"

namespace gpumux::test {
namespace {

constexpr uint16_t kCf = 7;

// op.cc when `cc`, reading the flag when op is addc/subc/madc.
Inst carry(Opcode op, Type t, std::initializer_list<Operand> ops, bool cc, ptx::MulMode mul = ptx::MulMode::None) {
  Inst b(op, t);
  b.ops(ops);
  if (op == Opcode::Addc || op == Opcode::Subc || op == Opcode::Madc) b.in.ops[b.in.nops++] = P(kCf);
  if (cc) b.q(kCf).in.cc = true;
  return b.mul(mul);
}

TEST(ComputeCarry, AddCarriesIntoTheHighWord) {
  // 0x00000001_ffffffff + 0x00000002_00000001 = 0x00000004_00000000
  Regs regs;
  regs.fill(1, 0xffffffff);
  regs.fill(2, 0x00000001);
  regs.fill(3, 0x1);
  regs.fill(4, 0x2);
  run(carry(Opcode::Add, Type::U32, {R(0), R(1), R(2)}, true), regs);
  EXPECT_EQ(regs.at(0, 5), 0u);
  EXPECT_EQ(regs.p[kCf], 0xffffffffu);
  run(carry(Opcode::Addc, Type::U32, {R(5), R(3), R(4)}, false), regs);
  EXPECT_EQ(regs.at(5, 9), 4u);

  // No carry out: the flag is cleared; addc.cc passes a new carry on.
  regs.fill(1, 7);
  run(carry(Opcode::Add, Type::S32, {R(0), R(1), R(2)}, true), regs);
  EXPECT_EQ(regs.at(0, 0), 8u);
  EXPECT_EQ(regs.p[kCf], 0u);
  regs.p[kCf] = 1;  // lane 0 only
  regs.fill(1, 0xffffffff);
  regs.fill(2, 0);
  run(carry(Opcode::Addc, Type::U32, {R(0), R(1), R(2)}, true), regs);
  EXPECT_EQ(regs.at(0, 0), 0u);
  EXPECT_EQ(regs.at(0, 1), 0xffffffffu);
  EXPECT_EQ(regs.p[kCf], 1u);
}

TEST(ComputeCarry, SubtractionBorrows) {
  // 0x00000001_00000000 - 1 = 0x00000000_ffffffff. The flag after a
  // subtraction is the carry of a + ~b + 1: clear when it borrows.
  Regs regs;
  regs.fill(1, 0);
  regs.fill(2, 1);
  regs.fill(3, 1);
  regs.fill(4, 0);
  run(carry(Opcode::Sub, Type::U32, {R(0), R(1), R(2)}, true), regs);
  EXPECT_EQ(regs.at(0, 0), 0xffffffffu);
  EXPECT_EQ(regs.p[kCf], 0u);  // borrow
  run(carry(Opcode::Subc, Type::U32, {R(5), R(3), R(4)}, true), regs);
  EXPECT_EQ(regs.at(5, 0), 0u);
  EXPECT_EQ(regs.p[kCf], 0xffffffffu);  // 1 + ~0 + 0 carries: no borrow
  // subc: a + ~b + CF = a - (b + borrow); the borrow of 0 - (0 + 1) is passed on.
  regs.fill(1, 5);
  regs.fill(2, 3);
  regs.p[kCf] = exec::kFullMask;
  run(carry(Opcode::Subc, Type::U32, {R(0), R(1), R(2)}, false), regs);
  EXPECT_EQ(regs.at(0, 3), 2u);
  regs.p[kCf] = 0;
  run(carry(Opcode::Subc, Type::U32, {R(0), R(1), R(2)}, false), regs);
  EXPECT_EQ(regs.at(0, 3), 1u);
  regs.fill(1, 0);
  regs.fill(2, 0);
  run(carry(Opcode::Subc, Type::U32, {R(0), R(1), R(2)}, true), regs);
  EXPECT_EQ(regs.at(0, 3), 0xffffffffu);
  EXPECT_EQ(regs.p[kCf], 0u);
  // Equal 64-bit words: no borrow, the flag is set.
  regs.fill(1, 0x123456789ull);
  regs.fill(2, 0x123456789ull);
  run(carry(Opcode::Sub, Type::S64, {R(0), R(1), R(2)}, true), regs);
  EXPECT_EQ(regs.at(0, 0), 0u);
  EXPECT_EQ(regs.p[kCf], 0xffffffffu);
}

// nvcc's 128-bit division subtracts a multiple of the divisor with a
// sub.cc/subc.cc chain and reads the flag with addc.u32 d, 0, 0: 1 when the
// remainder stayed non-negative, 0 when it must add the divisor back.
TEST(ComputeCarry, AdditionReadsTheFlagOfASubtraction) {
  Regs regs;
  regs.fill(9, 0);
  regs.fill(4, 1);
  // (top:0:0) - 1 over three words, then addc.u32 r7, 0, 0.
  const auto subtract_one_and_read_flag = [&](uint64_t top) {
    regs.fill(1, 0);
    regs.fill(2, 0);
    regs.fill(3, top);
    run(carry(Opcode::Sub, Type::U32, {R(0), R(1), R(4)}, true), regs);
    run(carry(Opcode::Subc, Type::U32, {R(5), R(2), R(9)}, true), regs);
    run(carry(Opcode::Subc, Type::U32, {R(6), R(3), R(9)}, true), regs);
    run(carry(Opcode::Addc, Type::U32, {R(7), R(9), R(9)}, false), regs);
  };
  subtract_one_and_read_flag(1);
  EXPECT_EQ(regs.at(0, 0), 0xffffffffu);
  EXPECT_EQ(regs.at(5, 0), 0xffffffffu);
  EXPECT_EQ(regs.at(6, 0), 0u);
  EXPECT_EQ(regs.at(7, 0), 1u);  // no borrow
  subtract_one_and_read_flag(0);
  EXPECT_EQ(regs.at(6, 0), 0xffffffffu);
  EXPECT_EQ(regs.at(7, 0), 0u);  // borrows out of the top word
  // And subc reads the carry of an addition the same way: 10 + ~3 + CF.
  regs.fill(1, 0xffffffff);
  regs.fill(2, 10);
  regs.fill(3, 3);
  run(carry(Opcode::Add, Type::U32, {R(0), R(1), R(4)}, true), regs);  // carries
  run(carry(Opcode::Subc, Type::U32, {R(5), R(2), R(3)}, false), regs);
  EXPECT_EQ(regs.at(5, 0), 7u);
  run(carry(Opcode::Add, Type::U32, {R(0), R(4), R(4)}, true), regs);  // 1 + 1: no carry
  run(carry(Opcode::Subc, Type::U32, {R(5), R(2), R(3)}, false), regs);
  EXPECT_EQ(regs.at(5, 0), 6u);
}

TEST(ComputeCarry, MultiplyAddCarries) {
  // 3 * 0x55555556 = 0x1_00000002: lo 2, hi 1.
  Regs regs;
  regs.fill(1, 3);
  regs.fill(2, 0x55555556);
  regs.fill(3, 0xfffffffe);
  regs.fill(4, 10);
  run(carry(Opcode::Mad, Type::U32, {R(0), R(1), R(2), R(3)}, true, ptx::MulMode::Lo), regs);
  EXPECT_EQ(regs.at(0, 0), 0u);  // 2 + 0xfffffffe
  EXPECT_EQ(regs.p[kCf], 0xffffffffu);
  run(carry(Opcode::Madc, Type::U32, {R(5), R(1), R(2), R(4)}, false, ptx::MulMode::Hi), regs);
  EXPECT_EQ(regs.at(5, 0), 12u);  // 1 + 10 + 1
  // Signed high half: -2 * 3 = -6, hi 0xffffffff; + 0 + carry 1 wraps to 0 and carries.
  regs.fill(1, 0xfffffffe);
  regs.fill(2, 3);
  regs.fill(3, 0);
  run(carry(Opcode::Madc, Type::S32, {R(0), R(1), R(2), R(3)}, true, ptx::MulMode::Hi), regs);
  EXPECT_EQ(regs.at(0, 0), 0u);
  EXPECT_EQ(regs.p[kCf], 0xffffffffu);
  // 64 bits: 0x1_00000000 * 0x1_00000000 = 2^64: lo 0, hi 1.
  regs.fill(1, 0x100000000ull);
  regs.fill(2, 0x100000000ull);
  regs.fill(3, 5);
  regs.p[kCf] = 0;
  run(carry(Opcode::Madc, Type::U64, {R(0), R(1), R(2), R(3)}, false, ptx::MulMode::Hi), regs);
  EXPECT_EQ(regs.at(0, 0), 6u);
}

TEST(ComputeCarry, SixtyFourBitWords) {
  Regs regs;
  regs.fill(1, ~uint64_t(0));
  regs.fill(2, 2);
  run(carry(Opcode::Add, Type::U64, {R(0), R(1), R(2)}, true), regs);
  EXPECT_EQ(regs.at(0, 0), 1u);
  EXPECT_EQ(regs.p[kCf], 0xffffffffu);
  regs.fill(1, 0);
  regs.fill(2, 0);
  run(carry(Opcode::Addc, Type::S64, {R(0), R(1), R(2)}, false), regs);
  EXPECT_EQ(regs.at(0, 0), 1u);
}

// The flag is per thread: each lane carries its own, and lanes that do not
// execute keep theirs.
TEST(ComputeCarry, FlagIsPerLane) {
  Regs regs;
  for (unsigned l = 0; l < 32; ++l) regs.at(1, l) = l % 2 ? 0 : 0xffffffff;
  regs.fill(2, 1);
  run(carry(Opcode::Add, Type::U32, {R(0), R(1), R(2)}, true), regs);
  EXPECT_EQ(regs.p[kCf], 0x55555555u);
  regs.fill(3, 0);
  run(carry(Opcode::Addc, Type::U32, {R(4), R(3), R(3)}, false), regs);
  EXPECT_EQ(regs.at(4, 0), 1u);
  EXPECT_EQ(regs.at(4, 1), 0u);
  regs.fill(1, 0);
  run(carry(Opcode::Add, Type::U32, {R(0), R(1), R(1)}, true), regs, 0x3);  // lanes 0, 1: no carry
  EXPECT_EQ(regs.p[kCf], 0x55555554u);
}

TEST(ComputeCarry, RejectsWhatTheIsaDoesNot) {
  EXPECT_NE(rejection(carry(Opcode::Add, Type::F32, {R(0), R(1), R(2)}, true)), "");
  EXPECT_NE(rejection(carry(Opcode::Add, Type::U16, {R(0), R(1), R(2)}, true)), "");
  EXPECT_NE(rejection(carry(Opcode::Mad, Type::U32, {R(0), R(1), R(2), R(3)}, true, ptx::MulMode::Wide)), "");
  EXPECT_NE(rejection(carry(Opcode::Add, Type::U32, {R(0), R(1), R(2)}, true).sat()), "");
  EXPECT_EQ(rejection(carry(Opcode::Subc, Type::S64, {R(0), R(1), R(2)}, true)), "");
}

}  // namespace
}  // namespace gpumux::test
