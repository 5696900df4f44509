#include "gpumux/mem/crossbar.h"

#include <gtest/gtest.h>

#include "fake_sink.h"

namespace gpumux::mem {
namespace {

using test::RecordingSink;
using test::read_req;
using test::with_op;

constexpr Tick kCycle = 1000;

struct Bench {
  explicit Bench(IcntParams p = IcntParams{}, Crossbar::Direction dir = Crossbar::Direction::ToMemory)
      : domain(engine.add_domain("icnt", 1000.0)), xbar(engine, domain, "xbar", p, 2, 2, dir), out{RecordingSink(engine), RecordingSink(engine)} {
    xbar.connect_output(0, &out[0]);
    xbar.connect_output(1, &out[1]);
  }
  // Offers `r` to input `i` at the end of cycle `c`; false if refused.
  bool send_at(Cycle c, uint32_t i, const MemRequest& r) {
    engine.run_until(c * kCycle);
    if (!xbar.input(i).can_accept(r)) return false;
    xbar.input(i).accept(r);
    return true;
  }
  Engine engine;
  DomainId domain;
  Crossbar xbar;
  RecordingSink out[2];
};

MemRequest to_partition(uint16_t p, uint64_t token, MemOp op = MemOp::Read) {
  MemRequest r = with_op(read_req(0x1000 * token, kAllSectors, token), op);
  r.partition = p;
  return r;
}

TEST(Crossbar, HeaderOnlyPacketTakesTheLatency) {
  Bench b;  // latency 8, 32 B ports, 8 B headers
  ASSERT_TRUE(b.send_at(0, 0, to_partition(1, 1)));
  b.engine.run();
  ASSERT_EQ(b.out[1].got.size(), 1u);
  EXPECT_EQ(b.out[1].got[0].first, 9 * kCycle);  // granted at 1, arrives 8 cycles later
  EXPECT_TRUE(b.out[0].got.empty());
}

TEST(Crossbar, DataPacketsSerializeOnThePorts) {
  Bench b;
  ASSERT_TRUE(b.send_at(0, 0, to_partition(0, 1, MemOp::Write)));  // 8 + 128 B = 5 flits
  ASSERT_TRUE(b.send_at(0, 1, to_partition(0, 2)));                // same output
  b.engine.run();
  ASSERT_EQ(b.out[0].got.size(), 2u);
  EXPECT_EQ(b.out[0].got[0].first, (1 + 5 - 1 + 8) * kCycle);
  EXPECT_EQ(b.out[0].got[1].first, (6 + 8) * kCycle);  // waits for the output port until cycle 6
  EXPECT_EQ(b.xbar.stats().bytes.total().value(), 136u + 8);
  EXPECT_GT(b.xbar.stats().output_conflicts.value(), 0u);
}

TEST(Crossbar, DistinctOutputsProceedInParallel) {
  Bench b;
  ASSERT_TRUE(b.send_at(0, 0, to_partition(0, 1)));
  ASSERT_TRUE(b.send_at(0, 1, to_partition(1, 2)));
  b.engine.run();
  EXPECT_EQ(b.out[0].got.at(0).first, 9 * kCycle);
  EXPECT_EQ(b.out[1].got.at(0).first, 9 * kCycle);
}

TEST(Crossbar, BackPressureFillsBuffersThenDrainsInOrder) {
  IcntParams p;
  p.input_queue = 2;
  p.output_queue = 2;
  Bench b(p);
  b.out[0].accepting = false;
  EXPECT_TRUE(b.send_at(0, 0, to_partition(0, 1)));
  EXPECT_TRUE(b.send_at(0, 0, to_partition(0, 2)));
  EXPECT_FALSE(b.send_at(0, 0, to_partition(0, 3)));  // input queue full
  EXPECT_TRUE(b.send_at(20, 0, to_partition(0, 3)));
  EXPECT_TRUE(b.send_at(20, 0, to_partition(0, 4)));
  b.engine.run_until(40 * kCycle);
  EXPECT_FALSE(b.xbar.input(0).can_accept(to_partition(0, 5)));  // output buffer full: inputs stay queued
  EXPECT_NE(b.xbar.describe_wait().find("2 packets queued"), std::string::npos) << b.xbar.describe_wait();
  b.out[0].accepting = true;
  b.engine.run();
  ASSERT_EQ(b.out[0].got.size(), 4u);
  for (uint64_t i = 0; i < 4; ++i) EXPECT_EQ(b.out[0].got[i].second.token, i + 1);
  EXPECT_EQ(b.xbar.describe_wait(), "");
}

TEST(Crossbar, ResponsesRouteBySm) {
  Bench b(IcntParams{}, Crossbar::Direction::ToCores);
  MemRequest r = read_req(0x1000, kAllSectors, 9);
  r.sm = 1;
  r.partition = 0;
  ASSERT_TRUE(b.send_at(0, 0, r));
  b.engine.run();
  ASSERT_EQ(b.out[1].got.size(), 1u);
  EXPECT_EQ(b.out[1].got[0].first, (1 + 5 - 1 + 8) * kCycle);  // read data travels back: 5 flits
}

}  // namespace
}  // namespace gpumux::mem
