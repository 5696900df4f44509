#include "gpumux/ptx/literal.h"

#include <bit>
#include <charconv>
#include <cmath>

namespace gpumux::ptx {

namespace {

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

// Accumulates digits of `base`; false on a bad digit or 64-bit overflow.
bool parse_digits(std::string_view s, unsigned base, uint64_t& out) {
  if (s.empty()) return false;
  uint64_t v = 0;
  for (char c : s) {
    unsigned d = unsigned(digit_value(c));
    if (d >= base) return false;
    if (v > (UINT64_MAX - d) / base) return false;
    v = v * base + d;
  }
  out = v;
  return true;
}

// Rounds v to nearest-even in a binary format with `ebits` exponent and
// `mbits` mantissa bits (f16: 5/10, bf16: 8/7, f32: 8/23) and returns its
// bits; overflow gives infinity (a plain float cast would be undefined).
uint32_t round_to_small_float(double v, int ebits, int mbits) {
  const uint64_t d = std::bit_cast<uint64_t>(v);
  const uint32_t sign = uint32_t(d >> 63) << (ebits + mbits);
  const int dexp = int((d >> 52) & 0x7ff);
  const uint64_t dman = d & ((uint64_t(1) << 52) - 1);
  const uint32_t exp_all_ones = (1u << ebits) - 1;
  if (dexp == 0x7ff) {
    uint32_t inf = sign | (exp_all_ones << mbits);
    return dman == 0 ? inf : inf | (1u << (mbits - 1));  // quiet NaN
  }
  if (dexp == 0) return sign;  // zero, or a double subnormal far below the target's range
  const int bias = (1 << (ebits - 1)) - 1;
  int exp = dexp - 1023 + bias;  // target biased exponent
  const uint64_t mant = (uint64_t(1) << 52) | dman;
  const int shift = exp >= 1 ? 52 - mbits : 52 - mbits + (1 - exp);
  if (shift >= 64) return sign;
  uint64_t kept = mant >> shift;
  const uint64_t rest = mant & ((uint64_t(1) << shift) - 1), half = uint64_t(1) << (shift - 1);
  if (rest > half || (rest == half && (kept & 1))) ++kept;
  if (exp < 1) return sign | uint32_t(kept);  // subnormal; a carry lands in the exponent field
  if (kept >> (mbits + 1)) {
    kept >>= 1;
    ++exp;
  }
  if (exp >= int(exp_all_ones)) return sign | (exp_all_ones << mbits);
  return sign | (uint32_t(exp) << mbits) | uint32_t(kept & ((uint64_t(1) << mbits) - 1));
}

double literal_as_double(const Literal& lit) {
  switch (lit.kind) {
    case Literal::Kind::Int:
      return lit.negative ? double(int64_t(lit.bits)) : double(lit.bits);
    case Literal::Kind::F32Bits: return double(std::bit_cast<float>(uint32_t(lit.bits)));
    case Literal::Kind::F64Bits: return std::bit_cast<double>(lit.bits);
    case Literal::Kind::Decimal: return lit.value;
  }
  return 0.0;
}

}  // namespace

uint16_t double_to_f16_bits(double v) { return uint16_t(round_to_small_float(v, 5, 10)); }
uint16_t double_to_bf16_bits(double v) { return uint16_t(round_to_small_float(v, 8, 7)); }

std::optional<Literal> parse_literal(std::string_view text, bool negative, std::string& error) {
  Literal lit;
  lit.negative = negative;
  std::string_view s = text;
  auto bad = [&](const char* why) -> std::optional<Literal> {
    error = std::string(why) + " '" + std::string(text) + "'";
    return std::nullopt;
  };
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
    const bool f32 = s[1] == 'f' || s[1] == 'F';
    std::string_view digits = s.substr(2);
    if (digits.size() != (f32 ? 8u : 16u)) return bad("malformed floating-point literal");
    uint64_t bits = 0;
    if (!parse_digits(digits, 16, bits)) return bad("malformed floating-point literal");
    lit.kind = f32 ? Literal::Kind::F32Bits : Literal::Kind::F64Bits;
    if (negative) bits ^= f32 ? (uint64_t(1) << 31) : (uint64_t(1) << 63);
    lit.bits = bits;
    return lit;
  }
  if (s.find_first_of(".eE") != std::string_view::npos &&
      !(s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X' || s[1] == 'b' || s[1] == 'B'))) {
    double v = 0.0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v))
      return bad("malformed floating-point literal");
    lit.kind = Literal::Kind::Decimal;
    lit.value = negative ? -v : v;
    return lit;
  }
  if (!s.empty() && s.back() == 'U') s.remove_suffix(1);
  uint64_t v = 0;
  bool ok;
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    ok = parse_digits(s.substr(2), 16, v);
  else if (s.size() >= 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
    ok = parse_digits(s.substr(2), 2, v);
  else if (s.size() >= 2 && s[0] == '0')
    ok = parse_digits(s.substr(1), 8, v);
  else
    ok = parse_digits(s, 10, v);
  if (!ok) return bad("malformed or out-of-range integer literal");
  lit.kind = Literal::Kind::Int;
  lit.bits = negative ? uint64_t(0) - v : v;
  return lit;
}

std::optional<uint64_t> literal_bits(const Literal& lit, Type t, std::string& error) {
  using K = Literal::Kind;
  switch (t) {
    case Type::None: return lit.kind == K::Decimal ? std::bit_cast<uint64_t>(lit.value) : lit.bits;
    case Type::Pred:
      if (lit.kind != K::Int) break;
      return uint64_t(lit.bits != 0);
    case Type::F32: {
      if (lit.kind == K::F32Bits) return lit.bits;
      return uint64_t(round_to_small_float(literal_as_double(lit), 8, 23));
    }
    case Type::F64:
      if (lit.kind == K::F64Bits) return lit.bits;
      return std::bit_cast<uint64_t>(literal_as_double(lit));
    case Type::F16: return uint64_t(double_to_f16_bits(literal_as_double(lit)));
    case Type::BF16: return uint64_t(double_to_bf16_bits(literal_as_double(lit)));
    case Type::F16x2:
    case Type::BF16x2:
      if (lit.kind == K::Decimal) break;
      return lit.bits & 0xffffffffu;
    default: {  // integer and bit types
      const unsigned size = type_size(t);
      const uint64_t mask = size >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * size)) - 1;
      if (lit.kind != K::Decimal) return lit.bits & mask;
      if (!type_is_bits(t)) break;
      if (size == 2) return uint64_t(double_to_f16_bits(lit.value));
      if (size == 4) return uint64_t(round_to_small_float(lit.value, 8, 23));
      if (size == 8) return std::bit_cast<uint64_t>(lit.value);
      break;
    }
  }
  error = std::string("literal not allowed for .") + type_name(t) + " operand";
  return std::nullopt;
}

}  // namespace gpumux::ptx
