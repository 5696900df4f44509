// Integer arithmetic: add, sub, mul, mad, mul24, mad24, sad, div, rem, abs,
// neg, min, max on .u16/.u32/.u64/.s16/.s32/.s64.
//
// Results wrap around (computed in unsigned arithmetic of at least 32 bits, so
// no C++ overflow). Division by zero, which PTX leaves unspecified, is defined
// here so the host never traps: x / 0 = all ones (UINT_MAX for unsigned, -1 for
// signed), x % 0 = x, INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0.
#include <algorithm>
#include <limits>
#include <type_traits>

#include "gpumux/exec/compute/families.h"
#include "gpumux/exec/compute/lanes.h"

namespace gpumux::exec::compute {
namespace {

// Unsigned arithmetic type of at least 32 bits: wraps, never promotes to int.
template <class T>
using Calc = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;

// The type of twice the width, same signedness (full products).
template <class T>
struct WiderT;
template <> struct WiderT<int16_t> { using type = int32_t; };
template <> struct WiderT<uint16_t> { using type = uint32_t; };
template <> struct WiderT<int32_t> { using type = int64_t; };
template <> struct WiderT<uint32_t> { using type = uint64_t; };
template <> struct WiderT<int64_t> { using type = __int128; };
template <> struct WiderT<uint64_t> { using type = unsigned __int128; };
template <class T>
using Wider = typename WiderT<T>::type;

template <class T>
T wrap_add(T a, T b) { return T(Calc<T>(a) + Calc<T>(b)); }
template <class T>
T wrap_sub(T a, T b) { return T(Calc<T>(a) - Calc<T>(b)); }

int32_t clamp_s32(int64_t v) {
  return int32_t(std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(),
                                     std::numeric_limits<int32_t>::max()));
}

template <bool Sat>
struct Add {
  static constexpr unsigned kArity = 2;
  template <class T>
  static T fn(T a, T b) {
    if constexpr (Sat) return clamp_s32(int64_t(a) + b);
    else return wrap_add(a, b);
  }
};
template <bool Sat>
struct Sub {
  static constexpr unsigned kArity = 2;
  template <class T>
  static T fn(T a, T b) {
    if constexpr (Sat) return clamp_s32(int64_t(a) - b);
    else return wrap_sub(a, b);
  }
};
struct Min {
  static constexpr unsigned kArity = 2;
  template <class T> static T fn(T a, T b) { return std::min(a, b); }
};
struct Max {
  static constexpr unsigned kArity = 2;
  template <class T> static T fn(T a, T b) { return std::max(a, b); }
};
struct Neg {
  static constexpr unsigned kArity = 1;
  template <class T> static T fn(T a) { return wrap_sub(T(0), a); }  // INT_MIN stays INT_MIN
};
struct Abs {
  static constexpr unsigned kArity = 1;
  template <class T> static T fn(T a) { return a < 0 ? Neg::fn(a) : a; }
};
struct Div {
  static constexpr unsigned kArity = 2;
  template <class T>
  static T fn(T a, T b) {
    if (b == 0) return T(~Calc<T>(0));  // all ones: UINT_MAX, or -1
    if constexpr (std::is_signed_v<T>)
      if (b == -1) return Neg::fn(a);
    return T(a / b);
  }
};
struct Rem {
  static constexpr unsigned kArity = 2;
  template <class T>
  static T fn(T a, T b) {
    if (b == 0) return a;
    if constexpr (std::is_signed_v<T>)
      if (b == -1) return 0;
    return T(a % b);
  }
};
// sad: c + |a - b|
struct Sad {
  static constexpr unsigned kArity = 3;
  template <class T>
  static T fn(T a, T b, T c) {
    return wrap_add(c, a < b ? wrap_sub(b, a) : wrap_sub(a, b));
  }
};

// mul/mad .lo/.hi/.wide. For .wide the result and c are twice as wide.
template <class T, ptx::MulMode Mode, bool Acc, bool Sat>
struct MulOp {
  static constexpr unsigned kArity = Acc ? 3 : 2;
  using R = std::conditional_t<Mode == ptx::MulMode::Wide, Wider<T>, T>;

