// Floating-point arithmetic on .f32/.f64/.f16/.f16x2/.bf16/.bf16x2: add, sub,
// mul, fma, mad, div, rcp, sqrt, rsqrt, sin, cos, lg2, ex2, tanh, abs, neg,
// min, max, copysign, testp.
//
// IEEE operations (add/sub/mul/fma/mad/div/rcp/sqrt with .rn/.rz/.rm/.rp) are
// exact: f32/f64 use the host FPU (switched to the directed mode for the
// instruction), 16-bit formats use half.h. mad.f32 is fused, as on sm_20+.
// .approx operations use the host's float libm (deterministic, within the
// PTX error bounds for the common range). .ftz flushes subnormal inputs and
// results to sign-preserving zero; .sat clamps to [0, 1] with NaN -> +0.
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "gpumux/exec/compute/families.h"
#include "gpumux/exec/compute/float_util.h"
#include "gpumux/exec/compute/lanes.h"

namespace gpumux::exec::compute {
namespace {

template <class V, class... Ts>
inline constexpr bool kOneOf = (std::is_same_v<V, Ts> || ...);

// Value types an operation is defined for.
template <class V>
inline constexpr bool kNative = kOneOf<V, float, double>;
template <class V>
inline constexpr bool kAnyFloat = true;
template <class V>
inline constexpr bool kF32 = std::is_same_v<V, float>;
template <class V>
inline constexpr bool kNotF64 = !std::is_same_v<V, double>;

// f(x) computed in float, for the approximate functions of 16-bit formats.
template <class T, class F>
T via_float(T x, const F& f) {
  if constexpr (std::is_same_v<T, float>) return f(x);
  else return from_double<T>(f(to_float(x)));
}

// Each operation: kArity, kBitwise (keeps NaN payloads: abs/neg/copysign),
// kFor<V> (the value types it exists for) and T fn(T...).
struct Arith {
  static constexpr bool kBitwise = false;
};
struct FAdd : Arith {
  static constexpr unsigned kArity = 2;
  template <class V> static constexpr bool kFor = kAnyFloat<V>;
  template <class T> static T fn(T a, T b) { return a + b; }
};
struct FSub : Arith {
  static constexpr unsigned kArity = 2;
  template <class V> static constexpr bool kFor = kAnyFloat<V>;
  template <class T> static T fn(T a, T b) { return a - b; }
};
struct FMul : Arith {
  static constexpr unsigned kArity = 2;
  template <class V> static constexpr bool kFor = kAnyFloat<V>;
  template <class T> static T fn(T a, T b) { return a * b; }
};
// fused() assumes round-to-nearest; under a directed mode the host fma rounds.
template <bool Directed>
struct FFma : Arith {
  static constexpr unsigned kArity = 3;
  template <class V> static constexpr bool kFor = Directed ? kNative<V> : kAnyFloat<V>;
  template <class T>
  static T fn(T a, T b, T c) {
    if constexpr (Directed) return std::fma(a, b, c);
    else return fused(a, b, c);
  }
};
struct FDiv : Arith {
  static constexpr unsigned kArity = 2;
  template <class V> static constexpr bool kFor = kNative<V>;
  template <class T> static T fn(T a, T b) { return a / b; }
};
// div.approx.f32: a * (1/b) with the reciprocal flushed, so huge |b| gives 0.
struct FDivApprox : Arith {
  static constexpr unsigned kArity = 2;
  template <class V> static constexpr bool kFor = kF32<V>;
  template <class T> static T fn(T a, T b) { return a * flush_subnormal(T(1) / b); }
};
struct FRcp : Arith {
  static constexpr unsigned kArity = 1;
  template <class V> static constexpr bool kFor = kNative<V>;
  template <class T> static T fn(T a) { return T(1) / a; }
};
// rcp.approx.ftz.f64: reciprocal of the upper word of a, upper word kept.
struct FRcpApproxF64 : Arith {
  static constexpr unsigned kArity = 1;
  template <class V> static constexpr bool kFor = std::is_same_v<V, double>;
  template <class T>
  static T fn(T a) {
    constexpr uint64_t kHigh = 0xffffffff00000000ull;
    if (is_nan(a)) return from_raw<T>(0x7fffffff00000000ull);
    return from_raw<T>(raw_bits(T(1) / from_raw<T>(raw_bits(a) & kHigh)) & kHigh);
  }
};
struct FSqrt : Arith {
  static constexpr unsigned kArity = 1;
  template <class V> static constexpr bool kFor = kNative<V>;
  template <class T> static T fn(T a) { return std::sqrt(a); }
};
struct FRsqrt : Arith {
  static constexpr unsigned kArity = 1;
  template <class V> static constexpr bool kFor = kNative<V>;
  template <class T> static T fn(T a) { return T(1) / std::sqrt(a); }
};
struct FSin : Arith {
  static constexpr unsigned kArity = 1;
  template <class V> static constexpr bool kFor = kF32<V>;
  template <class T> static T fn(T a) { return std::sin(a); }
};
struct FCos : Arith {
  static constexpr unsigned kArity = 1;
  template <class V> static constexpr bool kFor = kF32<V>;
  template <class T> static T fn(T a) { return std::cos(a); }
};
struct FLg2 : Arith {
  static constexpr unsigned kArity = 1;
  template <class V> static constexpr bool kFor = kF32<V>;
  template <class T> static T fn(T a) { return std::log2(a); }
};
struct FEx2 : Arith {
  static constexpr unsigned kArity = 1;
  template <class V> static constexpr bool kFor = kNotF64<V>;
  template <class T> static T fn(T a) { return via_float(a, [](float x) { return std::exp2(x); }); }
};
struct FTanh : Arith {
  static constexpr unsigned kArity = 1;
  template <class V> static constexpr bool kFor = kNotF64<V>;
  template <class T> static T fn(T a) { return via_float(a, [](float x) { return std::tanh(x); }); }
};
// min/max: a NaN operand yields the other one; -0 < +0.
struct FMin : Arith {
  static constexpr unsigned kArity = 2;
  template <class V> static constexpr bool kFor = kAnyFloat<V>;
  template <class T>
  static T fn(T a, T b) {
    if (is_nan(a)) return b;
    if (is_nan(b)) return a;
    if (a == b) return sign_bit(a) ? a : b;
    return a < b ? a : b;
  }
};
struct FMax : Arith {
  static constexpr unsigned kArity = 2;
  template <class V> static constexpr bool kFor = kAnyFloat<V>;
  template <class T>
  static T fn(T a, T b) {
    if (is_nan(a)) return b;
    if (is_nan(b)) return a;
    if (a == b) return sign_bit(a) ? b : a;
    return a > b ? a : b;
  }
};
struct Bitwise {
  static constexpr bool kBitwise = true;
};
struct FAbs : Bitwise {
  static constexpr unsigned kArity = 1;
  template <class V> static constexpr bool kFor = kAnyFloat<V>;
  template <class T> static T fn(T a) { return with_sign(a, false); }
};
struct FNeg : Bitwise {
  static constexpr unsigned kArity = 1;
  template <class V> static constexpr bool kFor = kAnyFloat<V>;
  template <class T> static T fn(T a) { return with_sign(a, !sign_bit(a)); }
};
// copysign d, a, b: the sign of a on the magnitude of b.
struct FCopysign : Bitwise {
  static constexpr unsigned kArity = 2;
  template <class V> static constexpr bool kFor = kNative<V>;
  template <class T> static T fn(T a, T b) { return with_sign(b, sign_bit(a)); }
};

// The element pipeline: flush inputs (.ftz), compute, canonicalise NaN,
// flush the result (.ftz), saturate (.sat). Without .ftz/.sat (Modified
// false) the loop is branch-free and vectorises.
template <class V, class Fn, bool Modified>
struct FloatOp {
  static constexpr unsigned kArity = Fn::kArity;
  bool ftz, sat;
  explicit FloatOp(const ptx::Instruction& in) : ftz(in.ftz), sat(in.sat) {}

