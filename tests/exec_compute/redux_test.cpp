// redux.sync over the executing lanes, against hand-computed reductions.
#include "exec_compute/inst_builder.h"
#include "gpumux/exec/bind_tables.h"

namespace gpumux::test {
namespace {

// redux.sync.op.type %r0, %r1, -1 over `mask`; %r1 = value(lane).
template <class F>
Regs redux(ptx::AtomOp op, Type t, uint32_t mask, F value) {
  Inst b(Opcode::Redux, t);
  b.ops({R(0), R(1), Imm(0xffffffff)});
  b.in.aop = op;
  b.in.sync = true;
  Regs regs;
  for (unsigned l = 0; l < 32; ++l) regs.at(1, l) = uint32_t(value(l));
  regs.fill(0, 0xdead);
  std::string why;
  ptx::ExecHandler h = exec::bind_warp_ops(b, why);
  EXPECT_NE(h, nullptr) << why;
  if (!h) return regs;
  exec::StepContext c = regs.ctx(mask);
  h(c, b);
  return regs;
}

TEST(ComputeRedux, ReducesOverTheExecutingLanes) {
  using ptx::AtomOp;
  auto lane = [](unsigned l) { return l; };
  EXPECT_EQ(redux(AtomOp::Add, Type::U32, ~0u, lane).at(0, 7), 496u);
  EXPECT_EQ(redux(AtomOp::Add, Type::U32, 0xf0, lane).at(0, 4), 4u + 5 + 6 + 7);
  EXPECT_EQ(redux(AtomOp::Add, Type::U32, ~0u, [](unsigned) { return 0x80000000u; }).at(0, 0), 0u);  // wraps
  auto signed_lane = [](unsigned l) { return int32_t(l) - 16; };
  EXPECT_EQ(redux(AtomOp::Min, Type::S32, ~0u, signed_lane).at(0, 0), uint32_t(-16));
  EXPECT_EQ(redux(AtomOp::Min, Type::U32, ~0u, signed_lane).at(0, 0), 0u);  // lane 16
  EXPECT_EQ(redux(AtomOp::Max, Type::S32, ~0u, signed_lane).at(0, 0), 15u);
  EXPECT_EQ(redux(AtomOp::Max, Type::U32, ~0u, signed_lane).at(0, 0), uint32_t(-1));
  auto bit = [](unsigned l) { return 1u << l; };
  EXPECT_EQ(redux(AtomOp::Or, Type::B32, 0x8001, bit).at(0, 15), 0x8001u);
  EXPECT_EQ(redux(AtomOp::And, Type::B32, ~0u, [](unsigned l) { return 0xff | (1u << l); }).at(0, 3), 0xffu);
  EXPECT_EQ(redux(AtomOp::Xor, Type::B32, 0x7, lane).at(0, 0), 0u ^ 1 ^ 2);
  // Lanes that do not execute keep their register.
  EXPECT_EQ(redux(AtomOp::Add, Type::U32, 0x1, lane).at(0, 1), 0xdeadu);
}

TEST(ComputeRedux, RejectsTypesTheIsaDoesNot) {
  Inst b(Opcode::Redux, Type::U32);
  b.ops({R(0), R(1), Imm(0xffffffff)});
  b.in.aop = ptx::AtomOp::And;
  std::string why;
  EXPECT_EQ(exec::bind_warp_ops(b, why), nullptr);
  EXPECT_NE(why.find("redux.sync takes"), std::string::npos);
  b.in.aop = ptx::AtomOp::Add;
  b.in.type = Type::B32;
  EXPECT_EQ(exec::bind_warp_ops(b, why), nullptr);
}

}  // namespace
}  // namespace gpumux::test
