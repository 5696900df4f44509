// cvt between all integer (.u8-.u64, .s8-.s64) and float (.f16, .bf16, .f32,
// .f64) types, and cvt.frnd.{f16x2,bf16x2}.f32 d, a, b (a in the upper half).
//
// Semantics follow the PTX conversion tables: integers are chopped or sign/
// zero-extended, optionally clamped (.sat); float-to-integer rounds with
// .rni/.rzi/.rmi/.rpi and always saturates, NaN giving 0, or 1 << (width-1)
// for .f64 sources and 64-bit destinations; integer-to-float and float
// narrowing round once with .rn/.rz/.rm/.rp (.rn when absent); NaN converts
// to the destination's canonical NaN. .ftz applies to .f32 inputs and results.
// Signed .s8/.s16 results are sign-extended to the whole register slot,
// because PTX extends a narrow cvt result to the width of a wider register.
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

#include "gpumux/exec/compute/families.h"
#include "gpumux/exec/compute/float_util.h"
#include "gpumux/exec/compute/lanes.h"

namespace gpumux::exec::compute {
namespace {

template <class T>
inline constexpr bool kNativeFloat = std::is_same_v<T, float> || std::is_same_v<T, double>;

template <class D>
uint64_t store_int(D v) {
  if constexpr (std::is_signed_v<D> && sizeof(D) < 4) return uint64_t(int64_t(v));
  else return to_bits(v);
}

template <class S>
double widen(S x) {
  if constexpr (kNativeFloat<S>) return double(x);
  else return to_double(x);
}

// Rounds a double to the float type D; directed modes of native types come
// from the host FPU mode (with_rounding), 16-bit formats take `mode`.
template <class D>
D narrow(double v, ptx::Rounding mode) {
  if constexpr (kNativeFloat<D>) return D(v);
  else return from_double<D>(v, mode);
}

using RoundFn = double (*)(double);
RoundFn integer_rounding(ptx::Rounding r) {
  switch (r) {
    case ptx::Rounding::Rni: return [](double x) { return std::nearbyint(x); };
    case ptx::Rounding::Rzi: return [](double x) { return std::trunc(x); };
    case ptx::Rounding::Rmi: return [](double x) { return std::floor(x); };
    case ptx::Rounding::Rpi: return [](double x) { return std::ceil(x); };
    default: return nullptr;
  }
}

ptx::Rounding float_rounding(ptx::Rounding r) { return r == ptx::Rounding::None ? ptx::Rounding::Rn : r; }

template <class D, class S>
struct IntToInt {
  static constexpr unsigned kArity = 1;
  bool sat;
  explicit IntToInt(const ptx::Instruction& in) : sat(in.sat) {}
  uint64_t operator()(uint64_t raw) const {
    const S v = from_bits<S>(raw);
    using L = std::numeric_limits<D>;
    if (sat && std::cmp_less(v, L::min())) return store_int(L::min());
    if (sat && std::cmp_greater(v, L::max())) return store_int(L::max());
    return store_int(D(v));
  }
};

template <class D, class S>
struct IntToFloat {
  static constexpr unsigned kArity = 1;
  ptx::Rounding mode;
  bool sat;
  explicit IntToFloat(const ptx::Instruction& in) : mode(float_rounding(in.rnd)), sat(in.sat) {}
  uint64_t operator()(uint64_t raw) const {
    const S v = from_bits<S>(raw);
    D r;
    if constexpr (kNativeFloat<D>) {
      r = D(v);
    } else {
      const bool neg = v < 0;
      r = round_pack<D>(neg, neg ? uint64_t(0) - uint64_t(v) : uint64_t(v), 0, mode);
    }
    return to_bits(sat ? saturate(r) : r);
  }
};

template <class D, class S>
struct FloatToInt {
  static constexpr unsigned kArity = 1;
  static constexpr D kNaNResult = (std::is_same_v<S, double> || sizeof(D) == 8)
                                      ? D(uint64_t(1) << (8 * sizeof(D) - 1))
                                      : D(0);
  RoundFn round;
  bool ftz;
  explicit FloatToInt(const ptx::Instruction& in) : round(integer_rounding(in.rnd)), ftz(in.ftz) {}
  uint64_t operator()(uint64_t raw) const {
    const S x = from_bits<S>(raw);
    if (is_nan(x)) return store_int(kNaNResult);
    const double v = round(widen(ftz ? flush_subnormal(x) : x));
    using L = std::numeric_limits<D>;
    constexpr double kUpper = double(L::max()) + 1.0;  // 2^bits or 2^(bits-1), exact
    if (v < double(L::min())) return store_int(L::min());
    if (v >= kUpper) return store_int(L::max());
    return store_int(D(v));
  }
};

template <class D, class S>
struct FloatToFloat {
  static constexpr unsigned kArity = 1;
  RoundFn round;  // integer rounding (.rni etc.), or null
  ptx::Rounding mode;
  bool ftz, sat;
  explicit FloatToFloat(const ptx::Instruction& in)
      : round(integer_rounding(in.rnd)), mode(float_rounding(in.rnd)), ftz(in.ftz), sat(in.sat) {}
  uint64_t operator()(uint64_t raw) const {
    S x = from_bits<S>(raw);
    if (is_nan(x)) return to_bits(sat ? float_value<D>(0) : from_raw<D>(FloatBits<D>::kCanonicalNaN));
    if constexpr (std::is_same_v<S, float>)
      if (ftz) x = flush_subnormal(x);
    const double v = round ? round(widen(x)) : widen(x);
    D r = narrow<D>(v, mode);
    if constexpr (std::is_same_v<D, float>)
      if (ftz) r = flush_subnormal(r);
    return to_bits(sat ? saturate(r) : r);
  }
};

// cvt.frnd.{f16x2,bf16x2}.f32 d, a, b: d = {cvt(b) in bits 0..15, cvt(a) in 16..31}.
template <class E>
struct PackPair {
  static constexpr unsigned kArity = 2;
  ptx::Rounding mode;
  explicit PackPair(const ptx::Instruction& in) : mode(float_rounding(in.rnd)) {}
  uint64_t operator()(uint64_t a, uint64_t b) const {
    return to_bits(from_double<E>(from_bits<float>(b), mode)) |
           to_bits(from_double<E>(from_bits<float>(a), mode)) << 16;
  }
};

// Calls f(Tag<T>{}) for the C++ type of any cvt scalar type.
template <class F>
ptx::ExecHandler visit_scalar(ptx::Type t, const F& f) {
  using ptx::Type;
  switch (t) {
    case Type::F16: return f(Tag<Half>{});
    case Type::BF16: return f(Tag<BFloat16>{});
    case Type::F32: return f(Tag<float>{});
    case Type::F64: return f(Tag<double>{});
    case Type::U8: case Type::U16: case Type::U32: case Type::U64:
    case Type::S8: case Type::S16: case Type::S32: case Type::S64: return visit_int(t, f);
    default: return nullptr;
  }
}

template <class D, class S>
ptx::ExecHandler bind_pair(const ptx::Instruction& in, std::string& why) {
  constexpr bool kIntD = std::is_integral_v<D>, kIntS = std::is_integral_v<S>;
  const bool irnd = integer_rounding(in.rnd) != nullptr;
  const bool directed = is_directed(in.rnd);
  if constexpr (kIntD && kIntS) {
    if (in.rnd != ptx::Rounding::None) return reject(in, why, "no rounding between integers");
    return &lanewise<IntToInt<D, S>>;
  } else if constexpr (!kIntD && kIntS) {
    if (irnd) return reject(in, why, "integer rounding on an integer source");
    if constexpr (kNativeFloat<D>)
      if (directed) return &with_rounding<&lanewise<IntToFloat<D, S>>>;
    return &lanewise<IntToFloat<D, S>>;
  } else if constexpr (kIntD) {
    if (!irnd) return reject(in, why, "needs .rni, .rzi, .rmi or .rpi");
    return &lanewise<FloatToInt<D, S>>;
  } else {
    if (irnd && !std::is_same_v<D, S>) return reject(in, why, "integer rounding needs equal types");
    if constexpr (std::is_same_v<D, float> && std::is_same_v<S, double>)
      if (directed) return &with_rounding<&lanewise<FloatToFloat<D, S>>>;
    return &lanewise<FloatToFloat<D, S>>;
  }
}

}  // namespace

ptx::ExecHandler bind_convert(const ptx::Instruction& in, std::string& why) {
  using ptx::Type;
  if (in.rnd == ptx::Rounding::Rna) return reject(in, why);
  if (in.approx || in.full || in.mul != ptx::MulMode::None) return reject(in, why);
  if (in.type == Type::F16x2 || in.type == Type::BF16x2) {
    if (in.type2 != Type::F32 || !lanewise_shape(in, 2) || integer_rounding(in.rnd) || in.ftz || in.sat)
      return reject(in, why);
    return in.type == Type::F16x2 ? &lanewise<PackPair<Half>> : &lanewise<PackPair<BFloat16>>;
  }
  constexpr TypeSet kScalars{Type::U8,  Type::U16, Type::U32, Type::U64, Type::S8, Type::S16,
                             Type::S32, Type::S64, Type::F16, Type::BF16, Type::F32, Type::F64};
  if (!kScalars.has(in.type) || !kScalars.has(in.type2)) return reject(in, why);
  if (!lanewise_shape(in, 1)) return reject(in, why, "unexpected operands");
  if (in.ftz && in.type != Type::F32 && in.type2 != Type::F32)
    return reject(in, why, ".ftz needs an .f32 source or destination");
  return visit_scalar(in.type, [&](auto dtag) {
    return visit_scalar(in.type2, [&](auto stag) {
      return bind_pair<typename decltype(dtag)::type, typename decltype(stag)::type>(in, why);
    });
  });
}

}  // namespace gpumux::exec::compute
