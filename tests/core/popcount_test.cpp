#include "gpumux/core/popcount.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>

namespace gpumux {
namespace {

// The inline bit sum must agree with the standard library on every width the
// model uses (lane masks, sector masks, PTX popc.b32/.b64).
TEST(Popcount, MatchesStdPopcount) {
  for (uint64_t v : {uint64_t(0), uint64_t(1), ~uint64_t(0), uint64_t(0x8000000000000000u), uint64_t(0xffffffffu),
                     uint64_t(0x5555555555555555u), uint64_t(0xaaaaaaaaaaaaaaaau)}) {
    EXPECT_EQ(popcount(v), uint32_t(std::popcount(v))) << v;
    EXPECT_EQ(popcount(uint32_t(v)), uint32_t(std::popcount(uint32_t(v)))) << v;
    EXPECT_EQ(popcount(uint8_t(v)), uint32_t(std::popcount(uint8_t(v)))) << v;
  }
  std::mt19937_64 rng(7);
  for (int i = 0; i < 10000; ++i) {
    uint64_t v = rng();
    ASSERT_EQ(popcount(v), uint32_t(std::popcount(v))) << v;
    ASSERT_EQ(popcount(uint32_t(v)), uint32_t(std::popcount(uint32_t(v)))) << v;
  }
}

TEST(Popcount, HasSingleBitMatchesStd) {
  for (uint32_t v = 0; v < 70000; ++v) ASSERT_EQ(has_single_bit(v), std::has_single_bit(v)) << v;
  EXPECT_TRUE(has_single_bit(uint64_t(1) << 63));
  EXPECT_FALSE(has_single_bit(~uint64_t(0)));
}

}  // namespace
}  // namespace gpumux
