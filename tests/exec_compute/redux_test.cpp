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

// Two 16-lane tiles run one redux.sync and one vote.sync.ballot together,
// each lane naming its tile in the membermask (%r2): each tile reduces over
// its own lanes.
TEST(ComputeRedux, EachLaneReducesOverItsMembermask) {
  Regs regs;
  for (unsigned l = 0; l < 32; ++l) {
    regs.at(1, l) = l;
    regs.at(2, l) = l < 16 ? 0x0000ffffu : 0xffff0000u;
  }
  Inst r(Opcode::Redux, Type::U32);
  r.ops({R(0), R(1), R(2)});
  r.in.aop = ptx::AtomOp::Add;
  r.in.sync = true;
  std::string why;
  ptx::ExecHandler h = exec::bind_warp_ops(r, why);
  ASSERT_NE(h, nullptr) << why;
  exec::StepContext c = regs.ctx(~0u);
  h(c, r);
  EXPECT_EQ(regs.at(0, 3), 120u);         // 0 + ... + 15
  EXPECT_EQ(regs.at(0, 20), 376u);        // 16 + ... + 31
  regs.p[0] = 0x00ff00f0u;                // %p0, a lane mask
  Inst v(Opcode::Vote, Type::B32);
  v.ops({R(3), P(0), R(2)});
  v.in.vote = ptx::VoteMode::Ballot;
  v.in.sync = true;
  h = exec::bind_warp_ops(v, why);
  ASSERT_NE(h, nullptr) << why;
  c = regs.ctx(~0u);
  h(c, v);
  EXPECT_EQ(regs.at(3, 0), 0x000000f0u);  // the first tile's bits only
  EXPECT_EQ(regs.at(3, 31), 0x00ff0000u);
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