  template <class... Raw>
  uint64_t operator()(Raw... raw) const {
    return map_elems<V>([this](auto... x) { return finish(Fn::fn(input(x)...)); }, raw...);
  }
  template <class T>
  T input(T x) const {
    return Modified && ftz ? flush_subnormal(x) : x;
  }
  template <class T>
  T finish(T r) const {
    if constexpr (!Fn::kBitwise) r = canonicalize(r);
    if constexpr (Modified) {
      if (ftz) r = flush_subnormal(r);
      if (sat) r = saturate(r);
    }
    return r;
  }
};

#if defined(__x86_64__) && defined(__GNUC__)
// fma.rn.f32 without .ftz/.sat on a host with FMA instructions: the hardware
// fma is correctly rounded, like fused(), so the results are identical. A
// full warp runs 8 lanes per AVX2 instruction: the low halves of 8 register
// slots packed into one vector, NaN results replaced by the canonical NaN.
__attribute__((target("avx2,fma"))) inline __m256 low_halves(const uint64_t* p) {
  const __m256i pick = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  __m256i lo = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), pick);
  __m256i hi = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 4)), pick);
  return _mm256_castsi256_ps(_mm256_permute2x128_si256(lo, hi, 0x20));
}

__attribute__((target("avx2,fma"))) void fma_f32_hw(StepContext& ctx, const ptx::Instruction& in) {
  if (in.ops[0].kind == ptx::OperandKind::Sink) return;
  const SrcLanes a(ctx, in.ops[1]), b(ctx, in.ops[2]), c(ctx, in.ops[3]);
  uint64_t* d = ctx.lanes(in.ops[0].reg);
  if (ctx.mask == kFullMask) {
    const __m256 canonical = _mm256_castsi256_ps(_mm256_set1_epi32(int(FloatBits<float>::kCanonicalNaN)));
    uint64_t out[kWarpSize];
    for (unsigned l = 0; l < kWarpSize; l += 8) {
      __m256 r = _mm256_fmadd_ps(low_halves(a.data() + l), low_halves(b.data() + l), low_halves(c.data() + l));
      r = _mm256_blendv_ps(r, canonical, _mm256_cmp_ps(r, r, _CMP_UNORD_Q));
      __m256i bits = _mm256_castps_si256(r);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + l), _mm256_cvtepu32_epi64(_mm256_castsi256_si128(bits)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + l + 4),
                          _mm256_cvtepu32_epi64(_mm256_extracti128_si256(bits, 1)));
    }
    std::memcpy(d, out, sizeof out);  // d may be a source
  } else {
    auto one = [](uint64_t x, uint64_t y, uint64_t z) __attribute__((target("avx2,fma"))) {
      float r = __builtin_fmaf(from_bits<float>(x), from_bits<float>(y), from_bits<float>(z));
      return to_bits(canonicalize(r));
    };
    for (uint32_t m = ctx.mask; m; m &= m - 1) {
      unsigned l = unsigned(std::countr_zero(m));
      d[l] = one(a[l], b[l], c[l]);
    }
  }
}

