#include "gpumux/mem/dram.h"

#include <gtest/gtest.h>

#include "fake_sink.h"

namespace gpumux::mem {
namespace {

using test::RecordingSink;
using test::read_req;
using test::with_op;

constexpr Tick kCycle = 1000;

DramParams small_timing() {
  DramParams p;
  p.banks = 4;
  p.tRCD = 10;
  p.tRP = 12;
  p.tRAS = 20;
  p.tCL = 8;
  p.tWL = 3;
  p.tCCD = 1;
  p.tRRD = 4;
  p.tWR = 6;
  p.queue_size = 8;
  p.controller_latency = 0;
  return p;  // 8 B bus, 4 transfers/cycle, burst 4: one 32 B sector per column command, 1 cycle
}

struct Bench {
  explicit Bench(DramParams p = small_timing())
      : map(no_hash(), 1, p), domain(engine.add_domain("dram", 1000.0)), dram(engine, domain, "dram", p, map),
        above(engine) {
    dram.connect(&above);
  }
  static AddressMapParams no_hash() {
    AddressMapParams a;
    a.hash = PartitionHash::None;
    return a;
  }
  void send_at(Cycle c, const MemRequest& r) {
    engine.run_until(c * kCycle);
    ASSERT_TRUE(dram.can_accept(r));
    dram.accept(r);
  }
  Cycle done_cycle(size_t i) const { return above.got.at(i).first / kCycle; }

