#include "gpumux/ptx/literal.h"

#include <gtest/gtest.h>

#include <bit>
#include <limits>

namespace gpumux::ptx {
namespace {

uint64_t bits_of(std::string_view text, Type t, bool negative = false) {
  std::string err;
  auto lit = parse_literal(text, negative, err);
  EXPECT_TRUE(lit) << err;
  auto b = literal_bits(*lit, t, err);
  EXPECT_TRUE(b) << err;
  return b.value_or(0xdeadbeef);
}

TEST(PtxLiteral, IntegerForms) {
  EXPECT_EQ(bits_of("42", Type::U64), 42u);
  EXPECT_EQ(bits_of("0x1F", Type::U64), 31u);
  EXPECT_EQ(bits_of("0XfF", Type::U64), 255u);
  EXPECT_EQ(bits_of("017", Type::U64), 15u);
  EXPECT_EQ(bits_of("0b1011", Type::U64), 11u);
  EXPECT_EQ(bits_of("0", Type::U64), 0u);
  EXPECT_EQ(bits_of("7U", Type::U64), 7u);
  EXPECT_EQ(bits_of("18446744073709551615", Type::U64), ~uint64_t(0));
  EXPECT_EQ(bits_of("1", Type::S64, true), ~uint64_t(0));
}

TEST(PtxLiteral, IntegersTruncateToTheSlotWidth) {
  EXPECT_EQ(bits_of("1", Type::S32, true), 0xffffffffu);
  EXPECT_EQ(bits_of("1", Type::S16, true), 0xffffu);
  EXPECT_EQ(bits_of("300", Type::U8), 44u);
  EXPECT_EQ(bits_of("0x123456789", Type::B32), 0x23456789u);
  EXPECT_EQ(bits_of("5", Type::Pred), 1u);
  EXPECT_EQ(bits_of("0", Type::Pred), 0u);
}

TEST(PtxLiteral, FloatSlots) {
  EXPECT_EQ(bits_of("0f3F800000", Type::F32), 0x3f800000u);
  EXPECT_EQ(bits_of("1.5", Type::F32), std::bit_cast<uint32_t>(1.5f));
  EXPECT_EQ(bits_of("2", Type::F32), std::bit_cast<uint32_t>(2.0f));
  EXPECT_EQ(bits_of("3", Type::F32, true), std::bit_cast<uint32_t>(-3.0f));
  EXPECT_EQ(bits_of("0d3FF8000000000000", Type::F32), std::bit_cast<uint32_t>(1.5f));
  EXPECT_EQ(bits_of("0f3F800000", Type::F64), std::bit_cast<uint64_t>(1.0));
  EXPECT_EQ(bits_of("0d4000000000000000", Type::F64), std::bit_cast<uint64_t>(2.0));
  EXPECT_EQ(bits_of("1e-3", Type::F64), std::bit_cast<uint64_t>(1e-3));
  EXPECT_EQ(bits_of("0f3F800000", Type::F32, true), 0xbf800000u);
  EXPECT_EQ(bits_of("1.0", Type::F16), 0x3c00u);
  EXPECT_EQ(bits_of("1.0", Type::BF16), 0x3f80u);
  // Out-of-range decimal literals round to infinity instead of being undefined.
  EXPECT_EQ(bits_of("1e300", Type::F32), 0x7f800000u);
}

TEST(PtxLiteral, HexFloatsAreRawBitsInIntegerSlots) {
  EXPECT_EQ(bits_of("0f3F800000", Type::B32), 0x3f800000u);
  EXPECT_EQ(bits_of("0d3FF0000000000000", Type::B64), 0x3ff0000000000000u);
  EXPECT_EQ(bits_of("1.0", Type::B32), 0x3f800000u);
  std::string err;
  auto lit = parse_literal("1.5", false, err);
  ASSERT_TRUE(lit);
  EXPECT_FALSE(literal_bits(*lit, Type::U32, err));
  EXPECT_NE(err.find("u32"), std::string::npos);
}

TEST(PtxLiteral, Malformed) {
  std::string err;
  EXPECT_FALSE(parse_literal("0f3F80", false, err));
  EXPECT_FALSE(parse_literal("0x", false, err));
  EXPECT_FALSE(parse_literal("09", false, err));
  EXPECT_FALSE(parse_literal("0b102", false, err));
  EXPECT_FALSE(parse_literal("18446744073709551616", false, err));
  EXPECT_NE(err.find("18446744073709551616"), std::string::npos);
  EXPECT_FALSE(parse_literal("1e999", false, err));
}

TEST(PtxLiteral, HalfRounding) {
  EXPECT_EQ(double_to_f16_bits(65504.0), 0x7bffu);        // largest half
  EXPECT_EQ(double_to_f16_bits(65520.0), 0x7c00u);        // rounds up to infinity
  EXPECT_EQ(double_to_f16_bits(-2.0), 0xc000u);
  EXPECT_EQ(double_to_f16_bits(5.960464477539063e-8), 0x0001u);  // smallest subnormal
  EXPECT_EQ(double_to_f16_bits(2.98023223876953125e-8), 0x0000u);  // half of it: ties to even
  EXPECT_EQ(double_to_f16_bits(1.0 + 1.0 / 2048), 0x3c00u);          // tie -> even mantissa
  EXPECT_EQ(double_to_f16_bits(1.0 + 3.0 / 2048), 0x3c02u);          // tie -> even mantissa
  EXPECT_EQ(double_to_f16_bits(std::numeric_limits<double>::infinity()), 0x7c00u);
  EXPECT_EQ(double_to_f16_bits(std::numeric_limits<double>::quiet_NaN()) & 0x7e00u, 0x7e00u);
  EXPECT_EQ(double_to_bf16_bits(3.0), 0x4040u);
}

}  // namespace
}  // namespace gpumux::ptx
