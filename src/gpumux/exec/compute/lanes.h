// Lane-loop building blocks shared by the compute handlers.
//
// A handler resolves its operands once per warp instruction (SrcLanes), then
// runs one tight loop over the lanes. With a full mask the loop covers all 32
// lanes into a local buffer, which the compiler can vectorise without alias
// checks; otherwise it visits only the executing lanes.
#pragma once

#include <cstring>
#include <utility>

#include "gpumux/exec/step_context.h"

namespace gpumux::exec::compute {

// The values of one source operand in all lanes. Registers are read in
// place; an immediate is broadcast; special registers and symbol addresses are
// fetched for the executing lanes (StepContext::src_lanes_slow).
class SrcLanes {
 public:
  SrcLanes(const StepContext& ctx, const ptx::Operand& o) {
    if (o.kind == ptx::OperandKind::Reg) {
      p_ = ctx.lanes(o.reg);
      return;
    }
    if (o.kind == ptx::OperandKind::Imm) {
      for (uint64_t& v : buf_) v = o.imm;
    } else {
      std::memset(buf_, 0, sizeof buf_);
      ctx.src_lanes_slow(o, buf_);
    }
    p_ = buf_;
  }
  SrcLanes(const SrcLanes&) = delete;  // p_ may point into buf_
  SrcLanes& operator=(const SrcLanes&) = delete;

  uint64_t operator[](unsigned lane) const { return p_[lane]; }
  const uint64_t* data() const { return p_; }  // all 32 lanes

 private:
  const uint64_t* p_;
  uint64_t buf_[kWarpSize];
};

// A pseudo source whose value in each lane is the lane index, for loops that
// also need per-lane predicate bits.
struct LaneIndex {
  unsigned operator[](unsigned lane) const { return lane; }
};

// Lane mask of a predicate source: a predicate register (honouring '!') or an
// immediate 0/1.
inline uint32_t pred_mask(const StepContext& ctx, const ptx::Operand& o) {
  if (o.kind == ptx::OperandKind::Pred) return o.neg ? ~ctx.preds[o.reg] : ctx.preds[o.reg];
  return o.imm ? kFullMask : 0u;
}

// Sets the executing lanes of predicate p from `bits`.
inline void write_pred(const StepContext& ctx, uint16_t p, uint32_t bits) {
  ctx.preds[p] = (ctx.preds[p] & ~ctx.mask) | (bits & ctx.mask);
}

// d[lane] = f(src[lane]...) for the executing lanes.
template <class F, class... S>
inline void store_lanes(const StepContext& ctx, uint16_t dst, const F& f, const S&... src) {
  uint64_t* d = ctx.lanes(dst);
  if (ctx.mask == kFullMask) {
    uint64_t out[kWarpSize];
    for (unsigned l = 0; l < kWarpSize; ++l) out[l] = f(src[l]...);
    std::memcpy(d, out, sizeof out);
  } else {
    for_each_lane(ctx.mask, [&](unsigned l) { d[l] = f(src[l]...); });
  }
}

// Bit `lane` set where f(src[lane]...) is true, for the executing lanes.
template <class F, class... S>
inline uint32_t lane_bits(uint32_t mask, const F& f, const S&... src) {
  uint32_t bits = 0;
  if (mask == kFullMask) {
    for (unsigned l = 0; l < kWarpSize; ++l) bits |= uint32_t(bool(f(src[l]...))) << l;
  } else {
    for_each_lane(mask, [&](unsigned l) { bits |= uint32_t(bool(f(src[l]...))) << l; });
  }
  return bits;
}

// An operation object is built once per warp instruction, from the
// instruction when it needs run-time parameters (a LUT, a rounding function).
template <class Op>
inline Op make_op(const ptx::Instruction& in) {
  if constexpr (std::is_constructible_v<Op, const ptx::Instruction&>) {
    return Op(in);
  } else {
    (void)in;
    return Op{};
  }
}

template <class Op, size_t... I>
inline void lanewise_sources(StepContext& ctx, const ptx::Instruction& in, const Op& op,
                             std::index_sequence<I...>) {
  const SrcLanes src[] = {SrcLanes(ctx, in.ops[1 + I])...};
  store_lanes(ctx, in.ops[0].reg, op, src[I]...);
}

// Element-wise operation from a typed function Fn::fn(T...): the sources are
// read as T, the result is stored zero-extended.
template <class T, class Fn>
struct TypedOp {
  static constexpr unsigned kArity = Fn::kArity;
  template <class... Raw>
  uint64_t operator()(Raw... raw) const {
    return to_bits(Fn::fn(from_bits<T>(raw)...));
  }
};

// The handler of an element-wise instruction: ops[0] = op(ops[1..kArity]).
// Op provides kArity and uint64_t operator()(raw source bits...) const.
template <class Op>
void lanewise(StepContext& ctx, const ptx::Instruction& in) {
  if (in.ops[0].kind == ptx::OperandKind::Sink) return;
  const Op op = make_op<Op>(in);
  lanewise_sources(ctx, in, op, std::make_index_sequence<Op::kArity>{});
}

}  // namespace gpumux::exec::compute
