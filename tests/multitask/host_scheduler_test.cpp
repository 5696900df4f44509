// HostScheduler: concurrent host programs in simulated time, deterministic.
#include "gpumux/multitask/host_scheduler.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpumux/gpu/gpu.h"

namespace gpumux::multitask {
namespace {

Config gtx980() { return Config::build(std::string(GPUMUX_SOURCE_DIR) + "/configs/gtx980.toml", {}); }

// Copies of `bytes` each, blocking the program until done (as the timing backend does).
void copy(HostScheduler& hs, gpu::Gpu& g, uint32_t app, uint64_t bytes) {
  uint64_t id = g.copy_engine().submit(app, frontend::CopyDir::HostToDevice, bytes);
  hs.wait_until([&g, id] { return g.copy_engine().done(id); });
}

TEST(HostScheduler, ProgramsStartAtTheirArrivalCycle) {
  Config c = gtx980();
  gpu::Gpu g(c.values());
  HostScheduler hs(g);
  std::vector<Cycle> started(2, kNever);
  hs.spawn("a", 0, [&] { started[0] = hs.now(); });
  hs.spawn("b", 12345, [&] { started[1] = hs.now(); });
  hs.run();
  EXPECT_EQ(started[0], 0u);
  EXPECT_EQ(started[1], 12345u);
}

// Two programs copy at once: the copy engine serves them in FCFS order, so
// the second program's copy ends one copy later; repeated runs give the same
// cycles whatever the threads' timing.
TEST(HostScheduler, BlockingWaitsInterleaveDeterministically) {
  auto once = [] {
    Config c = gtx980();
    gpu::Gpu g(c.values());
    HostScheduler hs(g);
    std::vector<std::string> log;
    for (uint32_t app = 0; app < 2; ++app)
      hs.spawn(fmt::format("p{}", app), 0, [&, app] {
        for (int i = 0; i < 3; ++i) {
          copy(hs, g, app, 1 << 20);
          log.push_back(fmt::format("p{} copy {} at {}", app, i, hs.now()));
        }
      });
    hs.run();
    return log;
  };
  std::vector<std::string> first = once();
  ASSERT_EQ(first.size(), 6u);
  EXPECT_EQ(first[0].substr(0, 9), "p0 copy 0");
  EXPECT_EQ(first[1].substr(0, 9), "p1 copy 0");  // queued behind p0's first copy
  for (int i = 0; i < 3; ++i) EXPECT_EQ(once(), first);
}

TEST(HostScheduler, RequestStopAbandonsTheOthers) {
  Config c = gtx980();
  gpu::Gpu g(c.values());
  HostScheduler hs(g);
  bool b_finished = false;
  hs.spawn("a", 0, [&] {
    copy(hs, g, 0, 1024);
    hs.request_stop();
  });
  hs.spawn("b", 0, [&] {
    copy(hs, g, 1, 1 << 30);  // far longer than a's copy
    b_finished = true;
  });
  hs.run();
  EXPECT_TRUE(hs.stopped_early());
  EXPECT_FALSE(b_finished);
}

TEST(HostScheduler, StopsAtTheCycleLimit) {
  Config c = gtx980();
  gpu::Gpu g(c.values());
  HostScheduler hs(g);
  int copies = 0;
  hs.spawn("a", 0, [&] {
    for (;;) {
      copy(hs, g, 0, 1 << 20);
      ++copies;
    }
  });
  hs.run(1'000'000);
  EXPECT_TRUE(hs.stopped_early());
  EXPECT_GE(hs.now(), 1'000'000u);
  EXPECT_GT(copies, 0);
}

TEST(HostScheduler, WaitingForWorkThatNeverCompletesIsAnError) {
  Config c = gtx980();
  gpu::Gpu g(c.values());
  HostScheduler hs(g);
  hs.spawn("stuck", 0, [&] { hs.wait_until([] { return false; }); });
  try {
    hs.run();
    FAIL() << "expected a SimulationError";
  } catch (const gpu::SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("host program stuck: waiting"), std::string::npos) << e.what();
  }
}

TEST(HostScheduler, ProgramExceptionsPropagate) {
  Config c = gtx980();
  gpu::Gpu g(c.values());
  HostScheduler hs(g);
  hs.spawn("bad", 0, [] { throw ApiError("boom"); });
  hs.spawn("other", 0, [&] { copy(hs, g, 1, 1 << 30); });
  EXPECT_THROW(hs.run(), ApiError);
}

}  // namespace
}  // namespace gpumux::multitask
