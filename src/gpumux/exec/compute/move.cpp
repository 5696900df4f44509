// mov: register/immediate/special register/symbol or function address copies,
// predicate copies, and vector pack/unpack (mov.b64 %rd, {%r1, %r2};
// mov.b32 {%h1, %h2}, %r): element i occupies bits [i*w, (i+1)*w), the
// lowest element the lowest bits; '_' elements of an unpack are not written.
#include "gpumux/exec/compute/families.h"
#include "gpumux/exec/compute/lanes.h"

namespace gpumux::exec::compute {
namespace {

struct Identity {
  static constexpr unsigned kArity = 1;
  template <class T> static T fn(T a) { return a; }
};

inline uint64_t low_mask(unsigned n) { return n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1; }

// Element width in bits of a vector operand of a mov of type t.
unsigned element_bits(const ptx::Instruction& in, const ptx::Operand& v) {
  return 8 * value_bytes(in.type) / v.vcount;
}

void mov_pred(StepContext& ctx, const ptx::Instruction& in) {
  if (in.ops[0].kind == ptx::OperandKind::Pred) write_pred(ctx, in.ops[0].reg, pred_mask(ctx, in.ops[1]));
}

void pack(StepContext& ctx, const ptx::Instruction& in) {
  const ptx::Operand& v = in.ops[1];
  const unsigned n = v.vcount, w = element_bits(in, v);
  const uint64_t mask = low_mask(w);
  const uint64_t* e[4];
  for (unsigned i = 0; i < n; ++i) e[i] = ctx.lanes(v.vec[i]);
  store_lanes(
      ctx, in.ops[0].reg,
      [&](unsigned l) {
        uint64_t r = 0;
        for (unsigned i = 0; i < n; ++i) r |= (e[i][l] & mask) << (i * w);
        return r;
      },
      LaneIndex{});
}

void unpack(StepContext& ctx, const ptx::Instruction& in) {
  const ptx::Operand& v = in.ops[0];
  const unsigned n = v.vcount, w = element_bits(in, v);
  const uint64_t mask = low_mask(w);
  // Read the source once: an element register may be the source itself.
  uint64_t src[kWarpSize];
  const SrcLanes a(ctx, in.ops[1]);
  for_each_lane(ctx.mask, [&](unsigned l) { src[l] = a[l]; });
  for (unsigned i = 0; i < n; ++i) {
    if (v.vec[i] == ptx::kNoReg) continue;
    uint64_t* d = ctx.lanes(v.vec[i]);
    for_each_lane(ctx.mask, [&](unsigned l) { d[l] = (src[l] >> (i * w)) & mask; });
  }
}

bool vector_ok(const ptx::Instruction& in, const ptx::Operand& v, bool allow_sink) {
  if (v.vcount != 2 && v.vcount != 4) return false;
  if ((8 * value_bytes(in.type)) % v.vcount != 0 || element_bits(in, v) < 8) return false;
  for (unsigned i = 0; i < v.vcount; ++i)
    if (v.vec[i] == ptx::kNoReg && !allow_sink) return false;
  return !v.vec_is_pred;
}

}  // namespace

ptx::ExecHandler bind_move(const ptx::Instruction& in, std::string& why) {
  using ptx::OperandKind;
  if (in.rnd != ptx::Rounding::None || in.ftz || in.sat || in.approx || in.full ||
      in.mul != ptx::MulMode::None)
    return reject(in, why);
  if (in.nops != 2) return reject(in, why, "unexpected operands");
  const ptx::Operand& d = in.ops[0];
  const ptx::Operand& a = in.ops[1];
  if (in.type == ptx::Type::Pred) {
    if ((d.kind != OperandKind::Pred && d.kind != OperandKind::Sink) || !is_pred_src(a))
      return reject(in, why, "unexpected operands");
    return &mov_pred;
  }
  if (value_bytes(in.type) == 0) return reject(in, why);
  if (a.kind == OperandKind::Vec) {
    if (d.kind != OperandKind::Reg || !vector_ok(in, a, false)) return reject(in, why, "unexpected operands");
    return &pack;
  }
  if (d.kind == OperandKind::Vec) {
    if (!is_value_src(a) || !vector_ok(in, d, true)) return reject(in, why, "unexpected operands");
    return &unpack;
  }
  if (!lanewise_shape(in, 1)) return reject(in, why, "unexpected operands");
  return visit_width(value_bytes(in.type),
                     [](auto tag) { return &lanewise<TypedOp<typename decltype(tag)::type, Identity>>; });
}

}  // namespace gpumux::exec::compute
