#include "gpumux/mem/coalescer.h"

#include <gtest/gtest.h>

namespace gpumux::mem {
namespace {

std::array<uint64_t, kWarpLanes> strided(uint64_t base, uint64_t stride) {
  std::array<uint64_t, kWarpLanes> a{};
  for (unsigned l = 0; l < kWarpLanes; ++l) a[l] = base + l * stride;
  return a;
}

TEST(Coalescer, UnitStrideWordsMakeOneFullLine) {
  auto c = coalesce(strided(0x1000, 4), 0xffffffffu, 4);
  ASSERT_EQ(c.count, 1u);
  EXPECT_EQ(c.lines[0].line, 0x1000u);
  EXPECT_EQ(c.lines[0].sectors, kAllSectors);
  EXPECT_EQ(c.lines[0].lanes, 0xffffffffu);
}

TEST(Coalescer, StrideTwoWordsMakeTwoLines) {
  auto c = coalesce(strided(0x1000, 8), 0xffffffffu, 4);
  ASSERT_EQ(c.count, 2u);
  EXPECT_EQ(c.lines[0].line, 0x1000u);
  EXPECT_EQ(c.lines[1].line, 0x1080u);
  EXPECT_EQ(c.lines[0].sectors, kAllSectors);
  EXPECT_EQ(c.lines[0].lanes, 0x0000ffffu);
  EXPECT_EQ(c.lines[1].lanes, 0xffff0000u);
}

TEST(Coalescer, ScatteredLanesMakeOneLineEach) {
  auto c = coalesce(strided(0x40, 4096 + 32), 0xffffffffu, 4);
  ASSERT_EQ(c.count, 32u);
  for (unsigned l = 0; l < 32; ++l) {
    EXPECT_EQ(c.lines[l].lanes, 1u << l);
    EXPECT_EQ(c.lines[l].sectors, SectorMask(1u << ((2 + l) % 4)));  // 0x40 is sector 2, +32 B per lane
  }
}

TEST(Coalescer, SectorsFollowTheBytesTouched) {
  auto bytes = coalesce(strided(0x2000, 1), 0xffffffffu, 1);  // 32 bytes
  ASSERT_EQ(bytes.count, 1u);
  EXPECT_EQ(bytes.lines[0].sectors, 0x1);
  auto doubles = coalesce(strided(0x2000, 8), 0xffffffffu, 8);  // 256 bytes
  ASSERT_EQ(doubles.count, 2u);
  EXPECT_EQ(doubles.lines[1].sectors, kAllSectors);
  auto broadcast = coalesce(strided(0x2044, 0), 0xffffffffu, 4);
  ASSERT_EQ(broadcast.count, 1u);
  EXPECT_EQ(broadcast.lines[0].sectors, 0x4);
  auto straddle = coalesce(strided(0x207c, 0), 0x1u, 8);  // misaligned: bytes 0x207c..0x2083
  ASSERT_EQ(straddle.count, 2u);
  EXPECT_EQ(straddle.lines[0].sectors, 0x8);
  EXPECT_EQ(straddle.lines[1].sectors, 0x1);
}

TEST(Coalescer, InactiveLanesAreIgnored) {
  auto c = coalesce(strided(0x1000, 128), 0x00000005u, 4);  // lanes 0 and 2
  ASSERT_EQ(c.count, 2u);
  EXPECT_EQ(c.lines[0].line, 0x1000u);
  EXPECT_EQ(c.lines[1].line, 0x1100u);
  EXPECT_EQ(coalesce(strided(0, 4), 0, 4).count, 0u);
}

}  // namespace
}  // namespace gpumux::mem
