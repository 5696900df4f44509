// Warp-wide communication: shfl.sync, vote, match.sync, activemask, redux.sync.
#include <algorithm>
#include <array>
#include <bit>

#include <fmt/format.h>

#include "gpumux/exec/bind_tables.h"

namespace gpumux::exec {

namespace {

// shfl.sync.mode.b32 d{|p}, a, b, c, membermask (PTX ISA semantics of b, c).
template <ptx::ShflMode M>
void shfl(StepContext& c, const ptx::Instruction& in) {
  std::array<uint64_t, kWarpSize> a;
  for (unsigned l = 0; l < kWarpSize; ++l) a[l] = c.src(in.ops[1], l);
  const uint16_t d = in.ops[0].reg;
  for_each_lane(c.mask, [&](unsigned lane) {
    uint32_t b = uint32_t(c.src(in.ops[2], lane)), cc = uint32_t(c.src(in.ops[3], lane));
    int bval = int(b & 31), cval = int(cc & 31), seg = int((cc >> 8) & 31);
    int lanei = int(lane);
    int max_lane = (lanei & seg) | (cval & ~seg);
    int min_lane = lanei & seg;
    int j = lanei;
    bool ok = false;
    if constexpr (M == ptx::ShflMode::Up) {
      j = lanei - bval;
      ok = j >= max_lane;
    } else if constexpr (M == ptx::ShflMode::Down) {
      j = lanei + bval;
      ok = j <= max_lane;
    } else if constexpr (M == ptx::ShflMode::Bfly) {
      j = lanei ^ bval;
      ok = j <= max_lane;
    } else {
      j = min_lane | (bval & ~seg);
      ok = j <= max_lane;
    }
    if (!ok) j = lanei;
    c.regs[size_t(d) * kWarpSize + lane] = a[unsigned(j)] & 0xffffffffu;
    if (in.pred_dst2 != ptx::kNoReg) c.set_pred(in.pred_dst2, lane, ok);
  });
}

uint32_t true_lanes(const StepContext& c, const ptx::Operand& p, uint32_t lanes) {
  uint32_t m = 0;
  for_each_lane(lanes, [&](unsigned l) { m |= uint32_t(c.pred(p, l)) << l; });
  return m;
}

// Calls f(group, lanes) for each set of executing lanes that name the same
// membermask: `group` is that mask's executing lanes, over which each of
// `lanes` computes. Sub-warp tiles (cooperative groups' thread_block_tile<16>)
// run one .sync instruction for every tile of the warp at once, each tile
// naming its own lanes.
template <class F>
void for_each_member_group(const StepContext& c, const ptx::Operand& membermask, F&& f) {
  for (uint32_t left = c.mask; left;) {
    const uint32_t group = uint32_t(c.src(membermask, unsigned(std::countr_zero(left)))) & c.mask;
    uint32_t lanes = 0;
    for_each_lane(left, [&](unsigned l) { lanes |= uint32_t((uint32_t(c.src(membermask, l)) & c.mask) == group) << l; });
    f(group, lanes);
    left &= ~lanes;
  }
}

// vote{.sync}.mode d, {!}a{, membermask}: over the membermask's lanes (.sync)
// or the executing ones.
template <ptx::VoteMode M>
void vote(StepContext& c, const ptx::Instruction& in) {
  auto over = [&](uint32_t group, uint32_t lanes) {
    const uint32_t t = true_lanes(c, in.ops[1], group);
    if constexpr (M == ptx::VoteMode::Ballot) {
      for_each_lane(lanes, [&](unsigned l) { c.regs[size_t(in.ops[0].reg) * kWarpSize + l] = t; });
    } else {
      const bool r = M == ptx::VoteMode::All   ? t == group
                     : M == ptx::VoteMode::Any ? t != 0
                                               : (t == 0 || t == group);
      for_each_lane(lanes, [&](unsigned l) { c.set_pred(in.ops[0].reg, l, r); });
    }
  };
  if (in.nops == 3) for_each_member_group(c, in.ops[2], over);
  else over(c.mask, c.mask);
}

// match.any.sync.b32/b64 d, a, membermask; match.all.sync d{|p}, a, membermask
template <bool All>
void match(StepContext& c, const ptx::Instruction& in) {
  std::array<uint64_t, kWarpSize> a{};
  for_each_lane(c.mask, [&](unsigned l) { a[l] = c.src(in.ops[1], l); });
  for_each_member_group(c, in.ops[2], [&](uint32_t group, uint32_t lanes) {
    for_each_lane(lanes, [&](unsigned l) {
      uint32_t same = 0;
      for_each_lane(group, [&](unsigned k) { same |= uint32_t(a[k] == a[l]) << k; });
      const bool all = same == group;
      c.regs[size_t(in.ops[0].reg) * kWarpSize + l] = All ? (all ? group : 0) : same;
      if (All && in.pred_dst2 != ptx::kNoReg) c.set_pred(in.pred_dst2, l, all);
    });
  });
}

void activemask(StepContext& c, const ptx::Instruction& in) {
  for_each_lane(c.mask,
                [&](unsigned l) { c.regs[size_t(in.ops[0].reg) * kWarpSize + l] = c.mask; });
}

// redux.sync.op.type d, a, membermask: every executing lane gets the reduction
// of a over its membermask's lanes; .add wraps around.
template <class T, ptx::AtomOp Op>
void redux(StepContext& c, const ptx::Instruction& in) {
  for_each_member_group(c, in.ops[2], [&](uint32_t group, uint32_t lanes) {
    T acc{};
    bool first = true;
    for_each_lane(group, [&](unsigned l) {
      const T v = T(uint32_t(c.src(in.ops[1], l)));
      if (first) acc = v;
      else if constexpr (Op == ptx::AtomOp::Add) acc = T(uint32_t(acc) + uint32_t(v));
      else if constexpr (Op == ptx::AtomOp::Min) acc = std::min(acc, v);
      else if constexpr (Op == ptx::AtomOp::Max) acc = std::max(acc, v);
      else if constexpr (Op == ptx::AtomOp::And) acc = T(acc & v);
      else if constexpr (Op == ptx::AtomOp::Or) acc = T(acc | v);
      else acc = T(acc ^ v);
      first = false;
    });
    for_each_lane(lanes, [&](unsigned l) { c.regs[size_t(in.ops[0].reg) * kWarpSize + l] = uint32_t(acc); });
  });
}

ptx::ExecHandler bind_redux(const ptx::Instruction& in, std::string& why) {
  using ptx::AtomOp;
  using ptx::Type;
  const bool arith = in.aop == AtomOp::Add || in.aop == AtomOp::Min || in.aop == AtomOp::Max;
  const bool ok = arith ? in.type == Type::U32 || in.type == Type::S32 : in.type == Type::B32;
  if (!ok || in.nops != 3 || in.ops[0].kind != ptx::OperandKind::Reg) {
    why = "redux.sync takes .add/.min/.max with .u32 or .s32 and .and/.or/.xor with .b32";
    return nullptr;
  }
  const bool s = in.type == Type::S32;
  switch (in.aop) {
    case AtomOp::Add: return s ? &redux<int32_t, AtomOp::Add> : &redux<uint32_t, AtomOp::Add>;
    case AtomOp::Min: return s ? &redux<int32_t, AtomOp::Min> : &redux<uint32_t, AtomOp::Min>;
    case AtomOp::Max: return s ? &redux<int32_t, AtomOp::Max> : &redux<uint32_t, AtomOp::Max>;
    case AtomOp::And: return &redux<uint32_t, AtomOp::And>;
    case AtomOp::Or: return &redux<uint32_t, AtomOp::Or>;
    default: return &redux<uint32_t, AtomOp::Xor>;
  }
}

}  // namespace

ptx::ExecHandler bind_warp_ops(const ptx::Instruction& in, std::string& why) {
  using ptx::Opcode;
  switch (in.op) {
    case Opcode::Shfl:
      if (ptx::type_size(in.type) != 4) {
        why = "shfl is defined on 32-bit values only";
        return nullptr;
      }
      switch (in.shfl) {
        case ptx::ShflMode::Up: return &shfl<ptx::ShflMode::Up>;
        case ptx::ShflMode::Down: return &shfl<ptx::ShflMode::Down>;
        case ptx::ShflMode::Bfly: return &shfl<ptx::ShflMode::Bfly>;
        case ptx::ShflMode::Idx: return &shfl<ptx::ShflMode::Idx>;
        default: why = "shfl without a mode"; return nullptr;
      }
    case Opcode::Vote:
      switch (in.vote) {
        case ptx::VoteMode::All: return &vote<ptx::VoteMode::All>;
        case ptx::VoteMode::Any: return &vote<ptx::VoteMode::Any>;
        case ptx::VoteMode::Uni: return &vote<ptx::VoteMode::Uni>;
        case ptx::VoteMode::Ballot: return &vote<ptx::VoteMode::Ballot>;
        default: why = "vote without a mode"; return nullptr;
      }
    case Opcode::Match:
      // The parser records .any/.all in Instruction::vote (Any/All).
      return in.vote == ptx::VoteMode::All ? &match<true> : &match<false>;
    case Opcode::Activemask: return &activemask;
    case Opcode::Redux: return bind_redux(in, why);
    default: return nullptr;
  }
}

}  // namespace gpumux::exec
