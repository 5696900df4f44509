// 16-bit floating-point formats (IEEE binary16 and bfloat16) in software.
//
// Values are stored as raw bits. Conversions into float/double are exact.
// Rounding into a 16-bit format works on an exact (sign, integer significand,
// binary exponent) triple, so doubles and 64-bit integers round only once.
// Arithmetic is done in double and made exact with a round-to-odd step before
// the final rounding (round-to-odd at 53 bits, then rounding to at most 11 bits,
// is correctly rounded), so add/sub/mul/fma give the IEEE result.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "gpumux/ptx/ir.h"

namespace gpumux::exec::compute {

template <int kExpBits, int kManBits>
struct SmallFloat {
  uint16_t bits;  // trivial type: register values are memcpy-ed in and out

  static constexpr int kBias = (1 << (kExpBits - 1)) - 1;
  static constexpr int kMinExp = 1 - kBias;  // exponent of the smallest normal
  static constexpr uint16_t kSignMask = 0x8000;
  static constexpr uint16_t kExpMask = uint16_t(((1u << kExpBits) - 1) << kManBits);
  static constexpr uint16_t kManMask = uint16_t((1u << kManBits) - 1);
  static constexpr uint16_t kCanonicalNaN = 0x7fff;
};

using Half = SmallFloat<5, 10>;
using BFloat16 = SmallFloat<8, 7>;

template <int E, int M>
inline float to_float(SmallFloat<E, M> x) {
  using SF = SmallFloat<E, M>;
  const uint32_t sign = uint32_t(x.bits & SF::kSignMask) << 16;
  const uint32_t exp = (x.bits & SF::kExpMask) >> M;
  const uint32_t man = x.bits & SF::kManMask;
  if (exp == (SF::kExpMask >> M)) return std::bit_cast<float>(sign | 0x7f800000u | (man << (23 - M)));
  if (exp == 0) {
    // man * 2^(kMinExp - M) is exact in double and representable in float.
    constexpr double kScale = std::bit_cast<double>(uint64_t(1023 + SF::kMinExp - M) << 52);
    const float v = float(double(man) * kScale);
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exp - SF::kBias + 127) << 23) | (man << (23 - M)));
}

template <int E, int M>
inline double to_double(SmallFloat<E, M> x) {
  return double(to_float(x));
}

// Rounds (-1)^neg * mag * 2^exp2 into SF with the given IEEE rounding mode
// (Rn, Rz, Rm, Rp; anything else rounds to nearest even).
template <class SF>
SF round_pack(bool neg, uint64_t mag, int exp2, ptx::Rounding mode) {
  constexpr int M = std::countr_one(unsigned(SF::kManMask));
  const uint16_t sign = neg ? SF::kSignMask : 0;
  if (mag == 0) return SF{sign};
  const int top = 63 - std::countl_zero(mag) + exp2;  // floor(log2 |value|)
  const int q = std::max(top, SF::kMinExp) - M;       // exponent of the last kept bit
  uint64_t n;
  bool above_half = false, at_half = false, inexact = false;
  if (q <= exp2) {
    n = mag << (exp2 - q);
  } else {
    const int r = q - exp2;  // bits dropped
    if (r > 64) {
      n = 0;
      inexact = true;  // mag < 2^64 <= half an ulp
    } else {
      const uint64_t lost = r == 64 ? mag : mag & ((uint64_t(1) << r) - 1);
      const uint64_t half = uint64_t(1) << (r - 1);
      n = r == 64 ? 0 : mag >> r;
      inexact = lost != 0;
      above_half = lost > half;
      at_half = lost == half;
    }
  }
  bool up;
  switch (mode) {
    case ptx::Rounding::Rz: up = false; break;
    case ptx::Rounding::Rm: up = neg && inexact; break;
    case ptx::Rounding::Rp: up = !neg && inexact; break;
    default: up = above_half || (at_half && (n & 1)); break;
  }
  n += up;
  // Adding n (with its implicit bit) to the biased exponent field minus one
  // encodes normals, subnormals and the carry into the next binade alike.
  const uint32_t bits = (uint32_t(q + M + SF::kBias - 1) << M) + uint32_t(n);
  if (bits >= SF::kExpMask) {  // overflow
    const bool to_max = mode == ptx::Rounding::Rz || (mode == ptx::Rounding::Rm && !neg) ||
                        (mode == ptx::Rounding::Rp && neg);
    return SF{uint16_t(sign | (to_max ? SF::kExpMask - 1 : SF::kExpMask))};
  }
  return SF{uint16_t(sign | bits)};
}

