// Comparison and selection: setp, set, selp, slct.
//
// A comparison classifies each pair of values as greater, less, equal or
// unordered (a NaN operand); the CmpOp is an 8-entry truth table over these
// classes, built once per instruction, so one handler per type covers every
// CmpOp, ordered and unordered. lo/ls/hi/hs compare as unsigned (the binder
// picks the unsigned type). The setp/set .and/.or/.xor combination with c is
// applied to whole lane masks.
#include <type_traits>

#include "gpumux/exec/compute/families.h"
#include "gpumux/exec/compute/float_util.h"
#include "gpumux/exec/compute/lanes.h"

namespace gpumux::exec::compute {
namespace {

enum Class : unsigned { kGreater = 0, kLess = 1, kEqual = 2, kUnordered = 4 };

constexpr uint32_t bit(Class c) { return 1u << c; }

uint32_t truth_table(ptx::CmpOp op) {
  using ptx::CmpOp;
  const uint32_t lt = bit(kLess), eq = bit(kEqual), gt = bit(kGreater), un = bit(kUnordered);
  switch (op) {
    case CmpOp::Eq: return eq;
    case CmpOp::Ne: return lt | gt;
    case CmpOp::Lt: case CmpOp::Lo: return lt;
    case CmpOp::Le: case CmpOp::Ls: return lt | eq;
    case CmpOp::Gt: case CmpOp::Hi: return gt;
    case CmpOp::Ge: case CmpOp::Hs: return gt | eq;
    case CmpOp::Equ: return eq | un;
    case CmpOp::Neu: return lt | gt | un;
    case CmpOp::Ltu: return lt | un;
    case CmpOp::Leu: return lt | eq | un;
    case CmpOp::Gtu: return gt | un;
    case CmpOp::Geu: return gt | eq | un;
    case CmpOp::Num: return lt | eq | gt;
    case CmpOp::Nan: return un;
    case CmpOp::None: break;
  }
  return 0;
}

template <class T>
unsigned classify(T a, T b, bool ftz) {
  if constexpr (!std::is_integral_v<T>) {
    if (is_nan(a) || is_nan(b)) return kUnordered;
    if (ftz) {
      a = flush_subnormal(a);
      b = flush_subnormal(b);
    }
  }
  return a < b ? kLess : a == b ? kEqual : kGreater;
}

// Compare bits of the executing lanes: t[0] for scalars (t[1] = !t[0]), or
// t[0]/t[1] for the low/high elements of a packed pair.
template <class V>
void compare(const StepContext& ctx, const ptx::Instruction& in, uint32_t t[2]) {
  const uint32_t table = truth_table(in.cmp);
  const bool ftz = in.ftz;
  const SrcLanes a(ctx, in.ops[1]), b(ctx, in.ops[2]);
  if constexpr (kIsPair<V>) {
    using E = typename V::Elem;
    for (unsigned half = 0; half < 2; ++half) {
      const unsigned shift = 16 * half;
      t[half] = lane_bits(
          ctx.mask,
          [&](uint64_t x, uint64_t y) {
            return (table >> classify(from_bits<E>(x >> shift), from_bits<E>(y >> shift), ftz)) & 1;
          },
          a, b);
    }
  } else {
    t[0] = lane_bits(
        ctx.mask,
        [&](uint64_t x, uint64_t y) { return (table >> classify(from_bits<V>(x), from_bits<V>(y), ftz)) & 1; },
        a, b);
    t[1] = ~t[0];
  }
}

// BoolOp(t, c) on lane masks; c is ops[3] when a BoolOp is present.
uint32_t combine(const StepContext& ctx, const ptx::Instruction& in, uint32_t t) {
  switch (in.bop) {
    case ptx::BoolOp::And: return t & pred_mask(ctx, in.ops[3]);
    case ptx::BoolOp::Or: return t | pred_mask(ctx, in.ops[3]);
    case ptx::BoolOp::Xor: return t ^ pred_mask(ctx, in.ops[3]);
    case ptx::BoolOp::None: break;
  }
  return t;
}

// setp p|q, a, b{, c}: p = BoolOp(t, c), q = BoolOp(!t, c); for packed pairs
// p and q take the low and high element results.
template <class V>
void setp(StepContext& ctx, const ptx::Instruction& in) {
  uint32_t t[2];
  compare<V>(ctx, in, t);
  if (in.ops[0].kind == ptx::OperandKind::Pred) write_pred(ctx, in.ops[0].reg, combine(ctx, in, t[0]));
  if (in.pred_dst2 != ptx::kNoReg) write_pred(ctx, in.pred_dst2, combine(ctx, in, t[1]));
}

// The value set writes for true in one element of the destination type.
uint64_t true_value(ptx::Type t) {
  using ptx::Type;
  switch (t) {
    case Type::F32: return 0x3f800000;
    case Type::F16: case Type::F16x2: return 0x3c00;
    case Type::BF16: case Type::BF16x2: return 0x3f80;
    case Type::U16: case Type::S16: return 0xffff;
    default: return 0xffffffff;
  }
}

// set.CmpOp{.BoolOp}.dtype.stype d, a, b{, c}: all ones (integer) or 1.0
// (float) where BoolOp(cmp, c) holds, else 0; element-wise for packed pairs.
template <class V>
void set(StepContext& ctx, const ptx::Instruction& in) {
  if (in.ops[0].kind == ptx::OperandKind::Sink) return;
  uint32_t t[2];
  compare<V>(ctx, in, t);
  const uint32_t lo = combine(ctx, in, t[0]);
  uint64_t* d = ctx.lanes(in.ops[0].reg);
  if constexpr (kIsPair<V>) {
    const uint32_t hi = combine(ctx, in, t[1]);
    const uint64_t one = in.type == ptx::Type::U32 || in.type == ptx::Type::S32 ? 0xffff : true_value(in.type);
    for_each_lane(ctx.mask, [&](unsigned l) {
      d[l] = (((lo >> l) & 1) ? one : 0) | (((hi >> l) & 1) ? one << 16 : 0);
    });
  } else {
    const uint64_t one = true_value(in.type);
    for_each_lane(ctx.mask, [&](unsigned l) { d[l] = ((lo >> l) & 1) ? one : 0; });
  }
}

// selp d, a, b, c: d = c ? a : b.
template <class T>
void selp(StepContext& ctx, const ptx::Instruction& in) {
  if (in.ops[0].kind == ptx::OperandKind::Sink) return;
  const SrcLanes a(ctx, in.ops[1]), b(ctx, in.ops[2]);
  const uint32_t c = pred_mask(ctx, in.ops[3]);
  store_lanes(
      ctx, in.ops[0].reg,
      [c](uint64_t x, uint64_t y, unsigned l) { return to_bits(from_bits<T>(((c >> l) & 1) ? x : y)); }, a,
      b, LaneIndex{});
}

// slct d, a, b, c: d = c >= 0 ? a : b (c .s32 or .f32; a NaN c selects b).
template <class T, class C>
struct Slct {
  static constexpr unsigned kArity = 3;
  bool ftz;
  explicit Slct(const ptx::Instruction& in) : ftz(in.ftz) {}
  uint64_t operator()(uint64_t a, uint64_t b, uint64_t c) const {
    C v = from_bits<C>(c);
    if constexpr (std::is_same_v<C, float>)
      if (ftz) v = flush_subnormal(v);
    return to_bits(from_bits<T>(v >= 0 ? a : b));
  }
};

constexpr TypeSet kSetpTypes{ptx::Type::B16, ptx::Type::B32, ptx::Type::B64, ptx::Type::U16,
                             ptx::Type::U32, ptx::Type::U64, ptx::Type::S16, ptx::Type::S32,
                             ptx::Type::S64, ptx::Type::F16, ptx::Type::F16x2, ptx::Type::BF16,
                             ptx::Type::BF16x2, ptx::Type::F32, ptx::Type::F64};
constexpr TypeSet kSelectTypes{ptx::Type::B16, ptx::Type::B32, ptx::Type::B64, ptx::Type::U16,
                               ptx::Type::U32, ptx::Type::U64, ptx::Type::S16, ptx::Type::S32,
                               ptx::Type::S64, ptx::Type::F32, ptx::Type::F64};

struct SetpKind {
  template <class V>
  static constexpr ptx::ExecHandler kHandler = &setp<V>;
};
struct SetKind {
  template <class V>
  static constexpr ptx::ExecHandler kHandler = &set<V>;
};

// The compare handler (K: setp or set) for compare type `ct`.
template <class K>
ptx::ExecHandler bind_cmp(const ptx::Instruction& in, std::string& why, ptx::Type ct) {
  using ptx::CmpOp;
  if (!kSetpTypes.has(ct)) return reject(in, why);
  const bool unsigned_cmp = in.cmp == CmpOp::Lo || in.cmp == CmpOp::Ls || in.cmp == CmpOp::Hi ||
                            in.cmp == CmpOp::Hs;
  const bool float_cmp = in.cmp >= CmpOp::Equ;
  if (truth_table(in.cmp) == 0) return reject(in, why, "needs a comparison");
  if (is_float(ct)) {
    if (unsigned_cmp) return reject(in, why, "unsigned comparison on a float type");
    return visit_float(ct, [](auto tag) { return K::template kHandler<typename decltype(tag)::type>; });
  }
  if (float_cmp) return reject(in, why, "unordered comparison on an integer type");
  if (in.ftz) return reject(in, why, ".ftz on an integer type");
  return visit_int(ct, [&](auto tag) -> ptx::ExecHandler {
    using T = typename decltype(tag)::type;
    return unsigned_cmp ? K::template kHandler<std::make_unsigned_t<T>> : K::template kHandler<T>;
  });
}

bool cmp_shape(const ptx::Instruction& in) {
  const unsigned n = in.bop == ptx::BoolOp::None ? 3 : 4;
  return in.nops == n && is_value_src(in.ops[1]) && is_value_src(in.ops[2]) &&
         (n == 3 || is_pred_src(in.ops[3]));
}

}  // namespace

ptx::ExecHandler bind_compare(const ptx::Instruction& in, std::string& why) {
  using ptx::OperandKind;
  using ptx::Type;
  if (in.rnd != ptx::Rounding::None || in.sat || in.approx || in.full || in.mul != ptx::MulMode::None)
    return reject(in, why);
  switch (in.op) {
    case ptx::Opcode::Setp: {
      const bool p_ok = in.ops[0].kind == OperandKind::Pred || in.ops[0].kind == OperandKind::Sink;
      if (!cmp_shape(in) || !p_ok) return reject(in, why, "unexpected operands");
      return bind_cmp<SetpKind>(in, why, in.type2 == Type::None ? in.type : in.type2);
    }
    case ptx::Opcode::Set: {
      constexpr TypeSet kDst{Type::U16, Type::S16, Type::U32, Type::S32, Type::F32,
                             Type::F16, Type::BF16, Type::F16x2, Type::BF16x2};
      if (!cmp_shape(in) || !is_reg_dst(in.ops[0]) || in.pred_dst2 != ptx::kNoReg)
        return reject(in, why, "unexpected operands");
      const bool pair_src = in.type2 == Type::F16x2 || in.type2 == Type::BF16x2;
      const bool pair_dst = in.type == Type::F16x2 || in.type == Type::BF16x2;
      if (!kDst.has(in.type) || (pair_dst && !pair_src) ||
          (pair_src && !pair_dst && in.type != Type::U32 && in.type != Type::S32))
        return reject(in, why);
      return bind_cmp<SetKind>(in, why, in.type2);
    }
    case ptx::Opcode::Selp:
      if (in.nops != 4 || !is_reg_dst(in.ops[0]) || !is_value_src(in.ops[1]) ||
          !is_value_src(in.ops[2]) || !is_pred_src(in.ops[3]))
        return reject(in, why, "unexpected operands");
      if (!kSelectTypes.has(in.type) || in.ftz) return reject(in, why);
      return visit_width(value_bytes(in.type), [](auto tag) { return &selp<typename decltype(tag)::type>; });
    case ptx::Opcode::Slct:
      if (!lanewise_shape(in, 3)) return reject(in, why, "unexpected operands");
      if (!kSelectTypes.has(in.type)) return reject(in, why);
      if (in.type2 == Type::F32)
        return visit_width(value_bytes(in.type),
                           [](auto tag) { return &lanewise<Slct<typename decltype(tag)::type, float>>; });
      if (in.type2 == Type::S32 && !in.ftz)
        return visit_width(value_bytes(in.type),
                           [](auto tag) { return &lanewise<Slct<typename decltype(tag)::type, int32_t>>; });
      return reject(in, why);
    default: return reject(in, why);
  }
}

}  // namespace gpumux::exec::compute