  Engine engine;
  AddressMap map;  // one partition, no hashing: bank = addr / 2048 % 4, row = addr / 8192
  DomainId domain;
  DramChannel dram;
  RecordingSink above;
};

TEST(Dram, RowMissHitAndConflictLatencies) {
  Bench b;
  const DramParams p = small_timing();
  b.send_at(0, read_req(0x0, 0x1, 1));  // bank 0 closed
  b.engine.run();
  EXPECT_EQ(b.done_cycle(0), 1 + p.tRCD + p.tCL + 1);
  b.send_at(30, read_req(0x80, 0x1, 2));  // same row: hit
  b.engine.run();
  EXPECT_EQ(b.done_cycle(1), 31 + p.tCL + 1);
  b.send_at(50, read_req(8192, 0x1, 3));  // bank 0, row 1: conflict
  b.engine.run();
  EXPECT_EQ(b.done_cycle(2), 51 + p.tRP + p.tRCD + p.tCL + 1);
  EXPECT_EQ(b.dram.stats().row_hits.total().value(), 1u);
  EXPECT_EQ(b.dram.stats().row_misses.total().value(), 1u);
  EXPECT_EQ(b.dram.stats().row_conflicts.total().value(), 1u);
  EXPECT_EQ(b.dram.stats().activates.value(), 2u);
  EXPECT_EQ(b.dram.stats().precharges.value(), 1u);
}

TEST(Dram, ControllerLatencyDelaysCompletion) {
  DramParams p = small_timing();
  p.controller_latency = 40;
  Bench b(p);
  b.send_at(0, read_req(0x0, 0x1, 1));
  b.engine.run();
  EXPECT_EQ(b.done_cycle(0), 1 + p.tRCD + p.tCL + 1 + 40);
}

TEST(Dram, FullLineTakesOneColumnPerAtomAndWritesAreAcknowledged) {
  Bench b;
  b.send_at(0, read_req(0x0, kAllSectors, 1));
  b.engine.run();
  EXPECT_EQ(b.done_cycle(0), 1 + 10 + 3 + 8 + 1);  // columns at 11..14
  EXPECT_EQ(b.dram.stats().data_cycles.value(), 4u);
  b.send_at(40, with_op(read_req(0x0, 0x1, 2), MemOp::Write));
  b.send_at(40, with_op(read_req(0x100, 0x1, 3), MemOp::Writeback));
  b.engine.run();
  ASSERT_EQ(b.above.got.size(), 2u);  // the writeback completes silently
  EXPECT_EQ(b.done_cycle(1), 41 + 3 + 1);
}

// An all-bank refresh closes every row and keeps the channel from activating
// for tRP + tRFC after it starts. A channel idle when the refresh fell due
// refreshed then: a request arriving after it has finished waits for nothing
// but the closed row; one arriving during it waits for its end.
TEST(Dram, RefreshWhileIdleClosesRowsWithoutDelayingLaterRequests) {
  DramParams p = small_timing();
  p.tREFI = 150;
  p.tRFC = 30;
  Bench b(p);
  b.send_at(0, read_req(0x0, 0x1, 1));  // opens bank 0, row 0
  b.engine.run();
  b.send_at(250, read_req(0x80, 0x1, 2));  // due at 150, done at 192: the row is closed, nothing else
  b.engine.run();
  EXPECT_EQ(b.done_cycle(1), 251 + p.tRCD + p.tCL + 1);
  EXPECT_EQ(b.dram.stats().row_misses.total().value(), 2u);
  b.send_at(310, read_req(0x100, 0x1, 3));  // during the refresh that started at 300: activates at 342
  b.engine.run();
  EXPECT_EQ(b.done_cycle(2), 300 + p.tRP + p.tRFC + p.tRCD + p.tCL + 1);
}

TEST(Dram, FrFcfsServesYoungerRowHitsFirst) {
  Bench b;
  b.send_at(0, read_req(0x0, 0x1, 1));
  b.engine.run();
  b.send_at(30, read_req(8192, 0x1, 2));  // older, conflicts with the open row
  b.send_at(30, read_req(0x40, 0x1, 3));  // younger, hits
  b.engine.run();
  ASSERT_EQ(b.above.got.size(), 3u);
  EXPECT_EQ(b.above.got[1].second.token, 3u);
  EXPECT_EQ(b.above.got[2].second.token, 2u);
  EXPECT_EQ(b.done_cycle(1), 31 + 8 + 1);
  // The precharge waits for the pending hit's column command (it issues in the
  // same cycle: tRTP is not modeled), then the conflict pays tRP + tRCD.
  EXPECT_EQ(b.done_cycle(2), 31 + 12 + 10 + 8 + 1);
}

// Keeps the queue full of `n` requests from `next_addr` and returns the cycles
// from the first accept to the last response.
template <class NextAddr>
Cycle stream(Bench& b, uint64_t n, NextAddr next_addr) {
  uint64_t sent = 0;
  Cycle c = 0;
  while (b.above.got.size() < n) {
    b.engine.run_until(c * kCycle);
    while (sent < n && b.dram.can_accept(MemRequest{})) b.dram.accept(read_req(next_addr(sent++), kAllSectors));
    ++c;
  }
  return b.done_cycle(n - 1);
}

TEST(Dram, StreamingApproachesButNeverExceedsPeakBandwidth) {
  DramParams p;  // GDDR5 timings of the GTX 980 preset
  Bench b(p);
  const uint64_t n = 4000;
  const Cycle cycles = stream(b, n, [](uint64_t i) { return i * kLineBytes; }) - p.controller_latency;
  const double peak = p.bus_bytes * p.data_rate;  // bytes per cycle
  const double achieved = double(n * kLineBytes) / double(cycles);
  EXPECT_LE(achieved, peak);
  EXPECT_GE(achieved, 0.95 * peak) << "achieved " << achieved << " of " << peak << " B/cycle";
  EXPECT_LE(b.dram.stats().data_cycles.value(), cycles);

  Bench random(p);  // a row conflict nearly every time: far below peak
  const Cycle slow = stream(random, 1000, [](uint64_t i) { return (i * 7919 % 4096) * 65536 + (i % 16) * 128; });
  EXPECT_LT(double(1000 * kLineBytes) / double(slow), 0.5 * peak);
}

}  // namespace
}  // namespace gpumux::mem