  template <class... C>
  uint64_t operator()(uint64_t a, uint64_t b, C... c) const {
    const Wider<T> full = Wider<T>(from_bits<T>(a)) * Wider<T>(from_bits<T>(b));
    R r;
    if constexpr (Mode == ptx::MulMode::Wide) r = full;
    else if constexpr (Mode == ptx::MulMode::Hi) r = T(full >> (8 * sizeof(T)));
    else r = T(full);
    if constexpr (Sat) return to_bits(clamp_s32(int64_t(r) + from_bits<int32_t>(c...)));
    else if constexpr (Acc) return to_bits(wrap_add(r, from_bits<R>(c...)));
    else return to_bits(r);
  }
};

// mul24/mad24: 24 x 24-bit product (48 bits); .lo keeps bits 31..0, .hi 47..16.
template <class T, bool Hi, bool Acc, bool Sat>
struct Mul24Op {
  static constexpr unsigned kArity = Acc ? 3 : 2;
  static auto operand(uint64_t raw) {
    if constexpr (std::is_signed_v<T>) return int64_t(int32_t(uint32_t(raw) << 8) >> 8);
    else return uint64_t(raw & 0xffffff);
  }
  template <class... C>
  uint64_t operator()(uint64_t a, uint64_t b, C... c) const {
    const uint64_t t = uint64_t(operand(a) * operand(b));
    const T r = T(Hi ? t >> 16 : t);
    if constexpr (Sat) return to_bits(clamp_s32(int64_t(r) + from_bits<int32_t>(c...)));
    else if constexpr (Acc) return to_bits(wrap_add(r, from_bits<T>(c...)));
    else return to_bits(r);
  }
};

template <class T, ptx::MulMode Mode, bool Acc>
ptx::ExecHandler mul_handler(bool sat) {
  if constexpr (Mode == ptx::MulMode::Hi && Acc && std::is_same_v<T, int32_t>)
    if (sat) return &lanewise<MulOp<T, Mode, Acc, true>>;
  return &lanewise<MulOp<T, Mode, Acc, false>>;
}

template <class T, bool Acc>
ptx::ExecHandler bind_mul(const ptx::Instruction& in, std::string& why) {
  using ptx::MulMode;
  if (in.sat && !(Acc && in.mul == MulMode::Hi && std::is_same_v<T, int32_t>))
    return reject(in, why, ".sat applies only to mad.hi.s32");
  switch (in.mul) {
    case MulMode::Lo: return mul_handler<T, MulMode::Lo, Acc>(in.sat);
    case MulMode::Hi: return mul_handler<T, MulMode::Hi, Acc>(in.sat);
    case MulMode::Wide:
      if constexpr (sizeof(T) < 8) return mul_handler<T, MulMode::Wide, Acc>(in.sat);
      return reject(in, why, ".wide applies to 16- and 32-bit types");
    default: return reject(in, why, "needs .lo, .hi or .wide");
  }
}

template <class T, bool Acc>
ptx::ExecHandler bind_mul24(const ptx::Instruction& in, std::string& why) {
  const bool hi = in.mul == ptx::MulMode::Hi;
  if (!hi && in.mul != ptx::MulMode::Lo) return reject(in, why, "needs .lo or .hi");
  if (in.sat) {
    if constexpr (Acc && std::is_same_v<T, int32_t>)
      if (hi) return &lanewise<Mul24Op<T, true, true, true>>;
    return reject(in, why, ".sat applies only to mad24.hi.s32");
  }
  return hi ? &lanewise<Mul24Op<T, true, Acc, false>> : &lanewise<Mul24Op<T, false, Acc, false>>;
}

template <class T>
ptx::ExecHandler bind_typed(const ptx::Instruction& in, std::string& why) {
  using ptx::Opcode;
  if (in.sat && in.op != Opcode::Mad && in.op != Opcode::Mad24) {
    if constexpr (std::is_same_v<T, int32_t>) {
      if (in.op == Opcode::Add) return &lanewise<TypedOp<T, Add<true>>>;
      if (in.op == Opcode::Sub) return &lanewise<TypedOp<T, Sub<true>>>;
    }
    return reject(in, why, ".sat applies only to add/sub.s32");
  }
  switch (in.op) {
    case Opcode::Add: return &lanewise<TypedOp<T, Add<false>>>;
    case Opcode::Sub: return &lanewise<TypedOp<T, Sub<false>>>;
    case Opcode::Min: return &lanewise<TypedOp<T, Min>>;
    case Opcode::Max: return &lanewise<TypedOp<T, Max>>;
    case Opcode::Div: return &lanewise<TypedOp<T, Div>>;
    case Opcode::Rem: return &lanewise<TypedOp<T, Rem>>;
    case Opcode::Sad: return &lanewise<TypedOp<T, Sad>>;
    case Opcode::Mul: return bind_mul<T, false>(in, why);
    case Opcode::Mad: return bind_mul<T, true>(in, why);
    case Opcode::Abs:
    case Opcode::Neg:
      if constexpr (std::is_signed_v<T>)
        return in.op == Opcode::Abs ? &lanewise<TypedOp<T, Abs>> : &lanewise<TypedOp<T, Neg>>;
      return reject(in, why, "needs a signed type");
    case Opcode::Mul24:
    case Opcode::Mad24:
      if constexpr (sizeof(T) == 4)
        return in.op == Opcode::Mul24 ? bind_mul24<T, false>(in, why) : bind_mul24<T, true>(in, why);
      return reject(in, why, "needs .u32 or .s32");
    default: return reject(in, why);
  }
}

unsigned arity(ptx::Opcode op) {
  using ptx::Opcode;
  switch (op) {
    case Opcode::Abs: case Opcode::Neg: return 1;
    case Opcode::Mad: case Opcode::Mad24: case Opcode::Sad: return 3;
    default: return 2;
  }
}

}  // namespace

ptx::ExecHandler bind_int_arith(const ptx::Instruction& in, std::string& why) {
  if (!kIntTypes.has(in.type)) return reject(in, why);
  if (!lanewise_shape(in, arity(in.op))) return reject(in, why, "unexpected operands");
  if (in.rnd != ptx::Rounding::None || in.ftz || in.approx || in.full)
    return reject(in, why, "float modifiers on an integer type");
  if (in.op != ptx::Opcode::Mul && in.op != ptx::Opcode::Mad && in.op != ptx::Opcode::Mul24 &&
      in.op != ptx::Opcode::Mad24 && in.mul != ptx::MulMode::None)
    return reject(in, why);
  return visit_int(in.type, [&](auto tag) -> ptx::ExecHandler {
    using T = typename decltype(tag)::type;
    if constexpr (sizeof(T) == 1) return nullptr;  // excluded by kIntTypes
    else return bind_typed<T>(in, why);
  });
}

}  // namespace gpumux::exec::compute
