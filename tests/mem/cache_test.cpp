#include "gpumux/mem/cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "fake_sink.h"

namespace gpumux::mem {
namespace {

using test::RecordingSink;
using test::read_req;
using test::with_op;

constexpr Tick kCycle = 1000;  // 1 GHz: cycle n begins at tick n * 1000

// A cache between two recording sinks, in a 1 GHz domain.
struct Bench {
  explicit Bench(CacheParams p, uint64_t size_bytes = 4096, std::optional<uint32_t> atomic_latency = std::nullopt)
      : map(AddressMapParams{}, 1, DramParams{}),
        domain(engine.add_domain("core", 1000.0)),
        cache(engine, domain, "cache", p, size_bytes, atomic_latency, map, false),
        below(engine),
        above(engine) {
    cache.connect(&below, &above);
  }
  // Hands `r` to the cache at the end of cycle `c` (it is looked up at c + 1).
  void send_at(Cycle c, const MemRequest& r) {
    engine.run_until(c * kCycle);
    ASSERT_TRUE(cache.can_accept(r));
    cache.accept(r);
  }
  // Returns below's request `i` as filled, at the end of cycle `c`.
  void fill_at(Cycle c, size_t i) {
    engine.run_until(c * kCycle);
    cache.fill_port().accept(below.got.at(i).second);
  }
  Cycle below_cycle(size_t i) const { return below.got.at(i).first / kCycle; }
  Cycle above_cycle(size_t i) const { return above.got.at(i).first / kCycle; }

