#include "gpumux/frontend/copy_engine.h"

#include <gtest/gtest.h>

#include "gpumux/core/config.h"

namespace gpumux::frontend {
namespace {

PcieParams params(uint32_t engines = 1) {
  PcieParams p;
  p.latency_us = 1.0;       // 1'000'000 ps
  p.bandwidth_gbps = 10.0;  // 100 ps per byte
  p.copy_engines = engines;
  p.d2d_latency_us = 0.5;
  p.d2d_bandwidth_gbps = 100.0;  // 10 ps per byte
  return p;
}

// Runs until idle, counting how many times run() returned (one stop() per
// batch of completions).
int run_all(Engine& e) {
  int runs = 0;
  while (!e.idle()) {
    e.run();
    ++runs;
  }
  return runs;
}

TEST(CopyEngine, SingleCopyTakesLatencyPlusBytesOverBandwidth) {
  Engine e;
  DomainId core = e.add_domain("core", 1000.0);  // 1000 ps cycles
  CopyEngine ce(e, core, params());
  EXPECT_EQ(ce.duration(CopyDir::HostToDevice, 10'000), 1'000'000u + 1'000'000u);
  EXPECT_EQ(ce.duration(CopyDir::DeviceToHost, 0), 1'000'000u);
  EXPECT_EQ(ce.duration(CopyDir::DeviceToDevice, 10'000), 500'000u + 100'000u);
  EXPECT_EQ(ce.duration(CopyDir::HostToDevice, 3), 1'000'300u);

  uint64_t id = ce.submit(2, CopyDir::HostToDevice, 10'000);
  EXPECT_EQ(id, 0u);
  EXPECT_FALSE(ce.done(id));
  EXPECT_FALSE(ce.idle());
  EXPECT_FALSE(ce.app_idle(2));
  EXPECT_TRUE(ce.app_idle(0));
  EXPECT_NE(ce.describe_wait(), "");
  e.run();
  ASSERT_TRUE(ce.done(id));
  const CopyRecord& r = ce.records()[id];
  EXPECT_EQ(r.app, 2u);
  EXPECT_EQ(r.bytes, 10'000u);
  EXPECT_EQ(r.submitted, 0u);
  EXPECT_EQ(r.started, 0u);
  EXPECT_EQ(r.finished, 2'000'000u);
  EXPECT_EQ(e.now(), 2'000'000u);  // ticked exactly at the finish (an edge here)
  EXPECT_TRUE(e.idle());
  EXPECT_TRUE(ce.idle());
  EXPECT_TRUE(ce.app_idle(2));
  EXPECT_EQ(ce.describe_wait(), "");
}

TEST(CopyEngine, FinishBetweenEdgesIsExactAndSeenAtTheNextEdge) {
  Engine e;
  DomainId core = e.add_domain("core", 1000.0);
  CopyEngine ce(e, core, params());
  uint64_t a = ce.submit(0, CopyDir::HostToDevice, 3);  // 1'000'300 ps
  uint64_t b = ce.submit(0, CopyDir::HostToDevice, 3);
  e.run();
  EXPECT_TRUE(ce.done(a));
  EXPECT_FALSE(ce.done(b));
  EXPECT_EQ(ce.records()[a].finished, 1'000'300u);
  EXPECT_EQ(e.now(), 1'001'000u);  // the first core edge at or after it
  EXPECT_EQ(ce.records()[b].started, 1'000'300u);  // not delayed to the edge
  e.run();
  EXPECT_EQ(ce.records()[b].finished, 2'000'600u);
}

TEST(CopyEngine, OneEngineServesCopiesFcfsWhateverTheirDirection) {
  Engine e;
  DomainId core = e.add_domain("core", 1000.0);
  CopyEngine ce(e, core, params(1));
  uint64_t a = ce.submit(0, CopyDir::HostToDevice, 10'000);  // 2 us
  uint64_t b = ce.submit(1, CopyDir::DeviceToHost, 20'000);  // 3 us
  uint64_t c = ce.submit(1, CopyDir::DeviceToDevice, 0);     // 0.5 us
  EXPECT_EQ(ce.engine_of(CopyDir::DeviceToHost), 0u);
  EXPECT_EQ(run_all(e), 3);  // stops once per completion
  const auto& r = ce.records();
  EXPECT_EQ(r[a].started, 0u);
  EXPECT_EQ(r[a].finished, 2'000'000u);
  EXPECT_EQ(r[b].submitted, 0u);
  EXPECT_EQ(r[b].started, 2'000'000u);
  EXPECT_EQ(r[b].finished, 5'000'000u);
  EXPECT_EQ(r[c].started, 5'000'000u);
  EXPECT_EQ(r[c].finished, 5'500'000u);
  for (const CopyRecord& x : r) {
    EXPECT_TRUE(x.done);
    EXPECT_EQ(x.engine, 0u);
  }
}

TEST(CopyEngine, TwoEnginesOverlapOppositeDirections) {
  Engine e;
  DomainId core = e.add_domain("core", 1000.0);
  CopyEngine ce(e, core, params(2));
  EXPECT_EQ(ce.engine_of(CopyDir::HostToDevice), 0u);
  EXPECT_EQ(ce.engine_of(CopyDir::DeviceToHost), 1u);
  EXPECT_EQ(ce.engine_of(CopyDir::DeviceToDevice), 0u);
  uint64_t h1 = ce.submit(0, CopyDir::HostToDevice, 10'000);  // 0 .. 2 us on engine 0
  uint64_t d1 = ce.submit(1, CopyDir::DeviceToHost, 20'000);  // 0 .. 3 us on engine 1
  uint64_t h2 = ce.submit(1, CopyDir::HostToDevice, 0);       // 2 .. 3 us on engine 0
  run_all(e);
  const auto& r = ce.records();
  EXPECT_EQ(r[h1].finished, 2'000'000u);
  EXPECT_EQ(r[d1].started, 0u);
  EXPECT_EQ(r[d1].finished, 3'000'000u);
  EXPECT_EQ(r[d1].engine, 1u);
  EXPECT_EQ(r[h2].started, 2'000'000u);
  EXPECT_EQ(r[h2].finished, 3'000'000u);
  EXPECT_EQ(e.now(), 3'000'000u);
}

TEST(CopyEngine, StopsTheEngineOnEachCompletion) {
  Engine e;
  DomainId core = e.add_domain("core", 1000.0);
  CopyEngine ce(e, core, params());
  uint64_t a = ce.submit(0, CopyDir::HostToDevice, 0);  // 1 us
  uint64_t b = ce.submit(0, CopyDir::HostToDevice, 0);  // 1 .. 2 us
  e.run();  // returns at the first completion although work is left
  EXPECT_EQ(e.now(), 1'000'000u);
  EXPECT_TRUE(ce.done(a));
  EXPECT_FALSE(ce.done(b));
  EXPECT_FALSE(e.idle());
  // A copy submitted later, while the engine is idle, starts at the next edge.
  e.run();
  EXPECT_TRUE(ce.done(b));
  EXPECT_TRUE(e.idle());
  uint64_t c = ce.submit(0, CopyDir::DeviceToHost, 0);
  EXPECT_EQ(ce.records()[c].submitted, 2'001'000u);
  e.run();
  EXPECT_EQ(ce.records()[c].finished, 3'001'000u);
  EXPECT_TRUE(ce.done(c));
}

// The thesis's NPQ data transfer engine: whole copies, the highest priority
// first among those waiting; the running copy is not interrupted.
TEST(CopyEngine, PriorityOrderTakesTheHighestPriorityWaitingCopy) {
  for (CopyOrder order : {CopyOrder::Fcfs, CopyOrder::Priority}) {
    Engine e;
    DomainId core = e.add_domain("core", 1000.0);
    CopyEngine ce(e, core, params());
    ce.set_ordering({order, 0});
    uint64_t a = ce.submit(0, CopyDir::HostToDevice, 10'000, 0);  // 2 us, starts at once
    uint64_t b = ce.submit(1, CopyDir::HostToDevice, 10'000, 0);  // 2 us
    uint64_t c = ce.submit(2, CopyDir::DeviceToHost, 0, 1);       // 1 us
    EXPECT_EQ(run_all(e), 3);
    const auto& r = ce.records();
    EXPECT_EQ(r[a].finished, 2'000'000u);
    EXPECT_EQ(r[c].priority, 1);
    if (order == CopyOrder::Fcfs) {
      EXPECT_EQ(r[b].started, 2'000'000u);
      EXPECT_EQ(r[b].finished, 4'000'000u);
      EXPECT_EQ(r[c].started, 4'000'000u);
      EXPECT_EQ(r[c].finished, 5'000'000u);
    } else {
      EXPECT_EQ(r[c].started, 2'000'000u);
      EXPECT_EQ(r[c].finished, 3'000'000u);
      EXPECT_EQ(r[b].started, 3'000'000u);
      EXPECT_EQ(r[b].finished, 5'000'000u);
    }
  }
}

// Chunks of 2000 B (0.2 us each): a high-priority copy submitted while a long
// one runs waits for the current chunk, not the whole copy; the latency is
// paid once per copy.
TEST(CopyEngine, ChunksLetAnUrgentCopyPassAfterOneChunk) {
  auto run = [](uint64_t chunk) {
    Engine e;
    DomainId core = e.add_domain("core", 1000.0);
    CopyEngine ce(e, core, params());
    ce.set_ordering({CopyOrder::Priority, chunk});
    ce.submit(0, CopyDir::HostToDevice, 0, 0);       // 0 .. 1 us
    ce.submit(0, CopyDir::HostToDevice, 10'000, 0);  // from 1 us: 1 us latency + 5 chunks
    e.run();                                         // returns at the first completion, 1 us
    EXPECT_EQ(e.now(), 1'000'000u);
    ce.submit(1, CopyDir::HostToDevice, 0, 1);  // submitted at the next edge, 1.001 us
    run_all(e);
    return ce.records();
  };
  std::vector<CopyRecord> chunked = run(2'000);
  EXPECT_EQ(chunked[1].started, 1'000'000u);
  EXPECT_EQ(chunked[2].submitted, 1'001'000u);
  EXPECT_EQ(chunked[2].started, 2'200'000u);   // after the first chunk: 1 us latency + 0.2 us
  EXPECT_EQ(chunked[2].finished, 3'200'000u);
  EXPECT_EQ(chunked[1].finished, 4'000'000u);  // 4 chunks left: 0.8 us
  std::vector<CopyRecord> whole = run(0);
  EXPECT_EQ(whole[1].finished, 3'000'000u);
  EXPECT_EQ(whole[2].started, 3'000'000u);  // behind the whole copy
  EXPECT_EQ(whole[2].finished, 4'000'000u);
}

// Chunks alone change nothing: a copy's time is the same in one piece or in
// chunks, and FCFS keeps the submission order.
TEST(CopyEngine, ChunkedFcfsTakesAsLongAsWholeCopies) {
  Engine e;
  DomainId core = e.add_domain("core", 1000.0);
  CopyEngine ce(e, core, params());
  ce.set_ordering({CopyOrder::Fcfs, 3'000});  // 10'000 B: chunks of 3000, 3000, 3000, 1000
  uint64_t a = ce.submit(0, CopyDir::HostToDevice, 10'000, 0);
  uint64_t b = ce.submit(1, CopyDir::HostToDevice, 10'000, 5);  // its priority does not count under fcfs
  EXPECT_EQ(run_all(e), 2);
  EXPECT_EQ(ce.records()[a].finished, 2'000'000u);
  EXPECT_EQ(ce.records()[b].started, 2'000'000u);
  EXPECT_EQ(ce.records()[b].finished, 4'000'000u);
}

TEST(CopyEngine, ParamsAreInTheGpuConfig) {
  Config c = Config::build(std::nullopt, std::vector<std::string>{"pcie.copy_engines=2", "pcie.bandwidth_gbps=24"});
  EXPECT_EQ(c.values().pcie.copy_engines, 2u);
  EXPECT_DOUBLE_EQ(c.values().pcie.bandwidth_gbps, 24.0);
  EXPECT_NE(c.dump().find("[pcie]"), std::string::npos);
  EXPECT_ANY_THROW(Config::build(std::nullopt, std::vector<std::string>{"pcie.copy_engines=3"}));

}

}  // namespace
}  // namespace gpumux::frontend
