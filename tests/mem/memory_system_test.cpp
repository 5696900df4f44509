#include "gpumux/mem/memory_system.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <ctime>
#include <functional>
#include <vector>

#include "gpumux/stats/writers.h"

namespace gpumux::mem {
namespace {

const std::filesystem::path kSourceDir = GPUMUX_SOURCE_DIR;

// A stand-in for an SM's load/store unit: sends `count` requests made by `gen`,
// at most one per cycle and `window` outstanding, and checks every response.
class FakeLsu : public Component, public MemSink {
 public:
  using Gen = std::function<MemRequest(uint64_t)>;
  FakeLsu(Engine& e, DomainId core, uint16_t sm, MemorySystem& ms, Gen gen, uint64_t count, uint32_t window)
      : Component(e, core, fmt::format("sm{}.lsu", sm)), sm_(sm), ms_(ms), gen_(std::move(gen)), count_(count),
        window_(window) {
    ms.connect_sm(sm, *this);
  }
  Cycle tick(Cycle now) override {
    if (sent_ < count_ && outstanding_ < window_ && ms_.can_accept(sm_)) {
      MemRequest r = gen_(sent_);
      r.sm = sm_;
      last_sent_ = engine().now();
      r.token = sent_++;
      ms_.send(r);
      ++outstanding_;
    }
    return sent_ < count_ && outstanding_ < window_ ? now + 1 : kNever;
  }
  std::string describe_wait() const override {
    return outstanding_ ? fmt::format("{} requests outstanding", outstanding_) : "";
  }
  bool can_accept(const MemRequest&) const override { return true; }
  void accept(const MemRequest& r) override {
    EXPECT_EQ(r.sm, sm_);
    ASSERT_LT(r.token, returned_.size());
    EXPECT_FALSE(returned_[r.token]) << "token returned twice: " << r.token;
    returned_[r.token] = true;
    ++returned_count_;
    --outstanding_;
    last_response_ = engine().now();
    engine().note_progress();
    wake();
  }
  uint64_t returned() const { return returned_count_; }
  Tick last_sent() const { return last_sent_; }
  Tick last_response() const { return last_response_; }

 private:
  uint16_t sm_;
  MemorySystem& ms_;
  Gen gen_;
  uint64_t count_;
  uint32_t window_;
  uint64_t sent_ = 0;
  Tick last_sent_ = 0, last_response_ = 0;
  uint32_t outstanding_ = 0;
  std::vector<bool> returned_ = std::vector<bool>(count_);
  uint64_t returned_count_ = 0;
};

struct Gpu {
  explicit Gpu(const std::string& preset)
      : config(Config::build(kSourceDir / "configs" / (preset + ".toml"), {})),
        clocks(add_gpu_clocks(engine, config.values().clock)),
        memory(engine, clocks, config.values(), stats) {
    engine.set_watchdog(clocks.core, config.values().sim.watchdog_cycles);
  }
  Cycle core_cycle() const { return engine.cycle(clocks.core); }

