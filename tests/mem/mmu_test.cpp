#include "gpumux/mem/mmu.h"

#include <gtest/gtest.h>

#include <deque>

#include "fake_sink.h"

namespace gpumux::mem {
namespace {

using test::read_req;
using test::RecordingSink;

constexpr Tick kCycle = 1000;  // 1 GHz core clock: ticks are picoseconds
constexpr uint64_t kPage = 4096;
constexpr uint64_t kUnit = 65536;

// Table 6.1's MMU (the VmParams defaults): L1 TLB 40 clk, L2 TLB 70 clk,
// walks 500 clk; a fault costs fault_us at 1 GHz.
struct Bench {
  explicit Bench(VmParams p = VmParams{}, uint32_t sms = 2)
      : domain(engine.add_domain("core", 1000.0)), mmu(engine, domain, 1000.0, p, sms) {
    for (uint32_t i = 0; i < sms; ++i) {
      below.emplace_back(engine);
    }
    for (uint32_t i = 0; i < sms; ++i) mmu.connect(i, &below[i]);
  }
  // Offers a read of `addr` from SM `sm` during cycle `c`; false if refused.
  bool send_at(Cycle c, uint32_t sm, uint64_t addr) {
    engine.run_until(c * kCycle);
    MemRequest r = read_req(addr, kAllSectors, addr);
    if (!mmu.port(sm).can_accept(r)) return false;
    mmu.port(sm).accept(r);
    return true;
  }
  // The cycle at which the request for `addr` left SM `sm`'s TLB.
  Cycle left_at(uint32_t sm, uint64_t addr) const {
    for (const auto& [t, r] : below[sm].got)
      if (r.addr == addr) return t / kCycle;
    return kNever;
  }
  Engine engine;
  DomainId domain;
  Mmu mmu;
  std::deque<RecordingSink> below;
};

VmParams paging(double fault_us) {
  VmParams p;
  p.translation = true;
  p.demand_paging = true;
  p.fault_us = fault_us;
  return p;
}

TEST(TlbArray, EvictsTheLeastRecentlyUsedOfASet) {
  TlbArray t(2, 2);  // one set of two ways
  t.insert(1);
  t.insert(2);
  EXPECT_TRUE(t.lookup(1));  // 2 is now the least recently used
  t.insert(3);
  EXPECT_TRUE(t.contains(1));
  EXPECT_FALSE(t.contains(2));
  EXPECT_TRUE(t.contains(3));
}

TEST(TlbArray, SetsAreIndexedByPage) {
  TlbArray t(4, 2);  // two sets: even and odd pages
  t.insert(0);
  t.insert(2);
  t.insert(1);  // the odd set: evicts nothing of the even one
  EXPECT_TRUE(t.contains(0));
  EXPECT_TRUE(t.contains(2));
  t.insert(4);  // the even set is full: 0 goes
  EXPECT_FALSE(t.contains(0));
  EXPECT_TRUE(t.contains(1));
}

TEST(Mmu, ColdMissWalksThenL1HitTakesTheL1Latency) {
  Bench b;
  ASSERT_TRUE(b.send_at(0, 0, 0x10000));
  ASSERT_TRUE(b.send_at(1000, 0, 0x10080));  // same page, later
  b.engine.run();
  EXPECT_EQ(b.left_at(0, 0x10000), 40u + 70 + 500);  // L1 miss, L2 miss, walk
  EXPECT_EQ(b.left_at(0, 0x10080), 1000u + 40);      // L1 hit
  EXPECT_EQ(b.mmu.stats().walks.total().value(), 1u);
  EXPECT_EQ(b.mmu.stats().l1_hits.total().value(), 1u);
  EXPECT_EQ(b.mmu.stats().l1_misses.total().value(), 1u);
  EXPECT_EQ(b.mmu.stats().translation_latency.total().sum(), 610u);
}

TEST(Mmu, AnotherSmHitsInTheSharedL2Tlb) {
  Bench b;
  ASSERT_TRUE(b.send_at(0, 0, 0x10000));
  ASSERT_TRUE(b.send_at(1000, 1, 0x10000));
  b.engine.run();
  EXPECT_EQ(b.left_at(1, 0x10000), 1000u + 40 + 70);
  EXPECT_EQ(b.mmu.stats().l2_hits.total().value(), 1u);
}

TEST(Mmu, MissesToOnePageMergeIntoOneWalk) {
  Bench b;
  ASSERT_TRUE(b.send_at(0, 0, 0x10000));
  ASSERT_TRUE(b.send_at(1, 0, 0x10080));  // merges into the L1 TLB's MSHR
  ASSERT_TRUE(b.send_at(2, 1, 0x10100));  // another SM: merges into the L2 TLB's MSHR
  b.engine.run();
  EXPECT_EQ(b.left_at(0, 0x10000), 610u);
  EXPECT_EQ(b.left_at(0, 0x10080), 610u);
  EXPECT_EQ(b.left_at(1, 0x10100), 610u);
  EXPECT_EQ(b.mmu.stats().walks.total().value(), 1u);
}

TEST(Mmu, WalksWaitForAFreeWalker) {
  VmParams p;
  p.walkers = 1;
  Bench b(p);
  ASSERT_TRUE(b.send_at(0, 0, 0x10000));
  ASSERT_TRUE(b.send_at(0, 1, 0x20000));
  b.engine.run();
  EXPECT_EQ(b.left_at(0, 0x10000), 610u);
  EXPECT_EQ(b.left_at(1, 0x20000), 610u + 500);  // walks from 610, when the first walk frees the walker
}

TEST(Mmu, FullL1MshrsRefuseOtherPages) {
  VmParams p;
  p.l1_tlb.mshrs = 1;
  Bench b(p);
  ASSERT_TRUE(b.send_at(0, 0, 0x10000));
  EXPECT_TRUE(b.send_at(1, 0, 0x10040));   // same page: merges
  EXPECT_FALSE(b.send_at(1, 0, 0x20000));  // a second page needs a second MSHR
  EXPECT_TRUE(b.send_at(1, 1, 0x20000));   // the other SM has its own
  EXPECT_TRUE(b.send_at(611, 0, 0x20000)); // the fill at 610 freed it
}

TEST(Mmu, FaultIsServicedByTheHostThenWalkedAgain) {
  Bench b(paging(1.0));  // 1000 cycles per fault
  b.mmu.set_host_residence([](uint64_t) { return true; });
  ASSERT_TRUE(b.send_at(0, 0, 0x10000));
  ASSERT_TRUE(b.send_at(0, 1, 0x10000 + kPage));  // same migration unit, another page
  b.engine.run_until(700 * kCycle);
  EXPECT_EQ(b.mmu.faults_in_flight(), 1u);
  b.engine.run();
  // Walk done at 610, the host serves the fault until 1610, the walk is retried.
  EXPECT_EQ(b.left_at(0, 0x10000), 610u + 1000 + 500);
  EXPECT_EQ(b.left_at(1, 0x10000 + kPage), 610u + 1000 + 500);
  EXPECT_EQ(b.mmu.stats().faults.total().value(), 1u);
  EXPECT_EQ(b.mmu.stats().migrated_bytes.total().value(), kUnit);
  EXPECT_EQ(b.mmu.stats().walks.total().value(), 4u);
  EXPECT_EQ(b.mmu.faults_in_flight(), 0u);
}

// Records what the MMU tells an SM about its marked requests, by token.
struct CheckRecorder : TranslationListener {
  explicit CheckRecorder(Engine& e) : engine(e) {}
  void translated(const MemRequest& r) override { done.push_back({engine.now() / kCycle, r.token}); }
  void faulted(const MemRequest& r) override { faults.push_back({engine.now() / kCycle, r.token}); }
  Engine& engine;
  std::vector<std::pair<Cycle, uint64_t>> done, faults;
};

TEST(Mmu, MarkedRequestsHearOfTheirFaultThenOfTheirTranslation) {
  Bench b(paging(1.0));
  b.mmu.set_host_residence([](uint64_t) { return true; });
  CheckRecorder sm0(b.engine), sm1(b.engine);
  b.mmu.set_translation_listener(0, &sm0);
  b.mmu.set_translation_listener(1, &sm1);
  auto send = [&](Cycle c, uint32_t sm, uint64_t addr, uint64_t token, bool marked) {
    b.engine.run_until(c * kCycle);
    MemRequest r = read_req(addr, kAllSectors, token);
    r.check_translation = marked;
    ASSERT_TRUE(b.mmu.port(sm).can_accept(r));
    b.mmu.port(sm).accept(r);
  };
  send(0, 0, 0x10000, 1, true);
  send(0, 0, 0x10000 + 128, 2, false);     // merged into the same L1 TLB miss, not marked
  send(300, 1, 0x10000, 3, true);          // another SM: merges into the L2 TLB miss
  send(1000, 0, 0x10000 + 256, 4, true);   // after the fault: merges into the faulted L1 miss
  b.engine.run();
  // The walk ends at 610 and finds the unit on the host: the waiting marked
  // requests hear of the fault then (SM 1's at its L2 lookup, 300 + 40 + 70
  // = 410, merged before the walk's end: at 610 too); a later one at once.
  EXPECT_EQ(sm0.faults, (std::vector<std::pair<Cycle, uint64_t>>{{610, 1}, {1000, 4}}));
  EXPECT_EQ(sm1.faults, (std::vector<std::pair<Cycle, uint64_t>>{{610, 3}}));
  // Translated when the retried walk fills the TLBs: 610 + 1000 + 500.
  EXPECT_EQ(sm0.done, (std::vector<std::pair<Cycle, uint64_t>>{{2110, 1}, {2110, 4}}));
  EXPECT_EQ(sm1.done, (std::vector<std::pair<Cycle, uint64_t>>{{2110, 3}}));
}

TEST(Mmu, TheHostServesFaultsOneAtATime) {
  Bench b(paging(1.0));
  b.mmu.set_host_residence([](uint64_t) { return true; });
  ASSERT_TRUE(b.send_at(0, 0, 0x10000));
  ASSERT_TRUE(b.send_at(0, 1, 0x10000 + kUnit));  // another migration unit
  b.engine.run();
  EXPECT_EQ(b.left_at(0, 0x10000), 610u + 1000 + 500);
  EXPECT_EQ(b.left_at(1, 0x10000 + kUnit), 610u + 2000 + 500);  // its fault waits for the first
  EXPECT_EQ(b.mmu.stats().faults.total().value(), 2u);
}

TEST(Mmu, DeviceResidentPagesNeverFault) {
  Bench b(paging(1.0));
  b.mmu.set_host_residence([](uint64_t addr) { return addr < kUnit; });
  ASSERT_TRUE(b.send_at(0, 0, 0x10000 + kUnit));
  b.engine.run();
  EXPECT_EQ(b.left_at(0, 0x10000 + kUnit), 610u);
  EXPECT_EQ(b.mmu.stats().faults.total().value(), 0u);
}

// Paging beyond first-touch faults (mmu_paging.cpp): fault_us 1 us = 1000
// cycles, fault_alloc_us 0.4 us = 400, so a write-back costs 600.
VmParams oversubscribed(uint64_t units) {
  VmParams p = paging(1.0);
  p.fault_alloc_us = 0.4;
  p.device_memory_bytes = units * kUnit;
  return p;
}

TEST(MmuPaging, AUnitTheHostNeverWroteCostsTheAllocationOnlyFault) {
  Bench b(oversubscribed(0));
  b.mmu.set_host_residence([](uint64_t) { return true; });
  b.mmu.report_host_writes();
  b.mmu.host_wrote(0x20000, 1, kNoKey);  // the unit at 0x20000 has data; 0x10000 has none
  ASSERT_TRUE(b.send_at(0, 0, 0x10000));
  ASSERT_TRUE(b.send_at(0, 1, 0x20000));
  b.engine.run();
  // Both walks end at 610; the host serves 400 cycles, then 1000.
  EXPECT_EQ(b.left_at(0, 0x10000), 610u + 400 + 500);
  EXPECT_EQ(b.left_at(1, 0x20000), 610u + 400 + 1000 + 500);
  EXPECT_EQ(b.mmu.stats().faults.total().value(), 2u);
  EXPECT_EQ(b.mmu.stats().allocation_faults.total().value(), 1u);
  EXPECT_EQ(b.mmu.stats().migrated_bytes.total().value(), kUnit);
}

// vm.local_faults (thesis 6.4.2): allocation-only faults take the GPU
// handler's 0.3 us = 300 cycles each, in parallel; faults with data still
// queue at the host.
TEST(MmuPaging, LocalFaultsAreHandledInParallelAndFaultsWithDataAtTheHost) {
  VmParams p = oversubscribed(0);
  p.local_faults = true;
  p.local_fault_us = 0.3;
  Bench b(p, 3);
  b.mmu.set_host_residence([](uint64_t) { return true; });
  b.mmu.report_host_writes();
  b.mmu.host_wrote(0x30000, 1, kNoKey);  // only 0x30000 holds host data
  ASSERT_TRUE(b.send_at(0, 0, 0x10000));
  ASSERT_TRUE(b.send_at(0, 1, 0x20000));
  ASSERT_TRUE(b.send_at(0, 2, 0x30000));
  b.engine.run_until(700 * kCycle);
  EXPECT_NE(b.mmu.describe_wait().find("1 faults at the host, 2 handled on the GPU"), std::string::npos)
      << b.mmu.describe_wait();
  b.engine.run();
  // Every walk ends at 610; the two local faults overlap, the host's runs alone.
  EXPECT_EQ(b.left_at(0, 0x10000), 610u + 300 + 500);
  EXPECT_EQ(b.left_at(1, 0x20000), 610u + 300 + 500);
  EXPECT_EQ(b.left_at(2, 0x30000), 610u + 1000 + 500);
  EXPECT_EQ(b.mmu.stats().faults.total().value(), 3u);
  EXPECT_EQ(b.mmu.stats().allocation_faults.total().value(), 2u);
  EXPECT_EQ(b.mmu.stats().local_faults.total().value(), 2u);
  EXPECT_EQ(b.mmu.describe_wait(), "");
}

// Without vm.local_faults the same two allocation-only faults queue at the host.
TEST(MmuPaging, AllocationOnlyFaultsAtTheHostAreServicedOneAtATime) {
  Bench b(oversubscribed(0));
  b.mmu.set_host_residence([](uint64_t) { return true; });
  b.mmu.report_host_writes();
  ASSERT_TRUE(b.send_at(0, 0, 0x10000));
  ASSERT_TRUE(b.send_at(0, 1, 0x20000));
  b.engine.run();
  EXPECT_EQ(b.left_at(0, 0x10000), 610u + 400 + 500);
  EXPECT_EQ(b.left_at(1, 0x20000), 610u + 400 + 400 + 500);
  EXPECT_EQ(b.mmu.stats().local_faults.total().value(), 0u);
}

// A local fault that must evict waits for the host's write-back first.
TEST(MmuPaging, ALocalFaultThatEvictsWaitsForTheWriteBack) {
  VmParams p = oversubscribed(1);
  p.local_faults = true;
  p.local_fault_us = 0.3;
  Bench b(p);
  b.mmu.set_host_residence([](uint64_t) { return true; });
  b.mmu.report_host_writes();
  ASSERT_TRUE(b.send_at(0, 0, 0x10000));     // local: 610 + 300
  ASSERT_TRUE(b.send_at(3000, 1, 0x20000));  // evicts it: write-back 600 at the host, then the handler
  b.engine.run();
  EXPECT_EQ(b.left_at(1, 0x20000), 3000u + 610 + 600 + 300 + 500);
  EXPECT_EQ(b.mmu.stats().written_back_bytes.total().value(), kUnit);
}

// vm.copies_resident: a copy places its units on the device (the copy's own
// time is the transfer); a unit it never touched still faults.
TEST(MmuPaging, CopiedUnitsAreResidentAndOthersStillFault) {
  Bench b(oversubscribed(1));
  b.mmu.set_host_residence([](uint64_t) { return true; });
  b.mmu.report_host_writes();
  Mmu::Migration m = b.mmu.copied(0x10000, 100, kNoKey);
  EXPECT_EQ(m.to_device, 0u);
  EXPECT_EQ(m.to_host, 0u);
  EXPECT_EQ(b.mmu.resident_units(), 1u);
  ASSERT_TRUE(b.send_at(10, 0, 0x10000));
  b.engine.run();
  EXPECT_EQ(b.left_at(0, 0x10000), 10u + 610);  // a walk, no fault
  EXPECT_EQ(b.mmu.stats().faults.total().value(), 0u);
  // The next copy needs the only frame: the first unit, which holds host data, is written back.
  m = b.mmu.copied(0x20000, 100, kNoKey);
  EXPECT_EQ(m.to_host, kUnit);
  ASSERT_TRUE(b.send_at(2000, 0, 0x30000));  // never written: allocation-only, evicting again
  b.engine.run();
  EXPECT_EQ(b.left_at(0, 0x30000), 2000u + 610 + 600 + 400 + 500);
  EXPECT_EQ(b.mmu.stats().allocation_faults.total().value(), 1u);
  EXPECT_EQ(b.mmu.stats().prefetched_bytes.total().value(), 0u);
}

TEST(MmuPaging, AFullDeviceEvictsTheLeastRecentlyUsedUnitAndWritesItBack) {
  Bench b(oversubscribed(2));
  b.mmu.set_host_residence([](uint64_t) { return true; });
  ASSERT_TRUE(b.send_at(0, 0, 0x10000));     // A: 610 + 1000 + 500
  ASSERT_TRUE(b.send_at(3000, 0, 0x20000));  // B: from 3000
  ASSERT_TRUE(b.send_at(6000, 0, 0x30000));  // C: the device is full, A goes first
  b.engine.run();
  EXPECT_EQ(b.left_at(0, 0x30000), 6000u + 610 + 600 + 1000 + 500);
  EXPECT_EQ(b.mmu.stats().evictions.total().value(), 1u);
  EXPECT_EQ(b.mmu.stats().written_back_bytes.total().value(), kUnit);
  EXPECT_EQ(b.mmu.resident_units(), 2u);
  // A's translation was shot down: SM 0 walks again and faults, evicting B.
  ASSERT_TRUE(b.send_at(9000, 0, 0x10000 + 64));
  b.engine.run();
  EXPECT_EQ(b.left_at(0, 0x10000 + 64), 9000u + 610 + 600 + 1000 + 500);
  EXPECT_EQ(b.mmu.stats().evictions.total().value(), 2u);
  EXPECT_EQ(b.mmu.stats().faults.total().value(), 4u);
}

TEST(MmuPaging, AWalkThatFindsAUnitResidentMakesItMostRecentlyUsed) {
  Bench b(oversubscribed(2));
  b.mmu.set_host_residence([](uint64_t) { return true; });
  ASSERT_TRUE(b.send_at(0, 0, 0x10000));            // A
  ASSERT_TRUE(b.send_at(3000, 0, 0x20000));         // B
  ASSERT_TRUE(b.send_at(5500, 1, 0x10000 + kPage)); // another page of A walks at 6110: A is used
  ASSERT_TRUE(b.send_at(7000, 0, 0x30000));         // C evicts B, not A
  b.engine.run();
  EXPECT_EQ(b.left_at(1, 0x10000 + kPage), 5500u + 610);
  ASSERT_TRUE(b.send_at(10000, 0, 0x10000));  // still in SM 0's TLB: 40 cycles
  b.engine.run();
  EXPECT_EQ(b.left_at(0, 0x10000), 610u + 1000 + 500);  // the first request
  EXPECT_EQ(b.below[0].got.back().first / kCycle, 10040u);
  EXPECT_EQ(b.mmu.stats().evictions.total().value(), 1u);
  EXPECT_EQ(b.mmu.stats().faults.total().value(), 3u);
}

TEST(MmuPaging, AReadMostlyUnitTheHostHoldsIsDroppedWithoutWriteBack) {
  Bench b(oversubscribed(1));
  b.mmu.set_host_residence([](uint64_t) { return true; });
  b.mmu.set_read_mostly(0x10000, kUnit, true);
  ASSERT_TRUE(b.send_at(0, 0, 0x10000));
  ASSERT_TRUE(b.send_at(3000, 0, 0x20000));
  b.engine.run();
  EXPECT_EQ(b.left_at(0, 0x20000), 3000u + 610 + 1000 + 500);  // no write-back before the fault
  EXPECT_EQ(b.mmu.stats().evictions.total().value(), 1u);
  EXPECT_EQ(b.mmu.stats().written_back_bytes.total().value(), 0u);
}

TEST(MmuPaging, AHostWriteTakesAResidentUnitBack) {
  Bench b(oversubscribed(0));
  b.mmu.set_host_residence([](uint64_t) { return true; });
  ASSERT_TRUE(b.send_at(0, 0, 0x10000));
  b.engine.run_until(3000 * kCycle);
  EXPECT_EQ(b.mmu.resident_units(), 1u);
  Mmu::Migration m = b.mmu.host_wrote(0x10000 + 8, 4, kNoKey);
  EXPECT_EQ(m.to_host, kUnit);
  EXPECT_EQ(b.mmu.resident_units(), 0u);
  ASSERT_TRUE(b.send_at(3000, 0, 0x10000 + 64));  // shot down: walks and faults again
  b.engine.run();
  EXPECT_EQ(b.left_at(0, 0x10000 + 64), 3000u + 610 + 1000 + 500);
  EXPECT_EQ(b.mmu.stats().host_migrations.total().value(), 1u);
}

TEST(MmuPaging, APrefetchedUnitIsResidentAtOnce) {
  Bench b(oversubscribed(1));
  b.mmu.set_host_residence([](uint64_t) { return true; });
  b.mmu.report_host_writes();
  b.mmu.host_wrote(0x10000, kUnit, kNoKey);
  Mmu::Migration m = b.mmu.prefetch(0x10000, kUnit, false, kNoKey);
  EXPECT_EQ(m.to_device, kUnit);
  EXPECT_EQ(m.to_host, 0u);
  ASSERT_TRUE(b.send_at(10, 0, 0x10000));
  b.engine.run();
  EXPECT_EQ(b.left_at(0, 0x10000), 10u + 610);  // a walk, no fault
  EXPECT_EQ(b.mmu.stats().faults.total().value(), 0u);
  // A unit with no data is allocated on the device: no transfer, but it needs
  // the only frame, so the first unit is written back.
  m = b.mmu.prefetch(0x20000, 1, false, kNoKey);
  EXPECT_EQ(m.to_device, 0u);
  EXPECT_EQ(m.to_host, kUnit);
  EXPECT_EQ(b.mmu.resident_units(), 1u);
  // Back to the host: written back.
  m = b.mmu.prefetch(0x20000, 1, true, kNoKey);
  EXPECT_EQ(m.to_host, kUnit);
  EXPECT_EQ(b.mmu.resident_units(), 0u);
}

TEST(MmuPaging, ReleasedUnitsLeaveWithoutWriteBack) {
  Bench b(oversubscribed(1));
  b.mmu.set_host_residence([](uint64_t) { return true; });
  b.mmu.prefetch(0x10000, kUnit, false, kNoKey);
  b.mmu.release(0x10000, kUnit);
  EXPECT_EQ(b.mmu.resident_units(), 0u);
  Mmu::Migration m = b.mmu.prefetch(0x20000, kUnit, false, kNoKey);
  EXPECT_EQ(m.to_host, 0u);  // the frame was free
}

TEST(Mmu, RefusedHandOverWaitsForTheCrossbar) {
  Bench b;
  b.below[0].accepting = false;
  ASSERT_TRUE(b.send_at(0, 0, 0x10000));
  b.engine.run_until(700 * kCycle);
  EXPECT_TRUE(b.below[0].got.empty());
  EXPECT_NE(b.mmu.describe_wait(), "");
  b.below[0].accepting = true;
  b.engine.run();
  EXPECT_EQ(b.left_at(0, 0x10000), 701u);
  EXPECT_EQ(b.mmu.describe_wait(), "");
}

}  // namespace
}  // namespace gpumux::mem
