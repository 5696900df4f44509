// PTX numeric literals and their conversion to the raw bits of an operand type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gpumux/ptx/ir.h"

namespace gpumux::ptx {

struct Literal {
  enum class Kind : uint8_t {
    Int,      // 12, -3, 0x1f, 017 (octal), 0b101: 64-bit two's complement in bits
    F32Bits,  // 0f3F800000: exact single-precision bits
    F64Bits,  // 0d3FF0000000000000: exact double-precision bits
    Decimal,  // 1.5, 2e-3: value
  };
  Kind kind = Kind::Int;
  bool negative = false;  // written with a leading '-' (already applied to bits/value)
  uint64_t bits = 0;
  double value = 0.0;
};

// Parses the text of a number token (sign given separately). Returns nothing
// and sets `error` when the text is malformed or does not fit in 64 bits.
std::optional<Literal> parse_literal(std::string_view text, bool negative, std::string& error);

// Raw bits of `lit` as a value of type `t`, zero-extended to 64 bits:
// integers are truncated to the type width; in float types integer and
// decimal literals are converted numerically, 0f/0d literals are converted
// between precisions; in integer types 0f/0d literals are taken as raw bits
// and decimal literals are rejected (bit types take the float of their width).
// Type::None keeps the literal's own 64-bit bits. Pred gives 0 or 1.
std::optional<uint64_t> literal_bits(const Literal& lit, Type t, std::string& error);

// IEEE round-to-nearest-even conversions used for f16/bf16 operands.
uint16_t double_to_f16_bits(double v);
uint16_t double_to_bf16_bits(double v);

}  // namespace gpumux::ptx
