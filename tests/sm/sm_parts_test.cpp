// Unit tests of the SM's parts: the range allocator, bank-conflict degrees,
// the warp scheduling policies and the scheduler registry.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "gpumux/core/error.h"
#include "gpumux/sm/range_allocator.h"
#include "gpumux/sm/shared_memory.h"
#include "gpumux/sm/warp_scheduler/warp_scheduler.h"

namespace gpumux::sm {
namespace {

TEST(RangeAllocator, FirstFitLeavesHolesAndReusesThem) {
  RangeAllocator a(100);
  auto r1 = a.allocate(30), r2 = a.allocate(30), r3 = a.allocate(30);
  ASSERT_TRUE(r1 && r2 && r3);
  EXPECT_EQ(r2->begin, 30u);
  EXPECT_FALSE(a.fits(20));  // 10 free
  a.release(*r2);
  EXPECT_EQ(a.used(), 60u);
  EXPECT_EQ(a.largest_free(), 30u);
  EXPECT_FALSE(a.fits(35));  // 40 free in total, but in holes of 30 and 10
  auto r4 = a.allocate(25);
  ASSERT_TRUE(r4);
  EXPECT_EQ(r4->begin, 30u);  // the first hole
  EXPECT_TRUE(a.allocate(0).has_value());
}

TEST(BankConflicts, DegreeFollowsStrideAndBroadcast) {
  std::array<uint64_t, 32> addr{};
  for (int stride : {1, 2, 4, 8, 16, 32}) {
    for (unsigned l = 0; l < 32; ++l) addr[l] = uint64_t(l) * stride * 4;
    EXPECT_EQ(bank_conflict_degree(addr, 0xffffffffu, 4), uint32_t(stride)) << stride;
  }
  for (unsigned l = 0; l < 32; ++l) addr[l] = 64;  // one word: broadcast
  EXPECT_EQ(bank_conflict_degree(addr, 0xffffffffu, 4), 1u);
  for (unsigned l = 0; l < 32; ++l) addr[l] = uint64_t(l) * 8;  // 8 B per lane: two passes
  EXPECT_EQ(bank_conflict_degree(addr, 0xffffffffu, 8), 2u);
  EXPECT_EQ(bank_conflict_degree(addr, 0, 4), 0u);
}

// The degree by definition: the most distinct words any one bank is asked for.
uint32_t degree_by_definition(const std::array<uint64_t, 32>& addr, uint32_t mask, uint32_t bytes) {
  std::array<std::set<uint64_t>, kSharedBanks> words;
  uint32_t per_lane = std::min<uint32_t>(std::max<uint32_t>(1, (bytes + kBankBytes - 1) / kBankBytes), 4);
  for (unsigned l = 0; l < 32; ++l)
    if (mask >> l & 1)
      for (uint32_t k = 0; k < per_lane; ++k) words[(addr[l] / kBankBytes + k) % kSharedBanks].insert(addr[l] / kBankBytes + k);
  uint32_t d = 0;
  for (const auto& w : words) d = std::max<uint32_t>(d, uint32_t(w.size()));
  return d;
}

TEST(BankConflicts, DegreeMatchesDefinitionOnRandomPatterns) {
  // Patterns near the fast path's edges: few distinct words, some lanes
  // sharing a bank with another word, partial masks, wide accesses, words
  // more than 32 rows from the first lane's.
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 20000; ++trial) {
    std::array<uint64_t, 32> addr{};
    uint32_t bytes = std::array<uint32_t, 4>{4, 8, 16, 2}[trial % 4];
    uint64_t span = std::array<uint64_t, 4>{32, 128, 4096, 65536}[trial / 4 % 4];  // the last beyond 64 rows
    for (unsigned l = 0; l < 32; ++l) addr[l] = (rng() % span) / bytes * bytes;
    if (trial % 5 == 0)
      for (unsigned l = 0; l < 32; ++l) addr[l] = (l * bytes + (l == 31 ? 128 : 0)) % 8192;  // one conflict
    uint32_t mask = trial % 3 == 0 ? ~0u : uint32_t(rng());
    ASSERT_EQ(bank_conflict_degree(addr, mask, bytes), degree_by_definition(addr, mask, bytes))
        << "trial " << trial << " bytes " << bytes << " mask " << mask;
  }
}

std::vector<WarpView> views(std::initializer_list<bool> ready) {
  std::vector<WarpView> v;
  uint16_t slot = 0;
  for (bool r : ready) {
    WarpView w;
    w.slot = slot;
    w.age = slot;
    w.ready = r;
    ++slot;
    v.push_back(w);
  }
  return v;
}

TEST(WarpSchedulers, GtoStaysGreedyThenPicksOldest) {
  auto s = make_warp_scheduler("gto", SmParams{});
  auto v = views({false, true, true});
  EXPECT_EQ(s->pick(v), 1);
  EXPECT_EQ(s->pick(v), 1);  // greedy
  v[0].ready = true;
  EXPECT_EQ(s->pick(v), 1);  // still greedy while ready
  v[1].ready = false;
  EXPECT_EQ(s->pick(v), 0);  // oldest
}

TEST(WarpSchedulers, LrrRotates) {
  auto s = make_warp_scheduler("lrr", SmParams{});
  auto v = views({true, true, true});
  EXPECT_EQ(s->pick(v), 0);
  EXPECT_EQ(s->pick(v), 1);
  EXPECT_EQ(s->pick(v), 2);
  EXPECT_EQ(s->pick(v), 0);
}

TEST(WarpSchedulers, TwoLevelSchedulesOnlyItsActiveSet) {
  SmParams p;
  p.two_level_active = 2;
  auto s = make_warp_scheduler("two-level", p);
  auto v = views({false, false, true});
  EXPECT_EQ(s->pick(v), -1);  // warps 0 and 1 are active but not ready
  v[0].long_wait = true;      // warp 0 waits for memory: warp 2 takes its place
  EXPECT_EQ(s->pick(v), 2);
}

TEST(WarpSchedulers, RegistryRejectsUnknownNames) {
  EXPECT_THROW(make_warp_scheduler("nope", SmParams{}), LoadError);
  EXPECT_EQ(warp_scheduler_names().size(), 8u);
}

}  // namespace
}  // namespace gpumux::sm
