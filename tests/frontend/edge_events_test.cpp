// EDGE event kernels (docs/edge.md): arrival processes, the Event Kernel
// Table, and end to end on the timing model: IPv4 event warps delivered while
// a matrix multiply fills every warp slot and register of the SMs, so that
// events preempt victim warps (with and without the flush optimizations).
// Every output, the events' and the victims', must equal the functional
// backend's (the reference the timing model agrees with).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpumux/core/config.h"
#include "gpumux/frontend/events/dynamic_reservation.h"
#include "gpumux/frontend/events/event_engine.h"
#include "gpumux/multitask/workload_file.h"
#include "gpumux/gpu/gpu.h"
#include "gpumux/runtime/runtime.h"
#include "gpumux/sm/preemption.h"
#include "gpumux/timing/timing_backend.h"
#include "workload.h"

namespace gpumux {
namespace {

using runtime::ArrivalProcess;
using runtime::DevPtr;

TEST(ArrivalProcess, PeriodicPoissonAndBurstsAreDeterministic) {
  ArrivalProcess p;
  p.interval_us = 2.0;
  p.start_us = 1.0;
  auto t = runtime::arrival_times_ps(p, 4);
  EXPECT_EQ(t, (std::vector<uint64_t>{1000000, 3000000, 5000000, 7000000}));

  p.kind = ArrivalProcess::Kind::Poisson;
  p.start_us = 0;
  p.seed = 7;
  auto a = runtime::arrival_times_ps(p, 4000), b = runtime::arrival_times_ps(p, 4000);
  EXPECT_EQ(a, b);
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
  double mean_us = double(a.back()) / 3999 / 1e6;
  EXPECT_NEAR(mean_us, 2.0, 0.1);
  p.seed = 8;
  EXPECT_NE(runtime::arrival_times_ps(p, 10), runtime::arrival_times_ps({.kind = ArrivalProcess::Kind::Poisson,
                                                                         .interval_us = 2.0, .seed = 7}, 10));

  p.kind = ArrivalProcess::Kind::Bursts;
  p.burst = 3;
  p.burst_gap_ns = 10;
  p.interval_us = 1;
  auto c = runtime::arrival_times_ps(p, 6);
  EXPECT_EQ(c, (std::vector<uint64_t>{0, 10000, 20000, 1000000, 1010000, 1020000}));
}

// Valid IPv4 headers (big-endian words) with a correct checksum.
std::vector<uint32_t> headers(workloads::Rng& rng, size_t n) {
  std::vector<uint32_t> h;
  for (size_t i = 0; i < n; ++i) {
    uint32_t w[5] = {0x45000000u | (40 + rng.below(1460)), rng.u32() & 0xffff4000u,
                     (2 + rng.below(60)) << 24 | 6u << 16, rng.u32(), rng.u32()};
    uint32_t sum = 0;
    for (uint32_t x : w) sum += (x >> 16) + (x & 0xffff);
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    w[2] |= ~sum & 0xffff;
    for (uint32_t x : w) h.push_back(__builtin_bswap32(x));
  }
  return h;
}

struct Outputs {
  std::vector<float> c;                    // the background's result
  std::vector<uint32_t> hops, hdr;         // the events' results
  std::vector<uint32_t> completions;       // the completion queue
  std::vector<frontend::EventRecord> events;
};

constexpr int kN = 128;  // mm: 64 TBs of 16x16 threads, 32 registers: fill every warp slot and register of 2 SMs
constexpr uint32_t kEvents = 24;
constexpr int kVecN = 1 << 17;  // vecadd: 512 TBs of 256 threads, 16 registers

enum class Background { Mm, VecAdd };

// A background kernel launched, then IPv4 events of 32 packets delivered by
// a "NIC" every 0.3 us, each event's headers written by the NIC itself (the
// event payload); `dev` null: the functional backend. mm (32 registers per
// thread) covers an event's registers (ipv4: 24); vecadd (16) does not.
// `midway`, if any, runs on the timing backend once the events are delivered.
Outputs run(std::unique_ptr<runtime::Device> dev, Background background = Background::Mm,
            const std::function<void(timing::TimingBackend&)>& midway = {}, double start_us = 10.0) {
  runtime::Context& bg = dev->create_context("bg");
  runtime::Context& ev = dev->create_context("ipv4");
  const char* bg_name = background == Background::Mm ? "mm" : "vecadd";
  runtime::Module& bm = bg.load_module_string(std::string(workloads::find_workload(bg_name)->ptx), "bg.ptx");
  runtime::Module& ip = ev.load_module_string(std::string(workloads::find_workload("ipv4")->ptx), "ipv4.ptx");
  workloads::Rng rng(3);
  const int n = background == Background::Mm ? kN * kN : kVecN;
  std::vector<float> a(n), b(n);
  for (float& x : a) x = rng.uniform(-1, 1);
  for (float& x : b) x = rng.uniform(-1, 1);
  DevPtr da = bg.malloc_copy(a), db = bg.malloc_copy(b), dc = bg.malloc(uint64_t(n) * 4);
  std::vector<uint32_t> level16(65536), level24(256 * 64), level32(256 * 16);
  for (uint32_t& x : level16) x = rng.below(8) == 0 ? 0x80000000u | rng.below(64) : 1 + rng.below(1000);
  for (uint32_t& x : level24) x = rng.below(4) == 0 ? 0x80000000u | rng.below(16) : rng.below(1000);
  for (uint32_t& x : level32) x = rng.below(1000);
  std::vector<uint32_t> hdr = headers(rng, kEvents * 32);
  DevPtr l16 = ev.malloc_copy(level16), l24 = ev.malloc_copy(level24), l32 = ev.malloc_copy(level32);
  DevPtr dh = ev.malloc(kEvents * 32 * 20), dhops = ev.malloc(kEvents * 32 * 4);

  if (background == Background::Mm) bg.launch(bm.kernel("mm"), {kN / 16, kN / 16}, {16, 16}, da, db, dc, kN);
  runtime::Doorbell bell = ev.register_event(ip.kernel("ipv4_forward"), {1}, {32}, 0, 8);
  std::vector<runtime::KernelArgs> blocks;
  std::vector<runtime::EventPayload> payloads;
  for (uint32_t e = 0; e < kEvents; ++e) {
    runtime::KernelArgs k;
    k.add(dh + uint64_t(e) * 32 * 20).add(l16).add(l24).add(l32).add(dhops + uint64_t(e) * 32 * 4).add(int32_t(32));
    blocks.push_back(k);
    const auto* p = reinterpret_cast<const uint8_t*>(hdr.data() + size_t(e) * 32 * 5);
    payloads.push_back({dh + uint64_t(e) * 32 * 20, std::vector<uint8_t>(p, p + 32 * 20)});
  }
  // vecadd is short: launched last, it runs in full when the first events arrive.
  if (background == Background::VecAdd) bg.launch(bm.kernel("vecadd"), {kVecN / 256}, {256}, da, db, dc, kVecN);
  ev.deliver_events(bell, blocks, {.kind = ArrivalProcess::Kind::Periodic, .interval_us = 0.3, .start_us = start_us},
                    payloads);
  if (midway) midway(dynamic_cast<timing::TimingBackend&>(dev->backend()));
  ev.wait_events(bell);
  Outputs o;
  o.completions = ev.read<uint32_t>(bell.completion_queue, bell.slots);
  ev.unregister_event(bell);
  bg.synchronize();
  o.c = bg.read<float>(dc, uint64_t(n));
  o.hops = ev.read<uint32_t>(dhops, kEvents * 32);
  o.hdr = ev.read<uint32_t>(dh, kEvents * 32 * 5);
  if (auto* tb = dynamic_cast<timing::TimingBackend*>(&dev->backend()))
    if (const frontend::EventEngine* e = tb->gpu().events_if_any()) o.events = e->records();
  return o;
}

std::unique_ptr<runtime::Device> timing_device(std::vector<std::string> overrides) {
  overrides.push_back("gpu.num_sms=2");
  overrides.push_back("gpu.num_partitions=2");
  overrides.push_back("l2.size_kb=256");
  Config c = Config::build(std::string(GPUMUX_SOURCE_DIR) + "/configs/edge-16sm.toml", overrides);
  return timing::make_device(c.values());
}

class EdgePreemption : public ::testing::TestWithParam<std::vector<std::string>> {};

TEST_P(EdgePreemption, EventsAndVictimsComputeWhatTheFunctionalModelDoes) {
  static const Outputs want = run(std::make_unique<runtime::Device>(runtime::DeviceLimits{}));
  Outputs got = run(timing_device(GetParam()));
  EXPECT_EQ(got.c, want.c) << "the victims' results changed";
  EXPECT_EQ(got.hops, want.hops);
  EXPECT_EQ(got.hdr, want.hdr);
  EXPECT_EQ(got.completions, std::vector<uint32_t>(8, 1u));
  ASSERT_EQ(got.events.size(), kEvents);
  size_t preempting = 0, saved = 0;
  for (const frontend::EventRecord& e : got.events) {
    EXPECT_TRUE(e.done);
    EXPECT_TRUE(e.warp_level);
    EXPECT_LE(e.arrival, e.rung);
    EXPECT_LT(e.rung, e.launched);
    EXPECT_LE(e.launched, e.started);
    EXPECT_LT(e.started, e.finished);
    if (!e.warp.preempted) continue;
    ++preempting;
    saved += e.warp.saved_registers;
    // A save is 24 lines (IPv4's 24 registers per thread). It shares the SM's
    // port to L1 with mm's loads, which keep that port busy: taking turns it
    // needs a few memory round trips (at most 543 cycles here), where strict
    // priority for the loads made it wait up to 18.7K cycles.
    EXPECT_LT(e.warp.waits[unsigned(sm::PreemptWait::Save)], 2000u) << "a register save starved: " << e.warp.victim;
    // The breakdown accounts for the whole wait for the victim.
    EXPECT_EQ(e.warp.preemption_latency(), e.warp.started - e.warp.submitted) << e.warp.victim;
  }
  EXPECT_GT(preempting, 0u) << "no event preempted a warp: the test does not exercise preemption";
  EXPECT_GT(saved, 0u) << "the register file is full: victims' registers must go through memory";
}

INSTANTIATE_TEST_SUITE_P(
    FlushOptions, EdgePreemption,
    ::testing::Values(std::vector<std::string>{"edge.victim=oldest"},
                      std::vector<std::string>{"edge.victim=newest"},
                      std::vector<std::string>{"edge.victim=oldest", "edge.raise_victim_priority=false",
                                               "edge.flush_ibuffer=false", "edge.skip_barrier=false",
                                               "edge.replay_loads=false"}));

// free_registers_beyond_victim: vecadd's warps (16 registers per thread)
// cannot give an IPv4 event warp (24) their registers, but with the option an
// event preempts one of them and takes free registers of the register file.
// Without it no event preempts. Either way every result is the functional
// model's.
TEST(EdgeFreeRegisters, EventsPreemptWarpsWithFewerRegistersOnlyWithTheOption) {
  static const Outputs want = run(std::make_unique<runtime::Device>(runtime::DeviceLimits{}), Background::VecAdd);
  for (bool beyond : {false, true}) {
    SCOPED_TRACE(beyond ? "with the option" : "without the option");
    // vecadd's warps end at different times, so an event often finds a free
    // slot: the events start at several phases of the background.
    size_t preempting = 0;
    for (double start_us : {10.0, 10.37, 10.71, 11.13}) {
      // 16 warp slots: two vecadd TBs fill an SM and use an eighth of its registers.
      Outputs got =
          run(timing_device({"sm.warp_slots=16", fmt::format("edge.free_registers_beyond_victim={}", beyond)}),
              Background::VecAdd, {}, start_us);
      EXPECT_EQ(got.c, want.c) << "the victims' results changed";
      EXPECT_EQ(got.hops, want.hops);
      EXPECT_EQ(got.hdr, want.hdr);
      ASSERT_EQ(got.events.size(), kEvents);
      for (const frontend::EventRecord& e : got.events) {
        EXPECT_TRUE(e.done);
        preempting += e.warp.preempted;
        EXPECT_FALSE(e.warp.saved_registers) << "free registers were available";
      }
    }
    if (beyond)
      EXPECT_GT(preempting, 0u) << "no event preempted: the test does not exercise the option";
    else
      EXPECT_EQ(preempting, 0u) << "a victim with fewer registers than the event was preempted";
  }
}

// A TB-level context switch of every mm TB of an SM while one of its warps
// is held by an event warp: the TB lending the warp is drained instead (the
// others are switched); no event is lost and every result is unchanged.
TEST(EdgeVictimGuard, ATbLendingAWarpToAnEventIsDrainedNotSwitched) {
  static const Outputs want = run(std::make_unique<runtime::Device>(runtime::DeviceLimits{}));
  bool requested = false;
  uint64_t drained_before = 0, drained_after = 0;
  Outputs got = run(timing_device({}), Background::Mm, [&](timing::TimingBackend& tb) {
    gpu::Gpu& g = tb.gpu();
    auto holding = [&]() -> int {
      for (uint32_t i = 0; i < g.num_sms(); ++i)
        if (g.sm(i).describe_wait().find("preempted by an event warp") != std::string::npos) return int(i);
      return -1;
    };
    g.run_until([&] { return holding() >= 0 || g.events().idle(1); });
    const int s = holding();
    ASSERT_GE(s, 0) << "no event held a victim warp";
    std::vector<sm::ResidentTb> tbs;
    g.sm(uint32_t(s)).resident_tbs(g.dispatcher().records().front().id, tbs);
    ASSERT_FALSE(tbs.empty());
    for (const sm::ResidentTb& r : tbs) drained_before += r.draining;
    for (const sm::ResidentTb& r : tbs) g.sm(uint32_t(s)).preempt_tb(r.slot, sm::PreemptAction::Switch, {});
    g.sm(uint32_t(s)).resident_tbs(g.dispatcher().records().front().id, tbs);
    for (const sm::ResidentTb& r : tbs) drained_after += r.draining;
    requested = true;
  });
  ASSERT_TRUE(requested);
  EXPECT_EQ(drained_before, 0u);
  EXPECT_GE(drained_after, 1u) << "the TB lending its warp was not drained";
  EXPECT_EQ(got.c, want.c) << "the victims' results changed";
  EXPECT_EQ(got.hops, want.hops);
  EXPECT_EQ(got.hdr, want.hdr);
  EXPECT_EQ(got.completions, std::vector<uint32_t>(8, 1u));
  ASSERT_EQ(got.events.size(), kEvents);
  for (const frontend::EventRecord& e : got.events) EXPECT_TRUE(e.done);
}

// reserve-dynamic: the reservation grows with the events rung in a window
// and shrinks back when they stop, within [1, reserved_fraction of the SMs].
TEST(DynamicReservation, FollowsTheEventRateWithinItsBounds) {
  EdgeParams p;
  p.reserve_window_us = 1.0;  // 700 cycles at 700 MHz
  p.events_per_reserved_sm = 2.0;
  p.reserved_fraction = 0.5;
  frontend::DynamicReservation r(p, 16, 700.0);
  EXPECT_EQ(r.reserved(), 1u);
  EXPECT_EQ(r.mask(), std::vector<bool>({false, false, false, false, false, false, false, false, false, false, false,
                                         false, false, false, false, true}));
  for (int i = 0; i < 5; ++i) r.event_rung();
  EXPECT_EQ(r.next_update(), 700u);
  EXPECT_TRUE(r.update(700));  // 5 events in a window: 3 SMs
  EXPECT_EQ(r.reserved(), 3u);
  for (int i = 0; i < 100; ++i) r.event_rung();
  EXPECT_TRUE(r.update(1400));  // at most half the SMs
  EXPECT_EQ(r.reserved(), 8u);
  for (int i = 0; i < 8; ++i) r.event_rung();
  EXPECT_TRUE(r.update(3500));  // 8 events over 3 windows: 2.67 per window, 2 SMs
  EXPECT_EQ(r.reserved(), 2u);
  EXPECT_TRUE(r.update(4200));  // none: the floor of one SM
  EXPECT_EQ(r.reserved(), 1u);
  EXPECT_FALSE(r.update(4900));
}

TEST(DynamicReservation, EventsAndBackgroundComputeWhatTheFunctionalModelDoes) {
  static const Outputs want = run(std::make_unique<runtime::Device>(runtime::DeviceLimits{}));
  // Up to both SMs reserved while events arrive; back to one after them, so that mm finishes.
  Outputs got = run(timing_device({"edge.scheduling=reserve-dynamic", "edge.reserve_window_us=0.5",
                                   "edge.events_per_reserved_sm=1", "edge.reserved_fraction=1"}));
  EXPECT_EQ(got.c, want.c);
  EXPECT_EQ(got.hops, want.hops);
  EXPECT_EQ(got.hdr, want.hdr);
  ASSERT_EQ(got.events.size(), kEvents);
  for (const frontend::EventRecord& e : got.events) {
    EXPECT_TRUE(e.done);
    EXPECT_FALSE(e.warp_level) << "reserved SMs run event kernels as TBs";
  }
}

TEST(EventPayload, APayloadOutsideAnAllocationOrOfTheWrongCountIsRefused) {
  auto dev = timing_device({});
  runtime::Context& ctx = dev->create_context("ipv4");
  runtime::Module& ip = ctx.load_module_string(std::string(workloads::find_workload("ipv4")->ptx), "ipv4.ptx");
  runtime::Doorbell bell = ctx.register_event(ip.kernel("ipv4_forward"), {1}, {32}, 0, 4);
  DevPtr buf = ctx.malloc(640);
  runtime::KernelArgs k;
  k.add(buf).add(buf).add(buf).add(buf).add(buf).add(int32_t(0));
  EXPECT_THROW(ctx.deliver_events(bell, {k}, {}, {{buf + 600, std::vector<uint8_t>(64)}}), ApiError);
  EXPECT_THROW(ctx.deliver_events(bell, {k, k}, {}, {{buf, std::vector<uint8_t>(64)}}), ApiError);
  ctx.unregister_event(bell);
}

TEST(EdgeLaunchPath, EdgeLaunchesFasterThanTheCpuPath) {
  auto launch_latency = [](const std::string& path) {
    Outputs o = run(timing_device({"edge.launch_path=" + path}));
    return o.events.front().launch_latency();
  };
  // 700 MHz: EDGE 300 cycles + 700 ns (490 cycles); CPU 5 us (3500 cycles).
  EXPECT_EQ(launch_latency("edge"), 790u);
  EXPECT_EQ(launch_latency("cpu"), 3500u);
}

TEST(EventKernelTable, RegistrationBeyondItsEntriesIsRefused) {
  auto dev = timing_device({"edge.ekt_entries=1"});
  runtime::Context& ctx = dev->create_context("ipv4");
  runtime::Module& ip = ctx.load_module_string(std::string(workloads::find_workload("ipv4")->ptx), "ipv4.ptx");
  runtime::Doorbell first = ctx.register_event(ip.kernel("ipv4_forward"), {1}, {32}, 0, 4);
  EXPECT_THROW(ctx.register_event(ip.kernel("ipv4_forward"), {1}, {32}, 0, 4), ApiError);
  ctx.unregister_event(first);
  EXPECT_NO_THROW(ctx.register_event(ip.kernel("ipv4_forward"), {1}, {32}, 0, 4));
  EXPECT_THROW(ctx.register_event(ip.kernel("ipv4_forward"), {1}, {32}, 0, 0), ApiError);
}

}  // namespace
}  // namespace gpumux

