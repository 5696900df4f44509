#include "gpumux/mem/coalescer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

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


// The coalescer's output by its definition: lane by lane, each line a lane's
// bytes touch, its sectors and lanes, lines in the order of their first lane.
std::vector<LineAccess> by_definition(const std::array<uint64_t, kWarpLanes>& addr, uint32_t active, uint32_t bytes) {
  std::vector<LineAccess> out;
  for (unsigned l = 0; l < kWarpLanes; ++l) {
    if (!(active >> l & 1)) continue;
    for (uint64_t b = addr[l]; b < addr[l] + std::max<uint32_t>(bytes, 1); ++b) {
      uint64_t line = b / kLineBytes * kLineBytes;
      auto it = std::find_if(out.begin(), out.end(), [&](const LineAccess& x) { return x.line == line; });
      if (it == out.end()) it = out.insert(out.end(), LineAccess{line, 0, 0});
      it->sectors |= SectorMask(1u << ((b - line) / kSectorBytes));
      it->lanes |= 1u << l;
    }
  }
  return out;
}

TEST(Coalescer, MatchesTheDefinitionOnRandomPatterns) {
  // Unit and small strides in either direction (few lines: the one-pass
  // path), lanes straddling lines, scattered lanes, partial masks.
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 20000; ++trial) {
    const uint32_t bytes = std::array<uint32_t, 5>{1, 4, 8, 16, 12}[trial % 5];
    const uint64_t base = 0x10000 + rng() % 4096;
    const int64_t stride = std::array<int64_t, 6>{4, 8, -4, 0, 16, 100}[trial / 5 % 6];
    std::array<uint64_t, kWarpLanes> addr{};
    for (unsigned l = 0; l < kWarpLanes; ++l) {
      addr[l] = uint64_t(int64_t(base) + stride * int64_t(l));
      if (trial % 7 == 0) addr[l] = 0x10000 + rng() % 600;  // scattered over a few lines
      if (trial % 11 == 0 && l == rng() % 32) addr[l] += 4096;  // one far lane
    }
    const uint32_t active = trial % 3 == 0 ? ~0u : uint32_t(rng());
    CoalescedAccesses got = coalesce(addr, active, bytes);
    std::vector<LineAccess> want = by_definition(addr, active, bytes);
    ASSERT_EQ(got.count, want.size()) << "trial " << trial;
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(got.lines[i].line, want[i].line) << "trial " << trial << " line " << i;
      EXPECT_EQ(got.lines[i].sectors, want[i].sectors) << "trial " << trial << " line " << i;
      ASSERT_EQ(got.lines[i].lanes, want[i].lanes) << "trial " << trial << " line " << i;
    }
  }
}

}  // namespace
}  // namespace gpumux::mem