bool host_has_fma() {
  static const bool has = __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
  return has;
}
#endif

template <class V, class Fn, bool Modified>
ptx::ExecHandler float_handler(bool directed) {
#if defined(__x86_64__) && defined(__GNUC__)
  if constexpr (std::is_same_v<V, float> && std::is_same_v<Fn, FFma<false>> && !Modified)
    if (!directed && host_has_fma()) return &fma_f32_hw;
#endif
  if constexpr (kNative<V>)
    if (directed) return &with_rounding<&lanewise<FloatOp<V, Fn, Modified>>>;
  return &lanewise<FloatOp<V, Fn, Modified>>;
}

// The handler of Fn for the instruction's type, under the instruction's
// directed rounding mode when `rounded` (IEEE operations).
template <class Fn>
ptx::ExecHandler pick(const ptx::Instruction& in, std::string& why, bool rounded) {
  const bool directed = rounded && is_directed(in.rnd);
  return visit_float(in.type, [&](auto tag) -> ptx::ExecHandler {
    using V = typename decltype(tag)::type;
    if constexpr (Fn::template kFor<V>) {
      if (directed && !kNative<V>) return reject(in, why, "16-bit formats support only .rn");
      return in.ftz || in.sat ? float_handler<V, Fn, true>(directed) : float_handler<V, Fn, false>(directed);
    } else {
      return reject(in, why);
    }
  });
}

template <class T, ptx::TestpMode M>
bool test_property(T x) {
  using ptx::TestpMode;
  if constexpr (M == TestpMode::Finite) return !is_nan(x) && !is_inf(x);
  else if constexpr (M == TestpMode::Infinite) return is_inf(x);
  else if constexpr (M == TestpMode::Number) return !is_nan(x);
  else if constexpr (M == TestpMode::NotANumber) return is_nan(x);
  else if constexpr (M == TestpMode::Normal) return !is_nan(x) && !is_inf(x) && !is_subnormal(x);
  else return is_subnormal(x);  // zero counts as normal, as PTX specifies
}

template <class T, ptx::TestpMode M>
void testp(StepContext& ctx, const ptx::Instruction& in) {
  if (in.ops[0].kind == ptx::OperandKind::Sink) return;
  const SrcLanes a(ctx, in.ops[1]);
  write_pred(ctx, in.ops[0].reg,
             lane_bits(ctx.mask, [](uint64_t r) { return test_property<T, M>(from_bits<T>(r)); }, a));
}

template <class T>
ptx::ExecHandler bind_testp(const ptx::Instruction& in, std::string& why) {
  using ptx::TestpMode;
  switch (in.testp) {
    case TestpMode::Finite: return &testp<T, TestpMode::Finite>;
    case TestpMode::Infinite: return &testp<T, TestpMode::Infinite>;
    case TestpMode::Number: return &testp<T, TestpMode::Number>;
    case TestpMode::NotANumber: return &testp<T, TestpMode::NotANumber>;
    case TestpMode::Normal: return &testp<T, TestpMode::Normal>;
    case TestpMode::Subnormal: return &testp<T, TestpMode::Subnormal>;
    default: return reject(in, why, "needs a property (.finite, .normal, ...)");
  }
}