  Config config;
  Engine engine;
  GpuClocks clocks;
  StatRegistry stats;
  MemorySystem memory;
};

// Round-trip core cycles of one read of `addr` from `sm`, sent at the current time.
Cycle round_trip(Gpu& g, uint16_t sm, uint64_t addr) {
  FakeLsu lsu(g.engine, g.clocks.core, sm, g.memory, [&](uint64_t) {
    MemRequest r;
    r.addr = addr;
    r.sectors = 0x1;
    return r;
  }, 1, 1);
  lsu.wake();
  g.engine.run();
  EXPECT_EQ(lsu.returned(), 1u);
  const ClockDomain& core = g.engine.clock(g.clocks.core);
  return core.cycle_at(lsu.last_response()) - core.cycle_at(lsu.last_sent());
}

TEST(MemorySystem, LatenciesOfEachLevel) {
  Gpu g("gtx980");
  const auto& c = g.config.values();
  const Cycle dram = round_trip(g, 0, 0x10000);
  const Cycle l1 = round_trip(g, 0, 0x10000);
  const Cycle l2 = round_trip(g, 1, 0x10000);
  // The LSU sends at its first cycle, the L1 looks up in the next one.
  EXPECT_EQ(l1, 1 + c.l1d.hit_latency);
  EXPECT_GT(l2, c.l1d.hit_latency + c.l2.hit_latency + 2 * c.icnt.latency);
  EXPECT_LT(l2, dram);
  EXPECT_GT(dram, l2 + (c.dram.tRCD + c.dram.tCL) * c.clock.core_mhz / c.clock.dram_mhz);
  std::printf("gtx980 load round trips (core cycles): L1 hit %llu, L2 hit %llu, DRAM %llu\n",
              static_cast<unsigned long long>(l1), static_cast<unsigned long long>(l2),
              static_cast<unsigned long long>(dram));
  EXPECT_EQ(g.stats.sum("sm*.l1d.read_hits"), 1u);
  EXPECT_EQ(g.stats.sum("mem*.l2.read_hits"), 1u);
  EXPECT_EQ(g.stats.sum("mem*.dram.reads"), 1u);
}

// A deterministic mix of reads, writes and atomics over `lines` lines.
MemRequest mixed(uint64_t i, uint64_t seed, uint64_t lines) {
  uint64_t h = (i + 1) * 0x9e3779b97f4a7c15ull ^ seed;
  h ^= h >> 29;
  MemRequest r;
  r.addr = (h % lines) * kLineBytes;
  r.sectors = SectorMask(1u << (h >> 40 & 3)) | SectorMask((h >> 50 & 1) ? kAllSectors : 0);
  const uint64_t kind = h >> 56 & 15;
  r.op = kind < 11 ? MemOp::Read : kind < 15 ? MemOp::Write : MemOp::Atomic;
  r.size = r.op == MemOp::Atomic ? 4 : uint16_t(r.sector_count() * kSectorBytes);
  return r;
}

struct RunResult {
  Tick end;
  std::string stats_json;
};

RunResult run_mix(const std::string& preset, uint64_t per_sm, uint64_t lines) {
  Gpu g(preset);
  std::vector<std::unique_ptr<FakeLsu>> lsus;
  for (uint16_t sm = 0; sm < g.memory.num_sms(); ++sm) {
    lsus.push_back(std::make_unique<FakeLsu>(g.engine, g.clocks.core, sm, g.memory,
                                             [sm, lines](uint64_t i) { return mixed(i, sm, lines); }, per_sm, 16));
    lsus.back()->wake();
  }
  g.engine.run();
  for (const auto& l : lsus) EXPECT_EQ(l->returned(), per_sm);
  EXPECT_EQ(g.engine.describe_waits(), "  (no component holds work)\n");
  StatKeys keys;
  return RunResult{g.engine.now(), stats::to_json(g.stats, keys).dump()};
}

TEST(MemorySystem, EveryRequestReturnsOnceAndNothingLeaks) {
  for (const char* preset : {"gtx980", "titanv", "edge-16sm"}) {
    SCOPED_TRACE(preset);
    run_mix(preset, 300, 4096);
  }
}

TEST(MemorySystem, RunsAreDeterministic) {
  RunResult a = run_mix("gtx980", 200, 1 << 16);
  RunResult b = run_mix("gtx980", 200, 1 << 16);
  EXPECT_EQ(a.end, b.end);
  EXPECT_EQ(a.stats_json, b.stats_json);
}

TEST(MemorySystem, MeasuresRequestsPerHostSecond) {
  Gpu g("gtx980");
  const uint64_t per_sm = 4000;
  std::vector<std::unique_ptr<FakeLsu>> lsus;
  for (uint16_t sm = 0; sm < g.memory.num_sms(); ++sm) {
    lsus.push_back(std::make_unique<FakeLsu>(g.engine, g.clocks.core, sm, g.memory,
                                             [sm](uint64_t i) { return mixed(i, sm, 1 << 15); }, per_sm, 32));
    lsus.back()->wake();
  }
  const std::clock_t t0 = std::clock();  // CPU time: the host is shared
  g.engine.run();
  const double seconds = double(std::clock() - t0) / CLOCKS_PER_SEC;
  const double requests = double(per_sm * g.memory.num_sms());
  std::printf("memory system: %.0f requests in %.3f CPU s = %.0f requests/s (%llu core cycles, %llu component ticks)\n",
              requests, seconds, requests / seconds, static_cast<unsigned long long>(g.core_cycle()),
              static_cast<unsigned long long>(g.engine.component_ticks()));
  RecordProperty("requests_per_second", std::to_string(requests / seconds));
}

}  // namespace
}  // namespace gpumux::mem
