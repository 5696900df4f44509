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

namespace gpumux::multitask {
namespace {

// Host CPU time blocks only the program that spends it: it resumes at the
// first core cycle edge after that time, while another program's copies run
// as they would without it.
TEST(HostScheduler, HostComputeBlocksOnlyItsProgram) {
  auto copy_cycles = [](bool with_cpu_program, Cycle* resumed) {
    Config c = gtx980();
    gpu::Gpu g(c.values());
    HostScheduler hs(g);
    std::vector<Cycle> done;
    hs.spawn("gpu", 0, [&] {
      for (int i = 0; i < 3; ++i) {
        copy(hs, g, 0, 1 << 20);
        done.push_back(hs.now());
      }
    });
    if (with_cpu_program)
      hs.spawn("cpu", 0, [&] {
        hs.spend(10'000'000);  // 10 us
        *resumed = hs.now();
      });
    hs.run();
    return done;
  };
  Cycle resumed = 0;
  EXPECT_EQ(copy_cycles(true, &resumed), copy_cycles(false, nullptr));
  Config c = gtx980();
  ClockDomain core("core", c.values().clock.core_mhz);
  EXPECT_EQ(resumed, core.cycle_at_or_after(10'000'000));
  EXPECT_GT(resumed, 0u);
}

// Alone, a program's host time advances the simulation by itself.
TEST(HostScheduler, HostComputeAloneAdvancesTime) {
  Config c = gtx980();
  gpu::Gpu g(c.values());
  HostScheduler hs(g);
  std::vector<Cycle> at;
  hs.spawn("cpu", 0, [&] {
    for (int i = 0; i < 3; ++i) {
      hs.spend(1'000'000);  // 1 us
      at.push_back(hs.now());
    }
  });
  hs.run();
  ClockDomain core("core", c.values().clock.core_mhz);
  ASSERT_EQ(at.size(), 3u);
  EXPECT_EQ(at[0], core.cycle_at_or_after(1'000'000));
  EXPECT_GT(at[1], at[0]);
  EXPECT_GT(at[2], at[1]);
  EXPECT_THROW(hs.spend(1), std::logic_error);  // outside a program
}

}  // namespace
}  // namespace gpumux::multitask
