// Floating-point helpers shared by the float handlers: bit-level traits of
// the PTX float formats, subnormal flushing, saturation, NaN canonicalisation,
// packed pairs (f16x2/bf16x2) and directed rounding.
#pragma once

#include <bit>
#include <cfenv>
#include <cstdint>
#include <type_traits>

#include "gpumux/exec/compute/families.h"
#include "gpumux/exec/compute/half.h"
#include "gpumux/exec/step_context.h"

namespace gpumux::exec::compute {

template <class T>
struct FloatBits;
template <>
struct FloatBits<float> {
  using Raw = uint32_t;
  static constexpr int kExpBits = 8, kManBits = 23;
  static constexpr Raw kCanonicalNaN = 0x7fffffffu;
};
template <>
struct FloatBits<double> {
  using Raw = uint64_t;
  static constexpr int kExpBits = 11, kManBits = 52;
  static constexpr Raw kCanonicalNaN = 0x7fffffffffffffffull;
};
template <int E, int M>
struct FloatBits<SmallFloat<E, M>> {
  using Raw = uint16_t;
  static constexpr int kExpBits = E, kManBits = M;
  static constexpr Raw kCanonicalNaN = SmallFloat<E, M>::kCanonicalNaN;
};

template <class T>
struct FloatLayout {
  using Raw = typename FloatBits<T>::Raw;
  static constexpr int kMan = FloatBits<T>::kManBits;
  static constexpr Raw kSign = Raw(Raw(1) << (FloatBits<T>::kExpBits + kMan));
  static constexpr Raw kExp = Raw(((Raw(1) << FloatBits<T>::kExpBits) - 1) << kMan);
  static constexpr Raw kManMask = Raw((Raw(1) << kMan) - 1);
};

template <class T>
inline typename FloatBits<T>::Raw raw_bits(T x) {
  return std::bit_cast<typename FloatBits<T>::Raw>(x);
}
template <class T>
inline T from_raw(typename FloatBits<T>::Raw r) {
  return std::bit_cast<T>(r);
}

template <class T>
inline bool is_nan(T x) {
  using L = FloatLayout<T>;
  return typename L::Raw(raw_bits(x) & ~L::kSign) > L::kExp;
}
template <class T>
inline bool is_inf(T x) {
  using L = FloatLayout<T>;
  return typename L::Raw(raw_bits(x) & ~L::kSign) == L::kExp;
}
template <class T>
inline bool is_subnormal(T x) {
  using L = FloatLayout<T>;
  return (raw_bits(x) & L::kExp) == 0 && (raw_bits(x) & L::kManMask) != 0;
}
template <class T>
inline bool sign_bit(T x) {
  return (raw_bits(x) & FloatLayout<T>::kSign) != 0;
}
template <class T>
inline T with_sign(T x, bool neg) {
  using L = FloatLayout<T>;
  return from_raw<T>(typename L::Raw((raw_bits(x) & ~L::kSign) | (neg ? L::kSign : 0)));
}

// .ftz: subnormals become zero of the same sign.
template <class T>
inline T flush_subnormal(T x) {
  using L = FloatLayout<T>;
  const auto r = raw_bits(x);
  return (r & L::kExp) == 0 ? from_raw<T>(typename L::Raw(r & L::kSign)) : x;
}

// NaN results of f32 and 16-bit arithmetic are the canonical NaN; f64 keeps
// NaN payloads, as PTX specifies.
template <class T>
inline T canonicalize(T x) {
  if constexpr (std::is_same_v<T, double>) {
    return x;
  } else {
    return is_nan(x) ? from_raw<T>(FloatBits<T>::kCanonicalNaN) : x;
  }
}

template <class T>
inline T float_value(double v) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return T(v);
  } else {
    return from_double<T>(v);
  }
}

// .sat: clamp to [0, 1]; NaN and -0 give +0.
template <class T>
inline T saturate(T x) {
  if (!(x > float_value<T>(0))) return float_value<T>(0);
  if (x > float_value<T>(1)) return float_value<T>(1);
  return x;
}

// Tag type of a packed pair of 16-bit floats (f16x2, bf16x2): element 0 in
// bits 0..15, element 1 in bits 16..31.
template <class E>
struct X2 {
  using Elem = E;
};
template <class V>
inline constexpr bool kIsPair = false;
template <class E>
inline constexpr bool kIsPair<X2<E>> = true;

// Applies f element-wise to raw register values of type V (a scalar float
// type or an X2 pair) and returns the raw result.
template <class V, class F, class... Raw>
inline uint64_t map_elems(const F& f, Raw... raw) {
  if constexpr (kIsPair<V>) {
    using E = typename V::Elem;
    const uint64_t lo = to_bits(f(from_bits<E>(raw)...));
    const uint64_t hi = to_bits(f(from_bits<E>(raw >> 16)...));
    return lo | hi << 16;
  } else {
    return to_bits(f(from_bits<V>(raw)...));
  }
}

// Calls f(Tag<V>{}) with the value type of a float PTX type; nullptr otherwise.
template <class F>
ptx::ExecHandler visit_float(ptx::Type t, const F& f) {
  using ptx::Type;
  switch (t) {
    case Type::F16: return f(Tag<Half>{});
    case Type::F16x2: return f(Tag<X2<Half>>{});
    case Type::BF16: return f(Tag<BFloat16>{});
    case Type::BF16x2: return f(Tag<X2<BFloat16>>{});
    case Type::F32: return f(Tag<float>{});
    case Type::F64: return f(Tag<double>{});
    default: return nullptr;
  }
}

inline bool is_directed(ptx::Rounding r) {
  return r == ptx::Rounding::Rz || r == ptx::Rounding::Rm || r == ptx::Rounding::Rp;
}

// Switches the host FPU to a directed rounding mode for the lifetime of the
// object. The compiler barriers keep the guarded loads, arithmetic and stores
// between the two mode switches.
class RoundingScope {
 public:
  explicit RoundingScope(ptx::Rounding r) : saved_(std::fegetround()) {
    std::fesetround(r == ptx::Rounding::Rz   ? FE_TOWARDZERO
                    : r == ptx::Rounding::Rm ? FE_DOWNWARD
                    : r == ptx::Rounding::Rp ? FE_UPWARD
                                             : FE_TONEAREST);
    asm volatile("" ::: "memory");
  }
  ~RoundingScope() {
    asm volatile("" ::: "memory");
    std::fesetround(saved_);
  }
  RoundingScope(const RoundingScope&) = delete;
  RoundingScope& operator=(const RoundingScope&) = delete;

 private:
  int saved_;
};

// Runs handler H with the host rounding mode of the instruction's .rz/.rm/.rp.
template <ptx::ExecHandler H>
void with_rounding(StepContext& ctx, const ptx::Instruction& in) {
  RoundingScope scope(in.rnd);
  H(ctx, in);
}

}  // namespace gpumux::exec::compute
