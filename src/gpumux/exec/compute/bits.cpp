// Logic and bit manipulation: and, or, xor, not (.b16/.b32/.b64 and .pred),
// cnot, shl, shr, shf, bfe, bfi, brev, popc, clz, bfind, prmt, lop3, dp4a,
// dp2a, bmsk, fns.
//
// Shift amounts are unsigned 32-bit values; amounts >= the width give 0 (shl,
// shr.u/.b) or the sign fill (shr.s). bfe/bfi positions and lengths use their
// low 8 bits, as the ISA specifies.
#include <algorithm>
#include <bit>
#include <type_traits>

#include "gpumux/core/popcount.h"
#include "gpumux/exec/compute/families.h"
#include "gpumux/exec/compute/lanes.h"

namespace gpumux::exec::compute {
namespace {

template <class T>
inline constexpr unsigned kWidth = 8 * sizeof(T);

// Unsigned type of at least 32 bits (shifts without promotion to int).
template <class T>
using Calc = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;

// The n low bits set (n may be 64).
inline uint64_t low_mask(unsigned n) { return n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1; }

struct And {
  static constexpr unsigned kArity = 2;
  template <class T> static T fn(T a, T b) { return T(a & b); }
};
struct Or {
  static constexpr unsigned kArity = 2;
  template <class T> static T fn(T a, T b) { return T(a | b); }
};
struct Xor {
  static constexpr unsigned kArity = 2;
  template <class T> static T fn(T a, T b) { return T(a ^ b); }
};
struct Not {
  static constexpr unsigned kArity = 1;
  template <class T> static T fn(T a) { return T(~a); }
};
struct Cnot {
  static constexpr unsigned kArity = 1;
  template <class T> static T fn(T a) { return T(a == 0); }
};
struct Brev {
  static constexpr unsigned kArity = 1;
  template <class T>
  static T fn(T x) {
    x = T(((x >> 1) & T(0x5555555555555555ull)) | ((x & T(0x5555555555555555ull)) << 1));
    x = T(((x >> 2) & T(0x3333333333333333ull)) | ((x & T(0x3333333333333333ull)) << 2));
    x = T(((x >> 4) & T(0x0f0f0f0f0f0f0f0full)) | ((x & T(0x0f0f0f0f0f0f0f0full)) << 4));
    if constexpr (sizeof(T) == 8) return __builtin_bswap64(x);
    else return __builtin_bswap32(x);
  }
};
// popc, clz and bfind produce a .u32 whatever the source width.
struct Popc {
  static constexpr unsigned kArity = 1;
  template <class T> static uint32_t fn(T a) { return uint32_t(gpumux::popcount(a)); }
};
struct Clz {
  static constexpr unsigned kArity = 1;
  template <class T> static uint32_t fn(T a) { return uint32_t(std::countl_zero(a)); }
};
// Position of the most significant non-sign bit (0xffffffff if none); with
// .shiftamt the left shift that brings it to the msb.
template <bool ShiftAmount>
struct Bfind {
  static constexpr unsigned kArity = 1;
  template <class T>
  static uint32_t fn(T a) {
    const auto x = std::make_unsigned_t<T>(a < 0 ? ~a : a);
    if (x == 0) return 0xffffffffu;
    const unsigned lead = unsigned(std::countl_zero(x));
    return ShiftAmount ? lead : kWidth<T> - 1 - lead;
  }
};

template <class T, bool Left>
struct Shift {
  static constexpr unsigned kArity = 2;
  uint64_t operator()(uint64_t raw, uint64_t amount) const {
    const uint32_t n = uint32_t(amount);
    const T a = from_bits<T>(raw);
    if constexpr (Left) return to_bits(n >= kWidth<T> ? T(0) : T(Calc<T>(a) << n));
    else if constexpr (std::is_signed_v<T>) return to_bits(T(a >> std::min(n, kWidth<T> - 1)));
    else return to_bits(n >= kWidth<T> ? T(0) : T(a >> n));
  }
};

// shf: shift the 64-bit {b, a} by c (clamped to 32 or wrapped mod 32); .l
// keeps the upper word, .r the lower one.
template <bool Left, bool Clamp>
struct Funnel {
  static constexpr unsigned kArity = 3;
  uint64_t operator()(uint64_t a, uint64_t b, uint64_t c) const {
    const uint32_t n = Clamp ? std::min<uint32_t>(uint32_t(c), 32) : uint32_t(c) & 31;
    const uint64_t v = uint64_t(uint32_t(b)) << 32 | uint32_t(a);
    return Left ? uint32_t((v << n) >> 32) : uint32_t(v >> n);
  }
};

template <class T>
struct Bfe {
  static constexpr unsigned kArity = 3;
  uint64_t operator()(uint64_t raw, uint64_t pos_raw, uint64_t len_raw) const {
    using U = std::make_unsigned_t<T>;
    const U a = from_bits<U>(raw);
    const unsigned pos = pos_raw & 0xff, len = len_raw & 0xff;
    if (len == 0) return 0;
    const bool sbit =
        std::is_signed_v<T> && ((a >> std::min(pos + len - 1, kWidth<T> - 1)) & 1);
    const unsigned n = pos >= kWidth<T> ? 0 : std::min(len, kWidth<T> - pos);
    uint64_t field = n == 0 ? 0 : (uint64_t(a) >> pos) & low_mask(n);
    if (sbit) field |= ~low_mask(n);
    return to_bits(U(field));
  }
};

template <class T>
struct Bfi {
  static constexpr unsigned kArity = 4;
  uint64_t operator()(uint64_t a, uint64_t b, uint64_t pos_raw, uint64_t len_raw) const {
    const unsigned pos = pos_raw & 0xff, len = len_raw & 0xff;
    const T base = from_bits<T>(b);
    if (pos >= kWidth<T>) return to_bits(base);
    const uint64_t mask = low_mask(std::min(len, kWidth<T> - pos)) << pos;
    return to_bits(T((base & ~mask) | ((a << pos) & mask)));
  }
};

// bmsk.mode.b32 d, a, b: the mask of b bits from bit a (PTX ISA). .wrap takes
// a and b modulo 32; .clamp gives 0 for a >= 32 and all bits from a for b >= 32.
template <ptx::ShfMode Mode>
struct Bmsk {
  static constexpr unsigned kArity = 2;
  uint64_t operator()(uint64_t a_raw, uint64_t b_raw) const {
    const uint32_t a = uint32_t(a_raw), b = uint32_t(b_raw);
    const unsigned pos = a & 31, width = b & 31;
    if constexpr (Mode == ptx::ShfMode::Clamp) {
      if (a >= 32) return 0;
      if (b >= 32) return uint32_t(low_mask(32 - pos) << pos);
    }
    return uint32_t(low_mask(std::min(width, 32 - pos)) << pos);
  }
};

// fns.b32 d, mask, base, offset: the position of the |offset|-th set bit of
// mask counted from bit base upwards (offset > 0) or downwards (offset < 0);
// offset 0 asks whether bit base itself is set. 0xffffffff when there is no
// such bit (PTX ISA). Cooperative groups use it to find a coalesced group's
// lane of a given rank.
struct Fns {
  static constexpr unsigned kArity = 3;
  uint64_t operator()(uint64_t mask_raw, uint64_t base_raw, uint64_t offset_raw) const {
    constexpr uint32_t kNone = 0xffffffffu;
    const uint32_t mask = uint32_t(mask_raw), base = uint32_t(base_raw);
    const int32_t offset = int32_t(uint32_t(offset_raw));
    if (base > 31) return kNone;  // undefined in the ISA: no bit found
    if (offset == 0) return (mask >> base) & 1 ? base : kNone;
    // The set bits at and beyond base in the search direction, nearest first.
    uint32_t m = offset > 0 ? mask & ~uint32_t(low_mask(base)) : mask & uint32_t(low_mask(base + 1));
    uint32_t n = offset > 0 ? uint32_t(offset) : uint32_t(-int64_t(offset));
    if (n > uint32_t(gpumux::popcount(m))) return kNone;
    if (offset > 0) {
      while (--n) m &= m - 1;  // drop the lowest set bits
      return uint32_t(std::countr_zero(m));
    }
    while (--n) m &= ~(0x80000000u >> std::countl_zero(m));  // drop the highest set bits
    return uint32_t(31 - std::countl_zero(m));
  }
};

template <ptx::PrmtMode Mode>
struct Prmt {
  static constexpr unsigned kArity = 3;
  uint64_t operator()(uint64_t a, uint64_t b, uint64_t c) const {
    using ptx::PrmtMode;
    const uint64_t bytes = uint64_t(uint32_t(b)) << 32 | uint32_t(a);
    const unsigned s = c & 3;
    uint32_t d = 0;
    for (unsigned i = 0; i < 4; ++i) {
      unsigned sel;
      if constexpr (Mode == PrmtMode::None) sel = (c >> (4 * i)) & 0xf;
      else if constexpr (Mode == PrmtMode::F4e) sel = (s + i) & 7;
      else if constexpr (Mode == PrmtMode::B4e) sel = (8 + s - i) & 7;
      else if constexpr (Mode == PrmtMode::Rc8) sel = s;
      else if constexpr (Mode == PrmtMode::Ecl) sel = std::max(i, s);
      else if constexpr (Mode == PrmtMode::Ecr) sel = std::min(i, s);
      else sel = (s & 1) * 2 + (i & 1);  // Rc16
      uint32_t byte = (bytes >> (8 * (sel & 7))) & 0xff;
      if (Mode == PrmtMode::None && (sel & 8)) byte = (byte & 0x80) ? 0xff : 0;  // sign replicate
      d |= byte << (8 * i);
    }
    return d;
  }
};

// lop3: bit i of the 8-bit LUT is the result for a = i>>2&1, b = i>>1&1, c = i&1.
struct Lop3 {
  static constexpr unsigned kArity = 3;
  uint32_t lut;
  explicit Lop3(const ptx::Instruction& in) : lut(uint32_t(in.ops[4].imm & 0xff)) {}
  uint64_t operator()(uint64_t a, uint64_t b, uint64_t c) const {
    uint32_t d = 0;
    for (unsigned i = 0; i < 8; ++i)
      if ((lut >> i) & 1)
        d |= uint32_t((i & 4 ? a : ~a) & (i & 2 ? b : ~b) & (i & 1 ? c : ~c));
    return d;
  }
};

template <bool Signed>
int32_t sub_word(uint32_t v, unsigned bits, unsigned index) {
  const uint32_t x = (v >> (bits * index)) & uint32_t(low_mask(bits));
  return Signed ? int32_t(x << (32 - bits)) >> (32 - bits) : int32_t(x);
}

// dp4a: c + sum of the four byte products; dp2a: c + two (16-bit x byte)
// products, bytes 0-1 (.lo) or 2-3 (.hi) of b. Wraps modulo 2^32.
template <bool SignedA, bool SignedB, int Halves, bool Hi>
struct Dot {
  static constexpr unsigned kArity = 3;
  uint64_t operator()(uint64_t a, uint64_t b, uint64_t c) const {
    uint32_t d = uint32_t(c);
    constexpr unsigned kCount = Halves ? 2 : 4;
    for (unsigned i = 0; i < kCount; ++i) {
      const int32_t x = sub_word<SignedA>(uint32_t(a), Halves ? 16 : 8, i);
      const int32_t y = sub_word<SignedB>(uint32_t(b), 8, (Hi ? 2 : 0) + i);
      d += uint32_t(x * y);
    }
    return d;
  }
};

template <class Fn>
void pred_logic(StepContext& ctx, const ptx::Instruction& in) {
  if (in.ops[0].kind == ptx::OperandKind::Sink) return;
  const uint32_t a = pred_mask(ctx, in.ops[1]);
  if constexpr (Fn::kArity == 1) write_pred(ctx, in.ops[0].reg, Fn::fn(a));
  else write_pred(ctx, in.ops[0].reg, Fn::fn(a, pred_mask(ctx, in.ops[2])));
}

template <class Fn>
ptx::ExecHandler bind_logic(const ptx::Instruction& in, std::string& why) {
  if (in.type == ptx::Type::Pred) {
    if (in.nops != Fn::kArity + 1) return reject(in, why, "unexpected operands");
    if (in.ops[0].kind != ptx::OperandKind::Pred && in.ops[0].kind != ptx::OperandKind::Sink)
      return reject(in, why, "unexpected operands");
    for (unsigned i = 1; i <= Fn::kArity; ++i)
      if (!is_pred_src(in.ops[i])) return reject(in, why, "unexpected operands");
    return &pred_logic<Fn>;
  }
  if (!kBitTypes.has(in.type) || !lanewise_shape(in, Fn::kArity)) return reject(in, why);
  return visit_width(value_bytes(in.type), [](auto tag) { return &lanewise<TypedOp<typename decltype(tag)::type, Fn>>; });
}

template <class Fn>
ptx::ExecHandler bind_32_64(const ptx::Instruction& in, std::string& why) {
  if (in.type == ptx::Type::B32) return &lanewise<TypedOp<uint32_t, Fn>>;
  if (in.type == ptx::Type::B64) return &lanewise<TypedOp<uint64_t, Fn>>;
  return reject(in, why);
}

// u32/u64/s32/s64 types.
template <template <class> class Op>
ptx::ExecHandler bind_field(const ptx::Instruction& in, std::string& why) {
  using ptx::Type;
  switch (in.type) {
    case Type::U32: return &lanewise<Op<uint32_t>>;
    case Type::U64: return &lanewise<Op<uint64_t>>;
    case Type::S32: return &lanewise<Op<int32_t>>;
    case Type::S64: return &lanewise<Op<int64_t>>;
    default: return reject(in, why);
  }
}
template <class Fn>
struct Typed {
  template <class T>
  using Op = TypedOp<T, Fn>;
};

ptx::ExecHandler bind_shift(const ptx::Instruction& in, std::string& why) {
  const bool left = in.op == ptx::Opcode::Shl;
  if (left ? !kBitTypes.has(in.type) : !(kBitTypes.has(in.type) || kIntTypes.has(in.type)))
    return reject(in, why);
  return visit_int(in.type, [&](auto tag) -> ptx::ExecHandler {
    using T = typename decltype(tag)::type;
    return left ? &lanewise<Shift<T, true>> : &lanewise<Shift<T, false>>;
  });
}

ptx::ExecHandler bind_funnel(const ptx::Instruction& in, std::string& why) {
  using ptx::ShfMode;
  using ptx::ShiftDir;
  if (in.type != ptx::Type::B32 || in.shf == ShfMode::None || in.sdir == ShiftDir::None)
    return reject(in, why);
  const bool clamp = in.shf == ShfMode::Clamp;
  if (in.sdir == ShiftDir::Left) return clamp ? &lanewise<Funnel<true, true>> : &lanewise<Funnel<true, false>>;
  return clamp ? &lanewise<Funnel<false, true>> : &lanewise<Funnel<false, false>>;
}

ptx::ExecHandler bind_prmt(const ptx::Instruction& in, std::string& why) {
  using ptx::PrmtMode;
  if (in.type != ptx::Type::B32) return reject(in, why);
  switch (in.prmt) {
    case PrmtMode::None: return &lanewise<Prmt<PrmtMode::None>>;
    case PrmtMode::F4e: return &lanewise<Prmt<PrmtMode::F4e>>;
    case PrmtMode::B4e: return &lanewise<Prmt<PrmtMode::B4e>>;
    case PrmtMode::Rc8: return &lanewise<Prmt<PrmtMode::Rc8>>;
    case PrmtMode::Ecl: return &lanewise<Prmt<PrmtMode::Ecl>>;
    case PrmtMode::Ecr: return &lanewise<Prmt<PrmtMode::Ecr>>;
    case PrmtMode::Rc16: return &lanewise<Prmt<PrmtMode::Rc16>>;
  }
  return reject(in, why);
}

// dp4a.atype.btype / dp2a.mode.atype.btype: type = atype, type2 = btype
// (the same as atype when absent).
ptx::ExecHandler bind_dot(const ptx::Instruction& in, std::string& why) {
  using ptx::Type;
  const Type btype = in.type2 == Type::None ? in.type : in.type2;
  auto word = [](Type t) { return t == Type::U32 || t == Type::S32; };
  if (!word(in.type) || !word(btype)) return reject(in, why);
  const bool sa = in.type == Type::S32, sb = btype == Type::S32;
  const int kind = sa * 2 + sb;
  if (in.op == ptx::Opcode::Dp4a) {
    if (in.mul != ptx::MulMode::None) return reject(in, why);
    constexpr ptx::ExecHandler kDp4a[] = {&lanewise<Dot<false, false, 0, false>>, &lanewise<Dot<false, true, 0, false>>,
                                          &lanewise<Dot<true, false, 0, false>>, &lanewise<Dot<true, true, 0, false>>};
    return kDp4a[kind];
  }
  if (in.mul == ptx::MulMode::Lo) {
    constexpr ptx::ExecHandler kLo[] = {&lanewise<Dot<false, false, 1, false>>, &lanewise<Dot<false, true, 1, false>>,
                                        &lanewise<Dot<true, false, 1, false>>, &lanewise<Dot<true, true, 1, false>>};
    return kLo[kind];
  }
  if (in.mul == ptx::MulMode::Hi) {
    constexpr ptx::ExecHandler kHi[] = {&lanewise<Dot<false, false, 1, true>>, &lanewise<Dot<false, true, 1, true>>,
                                        &lanewise<Dot<true, false, 1, true>>, &lanewise<Dot<true, true, 1, true>>};
    return kHi[kind];
  }
  return reject(in, why, "needs .lo or .hi");
}

unsigned arity(ptx::Opcode op) {
  using ptx::Opcode;
  switch (op) {
    case Opcode::Not: case Opcode::Cnot: case Opcode::Brev: case Opcode::Popc: case Opcode::Clz:
    case Opcode::Bfind: return 1;
    case Opcode::Shf: case Opcode::Bfe: case Opcode::Prmt: case Opcode::Lop3: case Opcode::Dp4a:
    case Opcode::Dp2a: case Opcode::Fns: return 3;
    case Opcode::Bfi: return 4;
    default: return 2;
  }
}

}  // namespace

ptx::ExecHandler bind_bits(const ptx::Instruction& in, std::string& why) {
  using ptx::Opcode;
  if (in.rnd != ptx::Rounding::None || in.ftz || in.sat || in.approx || in.full) return reject(in, why);
  if (in.shiftamt && in.op != Opcode::Bfind) return reject(in, why);
  switch (in.op) {
    case Opcode::And: return bind_logic<And>(in, why);
    case Opcode::Or: return bind_logic<Or>(in, why);
    case Opcode::Xor: return bind_logic<Xor>(in, why);
    case Opcode::Not: return bind_logic<Not>(in, why);
    default: break;
  }
  if (in.op == Opcode::Lop3) {
    // lop3 d, a, b, c, immLut: the LUT is read once per instruction.
    if (in.nops != 5 || in.ops[4].kind != ptx::OperandKind::Imm || in.type != ptx::Type::B32)
      return reject(in, why, "needs .b32 and an immediate LUT");
    if (!is_reg_dst(in.ops[0]) || !is_value_src(in.ops[1]) || !is_value_src(in.ops[2]) ||
        !is_value_src(in.ops[3]))
      return reject(in, why, "unexpected operands");
  } else if (!lanewise_shape(in, arity(in.op))) {
    return reject(in, why, "unexpected operands");
  }
  if (in.mul != ptx::MulMode::None && in.op != Opcode::Dp2a) return reject(in, why);
  switch (in.op) {
    case Opcode::Cnot:
      if (!kBitTypes.has(in.type)) return reject(in, why);
      return visit_width(value_bytes(in.type), [](auto tag) { return &lanewise<TypedOp<typename decltype(tag)::type, Cnot>>; });
    case Opcode::Shl:
    case Opcode::Shr: return bind_shift(in, why);
    case Opcode::Shf: return bind_funnel(in, why);
    case Opcode::Brev: return bind_32_64<Brev>(in, why);
    case Opcode::Popc: return bind_32_64<Popc>(in, why);
    case Opcode::Clz: return bind_32_64<Clz>(in, why);
    case Opcode::Bfind:
      return in.shiftamt ? bind_field<Typed<Bfind<true>>::Op>(in, why)
                         : bind_field<Typed<Bfind<false>>::Op>(in, why);
    case Opcode::Bfe: return bind_field<Bfe>(in, why);
    case Opcode::Bfi:
      if (in.type == ptx::Type::B32) return &lanewise<Bfi<uint32_t>>;
      if (in.type == ptx::Type::B64) return &lanewise<Bfi<uint64_t>>;
      return reject(in, why);
    case Opcode::Prmt: return bind_prmt(in, why);
    case Opcode::Lop3: return &lanewise<Lop3>;
    case Opcode::Dp4a:
    case Opcode::Dp2a: return bind_dot(in, why);
    case Opcode::Bmsk:
      if (in.type != ptx::Type::B32) return reject(in, why);
      return in.shf == ptx::ShfMode::Clamp ? &lanewise<Bmsk<ptx::ShfMode::Clamp>> : &lanewise<Bmsk<ptx::ShfMode::Wrap>>;
    case Opcode::Fns:
      if (in.type != ptx::Type::B32) return reject(in, why);
      return &lanewise<Fns>;
    default: return reject(in, why);
  }
}

}  // namespace gpumux::exec::compute