namespace gpumux {
namespace {

TEST(EventSourceInWorkloadFile, ParsesAndRejectsBadValues) {
  multitask::WorkloadFile w = multitask::parse_workload(R"(
gpu = "edge-16sm"
[[app]]
benchmark = "ipv4"
events = { process = "bursts", interval_us = 4.0, burst = 8, count = 16 }
)", "w.toml");
  ASSERT_TRUE(w.apps[0].events.has_value());
  EXPECT_EQ(w.apps[0].events->kind, runtime::ArrivalProcess::Kind::Bursts);
  EXPECT_EQ(w.apps[0].events->burst, 8u);
  EXPECT_EQ(w.apps[0].events->events, 16u);
  EXPECT_NE(w.apps[0].identity().find("events bursts"), std::string::npos);
  for (const char* bad : {"events = { process = \"uniform\" }", "events = { interval_us = 0 }",
                          "events = { process = \"poisson\", burst = 2 }", "events = { rate = 1 }"}) {
    try {
      multitask::parse_workload(fmt::format("gpu = \"edge-16sm\"\n[[app]]\nbenchmark = \"ipv4\"\n{}\n", bad), "w.toml");
      ADD_FAILURE() << bad << " was accepted";
    } catch (const LoadError& e) {
      EXPECT_NE(std::string(e.what()).find("w.toml:4"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace gpumux