unsigned arity(ptx::Opcode op) {
  using ptx::Opcode;
  switch (op) {
    case Opcode::Fma: case Opcode::Mad: return 3;
    case Opcode::Add: case Opcode::Sub: case Opcode::Mul: case Opcode::Div: case Opcode::Min:
    case Opcode::Max: case Opcode::Copysign: return 2;
    default: return 1;
  }
}

bool takes_rounding(ptx::Opcode op) {
  using ptx::Opcode;
  return op == Opcode::Add || op == Opcode::Sub || op == Opcode::Mul || op == Opcode::Fma ||
         op == Opcode::Mad || op == Opcode::Div || op == Opcode::Rcp || op == Opcode::Sqrt;
}

}  // namespace

ptx::ExecHandler bind_float_arith(const ptx::Instruction& in, std::string& why) {
  using ptx::Opcode;
  using ptx::Type;
  if (!is_float(in.type)) return reject(in, why);
  if (in.op == Opcode::Testp) {
    if (in.nops != 2 || !(in.ops[0].kind == ptx::OperandKind::Pred ||
                          in.ops[0].kind == ptx::OperandKind::Sink) || !is_value_src(in.ops[1]))
      return reject(in, why, "unexpected operands");
    if (in.type == Type::F32) return bind_testp<float>(in, why);
    if (in.type == Type::F64) return bind_testp<double>(in, why);
    return reject(in, why);
  }
  if (!lanewise_shape(in, arity(in.op))) return reject(in, why, "unexpected operands");
  const bool ieee = takes_rounding(in.op) && !in.approx;
  if (in.rnd != ptx::Rounding::None && (!ieee || in.full))
    return reject(in, why, "rounding modifier not allowed here");
  if (in.rnd != ptx::Rounding::None && !is_directed(in.rnd) && in.rnd != ptx::Rounding::Rn)
    return reject(in, why, "needs .rn, .rz, .rm or .rp");
  const bool sat_op = in.op == Opcode::Add || in.op == Opcode::Sub || in.op == Opcode::Mul ||
                      in.op == Opcode::Fma || in.op == Opcode::Mad;
  if (in.sat && !(sat_op && (in.type == Type::F32 || in.type == Type::F16 || in.type == Type::F16x2)))
    return reject(in, why, ".sat not allowed here");
  const bool approx_f64 = in.approx && (in.op == Opcode::Rcp || in.op == Opcode::Rsqrt);
  if (in.ftz && in.type == Type::F64 && !approx_f64) return reject(in, why, ".ftz not allowed on .f64");
  if (in.full && !(in.op == Opcode::Div && in.type == Type::F32)) return reject(in, why);
  if (in.mul != ptx::MulMode::None) return reject(in, why);

  switch (in.op) {
    case Opcode::Add: return pick<FAdd>(in, why, true);
    case Opcode::Sub: return pick<FSub>(in, why, true);
    case Opcode::Mul: return pick<FMul>(in, why, true);
    case Opcode::Fma:
    case Opcode::Mad:
      if (in.op == Opcode::Mad && in.type != Type::F32 && in.type != Type::F64) return reject(in, why);
      return is_directed(in.rnd) ? pick<FFma<true>>(in, why, true) : pick<FFma<false>>(in, why, true);
    case Opcode::Div:
      if (in.approx) return pick<FDivApprox>(in, why, false);
      return pick<FDiv>(in, why, !in.full);  // div.full.f32: IEEE .rn (within its 2 ulp bound)
    case Opcode::Rcp:
      if (in.approx && in.type == Type::F64) {
        if (!in.ftz) return reject(in, why, "rcp.approx.f64 needs .ftz");
        return pick<FRcpApproxF64>(in, why, false);
      }
      return pick<FRcp>(in, why, !in.approx);
    case Opcode::Sqrt: return pick<FSqrt>(in, why, !in.approx);
    case Opcode::Rsqrt: return pick<FRsqrt>(in, why, false);
    case Opcode::Sin: return pick<FSin>(in, why, false);
    case Opcode::Cos: return pick<FCos>(in, why, false);
    case Opcode::Lg2: return pick<FLg2>(in, why, false);
    case Opcode::Ex2: return pick<FEx2>(in, why, false);
    case Opcode::Tanh: return pick<FTanh>(in, why, false);
    case Opcode::Abs: return pick<FAbs>(in, why, false);
    case Opcode::Neg: return pick<FNeg>(in, why, false);
    case Opcode::Min: return pick<FMin>(in, why, false);
    case Opcode::Max: return pick<FMax>(in, why, false);
    case Opcode::Copysign: return pick<FCopysign>(in, why, false);
    default: return reject(in, why);
  }
}

}  // namespace gpumux::exec::compute
