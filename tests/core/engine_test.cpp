#include "gpumux/core/engine.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

namespace gpumux {
namespace {

TEST(ClockDomain, MapsCyclesAndTicksExactly) {
  ClockDomain core("core", 1126.0);
  EXPECT_EQ(core.tick_of(0), 0u);
  EXPECT_EQ(core.tick_of(1), 889u);              // 888.1 ps rounded up
  EXPECT_EQ(core.tick_of(1126000), 1'000'000'000u);  // exactly 1 ms: no drift
  ClockDomain dram("dram", 1750.0);
  EXPECT_EQ(dram.tick_of(7), 4000u);
  for (Cycle c : {Cycle(0), Cycle(1), Cycle(2), Cycle(563), Cycle(999'999), Cycle(123'456'789'012)}) {
    SCOPED_TRACE(c);
    Tick t = core.tick_of(c);
    EXPECT_EQ(core.cycle_at_or_after(t), c);
    EXPECT_EQ(core.cycle_at(t), c);
    EXPECT_EQ(core.cycle_at(core.tick_of(c + 1) - 1), c);
    EXPECT_EQ(core.cycle_at_or_after(t + 1), c + 1);
  }
  // Huge cycle counts stay exact (128-bit path).
  ClockDomain slow("slow", 0.001);  // 1 kHz: 1e9 ps per cycle
  EXPECT_EQ(slow.tick_of(18'000'000'000), 18'000'000'000'000'000'000u);
  // Both sides of the switch from 64-bit to 128-bit arithmetic agree with
  // the definition: cycle n begins at ceil(n * 1e9 / kHz) ps.
  using Wide = unsigned __int128;
  for (const ClockDomain& d : {core, dram, ClockDomain("odd", 1365.7)}) {
    const uint64_t num = 1'000'000'000, den = d.khz();
    for (Tick t0 : {Tick(UINT64_MAX / den), Tick(UINT64_MAX / 1'000'000)}) {
      for (Tick t = t0 - 2; t != t0 + 3; ++t) {
        SCOPED_TRACE(t);
        Cycle at = d.cycle_at(t), after = d.cycle_at_or_after(t);
        EXPECT_EQ(at, Cycle(Wide(t) * den / num));
        EXPECT_TRUE(d.tick_of(at) <= t && d.tick_of(at + 1) > t);
        EXPECT_TRUE(d.tick_of(after) >= t && d.tick_of(after - 1) < t);
      }
    }
    for (Cycle c = UINT64_MAX / num - 2; c != UINT64_MAX / num + 3; ++c)
      EXPECT_EQ(d.tick_of(c), Tick((Wide(c) * num + den - 1) / den));
  }
}

// A component whose behaviour per tick is a lambda; records the cycles it saw.
class Fake : public Component {
 public:
  using Fn = std::function<Cycle(Cycle)>;
  Fake(Engine& e, DomainId d, std::string name, Fn fn) : Component(e, d, std::move(name)), fn_(std::move(fn)) {}
  Cycle tick(Cycle now) override {
    seen.push_back(now);
    return fn_(now);
  }
  std::string describe_wait() const override { return wait; }
  std::vector<Cycle> seen;
  std::string wait;

 private:
  Fn fn_;
};

TEST(Engine, BusyComponentTicksEveryCycleUntilItSleeps) {
  Engine e;
  DomainId core = e.add_domain("core", 1000.0);
  Fake f(e, core, "f", [](Cycle c) { return c < 3 ? c + 1 : kNever; });
  f.wake();
  e.run();
  EXPECT_EQ(f.seen, (std::vector<Cycle>{0, 1, 2, 3}));
  EXPECT_EQ(e.now(), 3000u);
  EXPECT_TRUE(e.idle());
}

TEST(Engine, SleepsUntilRequestedCycleAndJumpsOverIdleTime) {
  Engine e;
  DomainId core = e.add_domain("core", 1000.0);
  Fake f(e, core, "f", [](Cycle c) { return c < 2'000'000 ? c + 1'000'000 : kNever; });
  f.wake();
  e.run();
  EXPECT_EQ(f.seen, (std::vector<Cycle>{0, 1'000'000, 2'000'000}));
  EXPECT_EQ(e.edges_processed(), 3u);
  EXPECT_EQ(e.now(), 2'000'000'000u);
}

TEST(Engine, WakeTakesEffectAfterTheCurrentTickWhateverTheOrder) {
  Engine e;
  DomainId a = e.add_domain("a", 1000.0);
  DomainId b = e.add_domain("b", 1000.0);
  Fake* late = nullptr;
  Fake* other_domain = nullptr;
  Fake first(e, a, "first", [&](Cycle c) {
    if (c == 2) {
      late->wake();          // same domain, registered after
      other_domain->wake();  // other domain, same tick edges
    }
    return c < 2 ? c + 1 : kNever;
  });
  Fake second(e, a, "second", [](Cycle) { return kNever; });
  Fake third(e, b, "third", [](Cycle) { return kNever; });
  late = &second;
  other_domain = &third;
  first.wake();
  e.run();
  EXPECT_EQ(first.seen, (std::vector<Cycle>{0, 1, 2}));
  EXPECT_EQ(second.seen, (std::vector<Cycle>{3}));
  EXPECT_EQ(third.seen, (std::vector<Cycle>{3}));
}

TEST(Engine, CrossDomainWakeLandsOnTheNextEdgeOfTheTarget) {
  Engine e;
  DomainId a = e.add_domain("a", 1000.0);  // edges every 1000 ps
  DomainId b = e.add_domain("b", 1500.0);  // edges at 0, 667, 1334, 2000, 2667, 3334, ...
  Fake consumer(e, b, "consumer", [](Cycle) { return kNever; });
  Fake producer(e, a, "producer", [&](Cycle c) {
    if (c == 3) consumer.wake();  // tick 3000
    if (c == 5) consumer.wake_at(8000);
    return c < 5 ? c + 1 : kNever;
  });
  producer.wake();
  e.run();
  EXPECT_EQ(consumer.seen, (std::vector<Cycle>{5, 12}));  // ticks 3334 and 8000
  EXPECT_EQ(e.now(), 8000u);
}

TEST(Engine, EarlyWakeOverridesATimedSleepWithoutExtraTicks) {
  Engine e;
  DomainId core = e.add_domain("core", 1000.0);
  Fake sleeper(e, core, "sleeper", [](Cycle c) { return c == 0 ? 100 : kNever; });
  Fake waker(e, core, "waker", [&](Cycle c) {
    if (c == 10) sleeper.wake();
    return c < 10 ? c + 1 : kNever;
  });
  sleeper.wake();
  waker.wake();
  e.run();
  EXPECT_EQ(sleeper.seen, (std::vector<Cycle>{0, 11}));  // not 100: the plan was replaced
  EXPECT_EQ(e.now(), 11000u);
}

TEST(Engine, ComponentsOfOneEdgeRunInRegistrationOrder) {
  Engine e;
  DomainId core = e.add_domain("core", 700.0);
  std::vector<std::string> order;
  Fake x(e, core, "x", [&](Cycle c) {
    order.push_back(fmt::format("x{}", c));
    return c < 1 ? c + 1 : kNever;
  });
  Fake y(e, core, "y", [&](Cycle c) {
    order.push_back(fmt::format("y{}", c));
    return c < 1 ? c + 1 : kNever;
  });
  y.wake();
  x.wake();
  e.run();
  EXPECT_EQ(order, (std::vector<std::string>{"x0", "y0", "x1", "y1"}));
}

TEST(Engine, RunUntilStopsAtTheLimit) {
  Engine e;
  DomainId core = e.add_domain("core", 1000.0);
  Fake f(e, core, "f", [](Cycle c) { return c + 1; });
  f.wake();
  e.run_until(4500);
  EXPECT_EQ(f.seen.back(), 4u);
  EXPECT_EQ(e.now(), 4500u);
  EXPECT_EQ(e.cycle(core), 4u);
  e.run_until(6000);
  EXPECT_EQ(f.seen.back(), 6u);
}

TEST(Engine, WatchdogReportsWhatComponentsWaitFor) {
  Engine e;
  DomainId core = e.add_domain("core", 1000.0);
  e.set_watchdog(core, 50);
  Fake spinner(e, core, "l2.slice0", [](Cycle c) { return c + 1; });
  spinner.wait = "2 requests waiting for a DRAM queue slot";
  Fake idle(e, core, "idle", [](Cycle) { return kNever; });
  spinner.wake();
  try {
    e.run();
    FAIL() << "the watchdog did not fire";
  } catch (const WatchdogError& err) {
    std::string what = err.what();
    EXPECT_NE(what.find("l2.slice0 [core, next tick at cycle 52]: 2 requests waiting for a DRAM queue slot"),
              std::string::npos)
        << what;
    EXPECT_EQ(what.find("idle"), std::string::npos) << what;
  }
  EXPECT_EQ(spinner.seen.back(), 51u);
}

TEST(Engine, WatchdogQuietWhileProgressIsNotedOrEverythingSleeps) {
  Engine e;
  DomainId core = e.add_domain("core", 1000.0);
  e.set_watchdog(core, 50);
  Fake worker(e, core, "worker", [&](Cycle c) {
    if (c % 40 == 0) e.note_progress();
    return c < 1000 ? c + 1 : kNever;
  });
  Fake napper(e, core, "napper", [](Cycle c) { return c < 1000 ? c + 500 : kNever; });
  worker.wake();
  napper.wake();
  EXPECT_NO_THROW(e.run());
  EXPECT_EQ(napper.seen, (std::vector<Cycle>{0, 500, 1000}));
}

// A wake far ahead is a wait, not work: here a copy finishing at cycle 5000
// and a program arriving at cycle 200, both woken while nothing ran (gpumux
// serve with an arrival_cycle during a long copy once stopped at the arrival).
TEST(Engine, WatchdogQuietWhenWakesLieFarAhead) {
  Engine e;
  DomainId core = e.add_domain("core", 1000.0);
  e.set_watchdog(core, 50);
  Fake copy(e, core, "copy", [&](Cycle) {
    e.note_progress();
    return kNever;
  });
  copy.wait = "copy running until cycle 5000";
  Fake arrival(e, core, "arrival", [&](Cycle) {
    e.stop();
    return kNever;
  });
  copy.wake_at(e.clock(core).tick_of(5000));
  arrival.wake_at(e.clock(core).tick_of(200));
  EXPECT_NO_THROW(e.run());
  EXPECT_EQ(arrival.seen, (std::vector<Cycle>{200}));
  EXPECT_NO_THROW(e.run());
  EXPECT_EQ(copy.seen, (std::vector<Cycle>{5000}));
}

// ...but a component that spins every cycle after such a wait still stops the run.
TEST(Engine, WatchdogFiresOnSpinningAfterAFarWake) {
  Engine e;
  DomainId core = e.add_domain("core", 1000.0);
  e.set_watchdog(core, 50);
  Fake spinner(e, core, "spinner", [](Cycle c) { return c + 1; });
  spinner.wake_at(e.clock(core).tick_of(1000));
  EXPECT_THROW(e.run(), WatchdogError);
  EXPECT_EQ(spinner.seen.front(), 1000u);
  EXPECT_EQ(spinner.seen.back(), 1051u);
}

// What the engine must do, by brute force: every edge, the earliest planned
// cycle of each domain; the earliest tick wins (ties: domain order); its
// planned components tick in registration order; a wake plans the first edge
// strictly after the current tick, unless the component is planned earlier.
class BruteForceSchedule {
 public:
  struct Part {
    size_t domain;
    Cycle planned = kNever;
  };
  BruteForceSchedule(std::vector<ClockDomain> clocks, std::vector<size_t> domain_of) : clocks_(std::move(clocks)) {
    for (size_t d : domain_of) parts_.push_back({d});
  }
  void wake(size_t i, Tick t) {
    Cycle c = clocks_[parts_[i].domain].cycle_at_or_after(std::max(t, horizon_));
    parts_[i].planned = std::min(parts_[i].planned, c);
  }
  // Runs to the end; `tick(i, cycle)` returns the component's next cycle.
  template <typename TickFn>
  void run(TickFn tick) {
    for (;;) {
      size_t best_domain = clocks_.size();
      Cycle best_cycle = kNever;
      Tick best_tick = kTickMax;
      for (size_t d = 0; d < clocks_.size(); ++d) {
        Cycle c = kNever;
        for (const Part& p : parts_)
          if (p.domain == d) c = std::min(c, p.planned);
        if (c != kNever && clocks_[d].tick_of(c) < best_tick) {
          best_tick = clocks_[d].tick_of(c);
          best_cycle = c;
          best_domain = d;
        }
      }
      if (best_domain == clocks_.size()) return;
      ++edges;
      horizon_ = best_tick + 1;
      std::vector<size_t> due;
      for (size_t i = 0; i < parts_.size(); ++i)
        if (parts_[i].domain == best_domain && parts_[i].planned == best_cycle) due.push_back(i);
      for (size_t i : due) {
        parts_[i].planned = kNever;
        Cycle next = tick(i, best_cycle);
        if (next != kNever) parts_[i].planned = std::min(parts_[i].planned, std::max(next, best_cycle + 1));
      }
    }
  }
  uint64_t edges = 0;

 private:
  std::vector<ClockDomain> clocks_;
  std::vector<Part> parts_;
  Tick horizon_ = 0;
};

// Random components (busy, short and far sleeps past the engine's timing
// wheel, wakes of others now and at later ticks, early wakes replacing far
// plans) tick exactly as the brute-force schedule says.
TEST(Engine, MatchesABruteForceScheduleOnRandomComponents) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(seed);
    const std::vector<double> mhz = {1000.0, 1500.0, 700.0};
    const size_t n = 150;  // more than two bitset words in a domain
    auto domain_of = [&](size_t i) { return i % 7 == 0 ? 1 : i % 11 == 0 ? 2 : 0; };
    // Behaviour: a pure function of (seed, component, cycle), acting through `wake`.
    auto behave = [&](size_t i, Cycle c, auto&& wake, const ClockDomain& clock) -> Cycle {
      uint64_t h = (seed * 0x9E3779B97F4A7C15ull) ^ (i * 0xC2B2AE3D27D4EB4Full) ^ (c * 0x165667B19E3779F9ull);
      h ^= h >> 29;
      h *= 0xBF58476D1CE4E5B9ull;
      h ^= h >> 32;
      if (h % 3 == 0) wake((h >> 8) % n, Tick(0));
      if (h % 13 == 0) wake((h >> 16) % n, clock.tick_of(c + (h >> 24) % 400));
      if (c > 3000) return kNever;
      uint64_t kind = (h >> 40) % 16;
      if (kind == 0) return kNever;
      if (kind < 9) return c + 1;
      if (kind < 13) return c + 2 + (h >> 48) % 60;
      return c + 100 + (h >> 48) % 500;  // beyond the engine's timing wheel, sometimes
    };
    std::vector<ClockDomain> clocks;
    std::vector<size_t> domains;
    for (size_t k = 0; k < mhz.size(); ++k) clocks.emplace_back(fmt::format("d{}", k), mhz[k]);
    for (size_t i = 0; i < n; ++i) domains.push_back(domain_of(i));

    BruteForceSchedule ref(clocks, domains);
    std::vector<std::pair<size_t, Cycle>> expected;
    for (size_t i = 0; i < n; i += 3) ref.wake(i, 0);
    ref.run([&](size_t i, Cycle c) {
      expected.push_back({i, c});
      return behave(i, c, [&](size_t j, Tick t) { ref.wake(j, t); }, clocks[domains[i]]);
    });

    Engine e;
    for (size_t k = 0; k < mhz.size(); ++k) e.add_domain(fmt::format("d{}", k), mhz[k]);
    std::vector<std::unique_ptr<Fake>> parts;
    std::vector<std::pair<size_t, Cycle>> got;
    for (size_t i = 0; i < n; ++i) {
      parts.push_back(std::make_unique<Fake>(e, DomainId(domains[i]), fmt::format("c{}", i), [&, i](Cycle c) {
        got.push_back({i, c});
        return behave(
            i, c,
            [&](size_t j, Tick t) {
              if (t == 0) parts[j]->wake();
              else parts[j]->wake_at(t);
            },
            e.clock(DomainId(domains[i])));
      }));
    }
    for (size_t i = 0; i < n; i += 3) parts[i]->wake();
    e.run();
    ASSERT_GT(expected.size(), 10'000u);
    EXPECT_EQ(got, expected);
    EXPECT_EQ(e.edges_processed(), ref.edges);
  }
}

}  // namespace
}  // namespace gpumux