  Engine engine;
  AddressMap map;
  DomainId domain;
  Cache cache;
  RecordingSink below, above;
};

CacheParams l1_params() {
  CacheParams p;  // write-through, no write-allocate
  p.ways = 2;
  p.hit_latency = 5;
  p.mshrs = 4;
  p.mshr_merge = 4;
  return p;
}

CacheParams l2_params() {
  CacheParams p = l1_params();
  p.write_policy = WritePolicy::WriteBack;
  p.write_allocate = true;
  return p;
}

TEST(Cache, MissFetchesMissingSectorsThenHitsAfterHitLatency) {
  Bench b(l1_params());
  b.send_at(0, read_req(0x1000, 0x3, 7));
  b.engine.run_until(10 * kCycle);
  ASSERT_EQ(b.below.got.size(), 1u);
  EXPECT_EQ(b.below_cycle(0), 1u + 5);  // misses go below after the access pipeline
  EXPECT_TRUE(b.below.got[0].second.cache_fetch);
  EXPECT_EQ(b.below.got[0].second.sectors, 0x3);
  b.fill_at(20, 0);
  b.engine.run();
  ASSERT_EQ(b.above.got.size(), 1u);
  EXPECT_EQ(b.above_cycle(0), 21u);  // answered when the fill is processed
  EXPECT_EQ(b.above.got[0].second.token, 7u);
  EXPECT_EQ(b.cache.valid_sectors(0x1000), 0x3);

  b.send_at(30, read_req(0x1000, 0x1, 8));
  b.engine.run();
  ASSERT_EQ(b.above.got.size(), 2u);
  EXPECT_EQ(b.above_cycle(1), 31u + 5);  // seen at 31, hit latency 5
  EXPECT_EQ(b.below.got.size(), 1u);
  EXPECT_EQ(b.cache.stats().read_hits.total().value(), 1u);
  EXPECT_EQ(b.cache.stats().read_misses.total().value(), 1u);
}

TEST(Cache, RequestsToAPendingLineMergeAndFetchOnlyNewSectors) {
  Bench b(l1_params());
  b.send_at(0, read_req(0x1000, 0x1, 1));
  b.send_at(1, read_req(0x1000, 0x1, 2));  // merges, nothing to fetch
  b.send_at(2, read_req(0x1000, 0x3, 3));  // merges, fetches sector 1 only
  b.engine.run_until(10 * kCycle);
  ASSERT_EQ(b.below.got.size(), 2u);
  EXPECT_EQ(b.below.got[1].second.sectors, 0x2);
  EXPECT_EQ(b.cache.stats().mshr_merges.total().value(), 2u);
  b.fill_at(10, 0);  // sector 0: serves requests 1 and 2, one response per cycle (1 port)
  b.engine.run_until(15 * kCycle);
  ASSERT_EQ(b.above.got.size(), 2u);
  EXPECT_EQ(b.above_cycle(0), 11u);
  EXPECT_EQ(b.above_cycle(1), 12u);
  b.fill_at(15, 1);
  b.engine.run();
  ASSERT_EQ(b.above.got.size(), 3u);
  EXPECT_EQ(b.above.got[2].second.token, 3u);
  EXPECT_EQ(b.above_cycle(2), 16u);
}

TEST(Cache, StallsWhenMshrsAreExhausted) {
  CacheParams p = l1_params();
  p.mshrs = 2;
  Bench b(p);
  b.send_at(0, read_req(0x1000));
  b.send_at(0, read_req(0x2000));
  b.send_at(0, read_req(0x3000));
  b.engine.run_until(10 * kCycle);
  EXPECT_EQ(b.below.got.size(), 2u);
  EXPECT_GT(b.cache.stats().mshr_stalls.value(), 0u);
  EXPECT_NE(b.cache.describe_wait().find("stalled: no MSHR"), std::string::npos) << b.cache.describe_wait();
  b.fill_at(10, 0);
  b.engine.run_until(12 * kCycle);
  ASSERT_EQ(b.below.got.size(), 3u);
  EXPECT_EQ(b.below_cycle(2), 11u);  // the fill frees the MSHR in the same cycle
}

// Waiters are stored per MSHR and grow with the highest MSHR in use: requests
// merged into the first MSHR must survive the later misses that grow them.
TEST(Cache, MergedRequestsOfEveryMshrAreAnsweredOnce) {
  Bench b(l1_params());  // 4 MSHRs, 4 merges each
  const uint64_t lines[] = {0x1000, 0x1080, 0x1100, 0x1180};  // sets 0..3: no tag stall
  uint64_t token = 1;
  for (Cycle c = 0; c < 4; ++c) {
    b.send_at(2 * c, read_req(lines[c], 0x1, token++));
    b.send_at(2 * c + 1, read_req(lines[c], 0x1, token++));  // merges, nothing more to fetch
  }
  b.engine.run_until(20 * kCycle);
  ASSERT_EQ(b.below.got.size(), 4u);
  EXPECT_EQ(b.cache.stats().mshr_merges.total().value(), 4u);
  for (size_t i = 4; i-- > 0;) b.fill_at(20 + 4 * (3 - i), i);  // the last MSHR first
  b.engine.run();
  ASSERT_EQ(b.above.got.size(), 8u);
  std::vector<uint64_t> answered;
  for (const auto& [tick, r] : b.above.got) answered.push_back(r.token);
  std::sort(answered.begin(), answered.end());
  EXPECT_EQ(answered, (std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(b.above.got.front().second.token, 7u);  // filled first
  EXPECT_EQ(b.above.got.back().second.token, 2u);
}

TEST(Cache, StallsWhenEveryWayOfTheSetAwaitsAFill) {
  Bench b(l1_params(), 256);  // one set of two ways
  EXPECT_EQ(b.cache.sets(), 1u);
  b.send_at(0, read_req(0x1000));
  b.send_at(0, read_req(0x2000));
  b.send_at(0, read_req(0x3000));
  b.engine.run_until(10 * kCycle);
  EXPECT_EQ(b.below.got.size(), 2u);
  EXPECT_GT(b.cache.stats().tag_stalls.value(), 0u);
  b.fill_at(10, 1);  // 0x2000 arrives first and becomes the only evictable way
  b.engine.run();
  ASSERT_EQ(b.below.got.size(), 3u);
  EXPECT_EQ(b.below_cycle(2), 11u);
  EXPECT_EQ(b.cache.valid_sectors(0x2000), 0u);
  EXPECT_EQ(b.cache.stats().evictions.value(), 1u);
}

TEST(Cache, EvictsTheLeastRecentlyUsedWay) {
  Bench b(l1_params(), 256);
  b.send_at(0, read_req(0x1000));
  b.send_at(0, read_req(0x2000));
  b.fill_at(10, 0);
  b.fill_at(10, 1);
  b.send_at(10, read_req(0x1000));  // touch A: B becomes LRU
  b.send_at(20, read_req(0x3000));
  b.engine.run();
  EXPECT_EQ(b.cache.valid_sectors(0x1000), kAllSectors);
  EXPECT_EQ(b.cache.valid_sectors(0x2000), 0u);
}

TEST(Cache, WriteThroughForwardsWritesAndPassesTheirAcksUp) {
  Bench b(l1_params());
  MemRequest w = with_op(read_req(0x1000, 0x1, 5), MemOp::Write);
  b.send_at(0, w);
  b.engine.run();
  ASSERT_EQ(b.below.got.size(), 1u);
  EXPECT_FALSE(b.below.got[0].second.cache_fetch);
  EXPECT_EQ(b.cache.valid_sectors(0x1000), 0u);  // no write-allocate
  b.fill_at(10, 0);                               // the ack from below
  b.engine.run();
  ASSERT_EQ(b.above.got.size(), 1u);
  EXPECT_EQ(b.above_cycle(0), 11u);
  EXPECT_EQ(b.above.got[0].second.op, MemOp::Write);
  EXPECT_EQ(b.cache.stats().write_misses.total().value(), 1u);
}

TEST(Cache, WriteBackAllocatesDirtyLinesAndWritesThemBackOnEviction) {
  Bench b(l2_params(), 256);
  b.send_at(0, with_op(read_req(0x1000, 0x6, 1), MemOp::Write));
  b.engine.run();
  EXPECT_TRUE(b.below.got.empty());
  ASSERT_EQ(b.above.got.size(), 1u);
  EXPECT_EQ(b.above_cycle(0), 1u + 5);  // acknowledged at the lookup
  EXPECT_EQ(b.cache.dirty_sectors(0x1000), 0x6);
  b.send_at(10, with_op(read_req(0x2000, 0x1, 2), MemOp::Write));
  b.send_at(10, read_req(0x3000, 0x1, 3));  // evicts 0x1000 (LRU, dirty)
  b.engine.run_until(20 * kCycle);
  ASSERT_EQ(b.below.got.size(), 2u);
  EXPECT_EQ(b.below.got[0].second.op, MemOp::Read);
  EXPECT_EQ(b.below.got[1].second.op, MemOp::Writeback);
  EXPECT_EQ(b.below.got[1].second.addr, 0x1000u);
  EXPECT_EQ(b.below.got[1].second.sectors, 0x6);
  EXPECT_EQ(b.cache.stats().writebacks.value(), 1u);
}

TEST(Cache, AtomicsExecuteWhereThereIsAnAtomicUnit) {
  Bench l2(l2_params(), 4096, 3);
  l2.send_at(0, read_req(0x1000, 0x1, 1));
  l2.fill_at(10, 0);
  l2.send_at(20, with_op(read_req(0x1000, 0x1, 2), MemOp::Atomic));
  l2.engine.run();
  ASSERT_EQ(l2.above.got.size(), 2u);
  EXPECT_EQ(l2.above_cycle(1), 21u + 5 + 3);  // hit latency + atomic latency
  EXPECT_EQ(l2.cache.dirty_sectors(0x1000), 0x1);
  EXPECT_EQ(l2.below.got.size(), 1u);

  Bench l1(l1_params());
  l1.send_at(0, read_req(0x1000, 0x3, 1));
  l1.fill_at(10, 0);
  l1.send_at(20, with_op(read_req(0x1000, 0x1, 2), MemOp::Atomic));
  l1.engine.run();
  ASSERT_EQ(l1.below.got.size(), 2u);
  EXPECT_EQ(l1.below.got[1].second.op, MemOp::Atomic);
  EXPECT_EQ(l1.cache.valid_sectors(0x1000), 0x2);  // the local copy of the sector is dropped
}

TEST(Cache, OneLookupPerPortPerCycle) {
  Bench b(l1_params());
  b.send_at(0, read_req(0x1000));
  b.fill_at(10, 0);
  for (int i = 0; i < 4; ++i) b.send_at(20, read_req(0x1000, kAllSectors, i));
  b.engine.run();
  ASSERT_EQ(b.above.got.size(), 5u);
  for (size_t i = 1; i < 5; ++i) EXPECT_EQ(b.above_cycle(i), 20u + i + 5);
}

TEST(Cache, WaitsWhileTheLevelBelowRefuses) {
  Bench b(l1_params());
  b.below.accepting = false;
  b.send_at(0, read_req(0x1000));
  b.engine.run_until(10 * kCycle);
  EXPECT_TRUE(b.below.got.empty());
  EXPECT_EQ(b.cache.stats().below_stalls.value(), 5u);  // lookups tried at cycles 6..10
  b.below.accepting = true;
  b.engine.run_until(12 * kCycle);
  ASSERT_EQ(b.below.got.size(), 1u);
  EXPECT_EQ(b.below_cycle(0), 11u);
  EXPECT_EQ(b.cache.describe_wait().find("queued (head"), std::string::npos);
}

}  // namespace
}  // namespace gpumux::mem