// Rounds a double into SF. NaN becomes the canonical NaN.
template <class SF>
SF from_double(double x, ptx::Rounding mode = ptx::Rounding::Rn) {
  const uint64_t b = std::bit_cast<uint64_t>(x);
  const bool neg = b >> 63;
  const int exp = int((b >> 52) & 0x7ff);
  const uint64_t man = b & ((uint64_t(1) << 52) - 1);
  if (exp == 0x7ff) return SF{man ? SF::kCanonicalNaN : uint16_t((neg ? SF::kSignMask : 0) | SF::kExpMask)};
  if (exp == 0) return round_pack<SF>(neg, man, -1074, mode);
  return round_pack<SF>(neg, man | (uint64_t(1) << 52), exp - 1075, mode);
}

// Round-to-odd of an exact value s + err (s the round-to-nearest double, err
// the exact remainder): keeps the information needed to round correctly again
// into any format with at least two fewer significand bits.
inline double to_odd(double s, double err) {
  uint64_t b = std::bit_cast<uint64_t>(s);
  if (err == 0 || (b & 1) || !std::isfinite(s)) return s;
  b += ((err > 0) == (s > 0)) ? 1 : uint64_t(-1);  // away from or towards zero
  return std::bit_cast<double>(b);
}

// a + b rounded to odd (exact error by the classic two-sum).
inline double sum_to_odd(double a, double b) {
  const double s = a + b;
  const double bv = s - a;
  const double err = (a - (s - bv)) + (b - bv);
  return to_odd(s, err);
}

template <int E, int M>
inline SmallFloat<E, M> operator-(SmallFloat<E, M> a) {
  return SmallFloat<E, M>{uint16_t(a.bits ^ SmallFloat<E, M>::kSignMask)};
}
template <int E, int M>
inline SmallFloat<E, M> operator+(SmallFloat<E, M> a, SmallFloat<E, M> b) {
  return from_double<SmallFloat<E, M>>(sum_to_odd(to_double(a), to_double(b)));
}
template <int E, int M>
inline SmallFloat<E, M> operator-(SmallFloat<E, M> a, SmallFloat<E, M> b) {
  return a + -b;
}
template <int E, int M>
inline SmallFloat<E, M> operator*(SmallFloat<E, M> a, SmallFloat<E, M> b) {
  return from_double<SmallFloat<E, M>>(to_double(a) * to_double(b));  // the product is exact
}
template <int E, int M>
inline SmallFloat<E, M> fused(SmallFloat<E, M> a, SmallFloat<E, M> b, SmallFloat<E, M> c) {
  return from_double<SmallFloat<E, M>>(sum_to_odd(to_double(a) * to_double(b), to_double(c)));
}
// Round-to-nearest float fma without a libm call: the double product is exact
// and the sum is rounded to odd, so the final rounding to float is correct.
inline float fused(float a, float b, float c) {
  return float(sum_to_odd(double(a) * double(b), double(c)));
}
inline double fused(double a, double b, double c) { return std::fma(a, b, c); }

template <int E, int M>
inline bool operator==(SmallFloat<E, M> a, SmallFloat<E, M> b) {
  return to_float(a) == to_float(b);
}
template <int E, int M>
inline bool operator<(SmallFloat<E, M> a, SmallFloat<E, M> b) {
  return to_float(a) < to_float(b);
}
template <int E, int M>
inline bool operator>(SmallFloat<E, M> a, SmallFloat<E, M> b) {
  return b < a;
}

}  // namespace gpumux::exec::compute
