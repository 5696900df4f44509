// TB-level event kernels with the preemption mechanisms (edge.tb_preemption,
// docs/edge.md): an event kernel of two warps with shared memory arrives
// while a background kernel of long TBs fills every warp slot. Under drain
// it waits for a background TB to finish; under switch (or flush) background
// TBs leave at once and resume later. Both kernels' results must be their
// CPU references' either way.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gpumux/core/config.h"
#include "gpumux/core/error.h"
#include "gpumux/frontend/events/event_engine.h"
#include "gpumux/frontend/preemption/mechanism.h"
#include "gpumux/gpu/gpu.h"
#include "gpumux/multitask/workload_file.h"
#include "multitask/run_test_util.h"
#include "gpumux/runtime/runtime.h"
#include "gpumux/timing/timing_backend.h"

namespace gpumux {
namespace {

using runtime::DevPtr;

// spin: each thread iterates an LCG from its global index (long TBs, one
// store at the end). mirror: an event of 64 threads; out[t] = 3 in[63 - t] + 1
// through shared memory.
constexpr const char* kPtx = R"(
.version 7.0
.target sm_80
.address_size 64

.visible .entry spin(.param .u64 out_param, .param .u32 iters_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out_param];
  ld.param.u32 %r1, [iters_param];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  mov.u32 %r6, %r5;
  mov.u32 %r7, 0;
$L_loop:
  mad.lo.s32 %r6, %r6, 1664525, 1013904223;
  add.s32 %r7, %r7, 1;
  setp.lt.u32 %p1, %r7, %r1;
  @%p1 bra $L_loop;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd2, %rd2, %rd3;
  st.global.u32 [%rd2], %r6;
  ret;
}

.visible .entry mirror(.param .u64 in_param, .param .u64 out_param)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b8 buf[256];
  ld.param.u64 %rd1, [in_param];
  ld.param.u64 %rd2, [out_param];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r2, [%rd4];
  mul.lo.s32 %r2, %r2, 3;
  mov.u32 %r3, buf;
  shl.b32 %r4, %r1, 2;
  add.s32 %r5, %r3, %r4;
  st.shared.u32 [%r5], %r2;
  bar.sync 0;
  mov.u32 %r6, 63;
  sub.s32 %r6, %r6, %r1;
  shl.b32 %r6, %r6, 2;
  add.s32 %r6, %r3, %r6;
  ld.shared.u32 %r7, [%r6];
  add.s32 %r7, %r7, 1;
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r7;
  ret;
}
)";

constexpr uint32_t kBgTbs = 6;  // 256 threads each: one fills an 8-warp SM; three waves on 2 SMs
constexpr uint32_t kIters = 3000;
constexpr uint32_t kEvents = 4;

struct Outcome {
  std::vector<uint32_t> spin, mirror;
  std::vector<frontend::EventRecord> events;
  std::vector<frontend::PreemptionRecord> preemptions;
  uint64_t tbs_switched = 0, tbs_resumed = 0;  // the SMs' statistics
};

Config edge_config(const std::vector<std::string>& overrides) {
  return Config::build(std::string(GPUMUX_SOURCE_DIR) + "/configs/edge-16sm.toml", overrides);
}

Outcome run(const std::string& tb_preemption) {
  Config c = edge_config({"gpu.num_sms=2", "gpu.num_partitions=2", "l2.size_kb=256", "sm.warp_slots=8",
                          "edge.tb_preemption=" + tb_preemption});
  std::unique_ptr<runtime::Device> dev = timing::make_device(c.values());
  runtime::Context& bg = dev->create_context("bg");
  runtime::Context& ev = dev->create_context("events");
  runtime::Module& bm = bg.load_module_string(kPtx, "tb_events.ptx");
  runtime::Module& em = ev.load_module_string(kPtx, "tb_events.ptx");
  DevPtr spin_out = bg.malloc(kBgTbs * 256 * 4);
  std::vector<uint32_t> in(kEvents * 64);
  for (uint32_t i = 0; i < in.size(); ++i) in[i] = i * 2654435761u;
  DevPtr din = ev.malloc(in.size() * 4), dout = ev.malloc(in.size() * 4);

  bg.launch(bm.kernel("spin"), {kBgTbs}, {256}, spin_out, kIters);
  runtime::Doorbell bell = ev.register_event(em.kernel("mirror"), {1}, {64}, 0, kEvents);
  std::vector<runtime::KernelArgs> blocks;
  std::vector<runtime::EventPayload> payloads;
  for (uint32_t e = 0; e < kEvents; ++e) {
    runtime::KernelArgs a;
    a.add(din + e * 256).add(dout + e * 256);
    blocks.push_back(a);
    const auto* p = reinterpret_cast<const uint8_t*>(in.data() + e * 64);
    payloads.push_back({din + e * 256, std::vector<uint8_t>(p, p + 256)});
  }
  // After the first wave has started; 3 us apart, so each event finds the SMs full.
  ev.deliver_events(bell, blocks,
                    {.kind = runtime::ArrivalProcess::Kind::Periodic, .interval_us = 3.0, .start_us = 2.0}, payloads);
  ev.wait_events(bell);
  ev.unregister_event(bell);
  bg.synchronize();
  Outcome o;
  o.spin = bg.read<uint32_t>(spin_out, kBgTbs * 256);
  o.mirror = ev.read<uint32_t>(dout, in.size());
  gpu::Gpu& g = dynamic_cast<timing::TimingBackend&>(dev->backend()).gpu();
  o.events = g.events_if_any()->records();
  o.preemptions = g.dispatcher().preemptions();
  for (uint32_t i = 0; i < g.num_sms(); ++i) {
    o.tbs_switched += g.sm(i).stats().tbs_switched.total().value();
    o.tbs_resumed += g.sm(i).stats().tbs_resumed.total().value();
  }
  return o;
}

void expect_cpu_results(const Outcome& o) {
  std::vector<uint32_t> spin(kBgTbs * 256), mirror(kEvents * 64);
  for (uint32_t t = 0; t < spin.size(); ++t) {
    uint32_t x = t;
    for (uint32_t i = 0; i < kIters; ++i) x = x * 1664525u + 1013904223u;
    spin[t] = x;
  }
  for (uint32_t e = 0; e < kEvents; ++e)
    for (uint32_t t = 0; t < 64; ++t) mirror[e * 64 + t] = (e * 64 + 63 - t) * 2654435761u * 3u + 1u;
  EXPECT_EQ(o.spin, spin) << "the background's results changed";
  EXPECT_EQ(o.mirror, mirror);
  ASSERT_EQ(o.events.size(), kEvents);
  for (const frontend::EventRecord& e : o.events) {
    EXPECT_TRUE(e.done);
    EXPECT_FALSE(e.warp_level) << "two warps with shared memory take the TB dispatcher";
  }
}

double mean_scheduling_latency(const Outcome& o) {
  double sum = 0;
  for (const frontend::EventRecord& e : o.events) sum += double(e.scheduling_latency());
  return sum / double(o.events.size());
}

TEST(EdgeTbPreemption, SwitchedBackgroundTbsResumeAndEventsStartSoonerThanDraining) {
  const Outcome drain = run("drain"), sw = run("switch");
  expect_cpu_results(drain);
  expect_cpu_results(sw);
  EXPECT_TRUE(drain.preemptions.empty()) << "draining needs no preemption request";
  EXPECT_EQ(drain.tbs_switched, 0u);
  ASSERT_FALSE(sw.preemptions.empty());
  uint64_t switched = 0;
  for (const frontend::PreemptionRecord& p : sw.preemptions) {
    EXPECT_EQ(p.mechanism, "switch");
    EXPECT_EQ(p.label, "bg.spin") << "only background TBs make room";
    switched += p.switched;
  }
  EXPECT_GT(switched, 0u);
  EXPECT_EQ(sw.tbs_switched, switched);
  EXPECT_EQ(sw.tbs_resumed, switched) << "every switched TB resumes";
  const double d = mean_scheduling_latency(drain), s = mean_scheduling_latency(sw);
  RecordProperty("drain_scheduling_latency", std::to_string(d));
  RecordProperty("switch_scheduling_latency", std::to_string(s));
  std::printf("mean scheduling latency: drain %.0f cycles, switch %.0f cycles; %zu requests, %llu TBs switched\n", d, s,
              sw.preemptions.size(), (unsigned long long)switched);
  EXPECT_LT(s * 4, d) << "switching a TB must be much quicker than waiting for a long TB to finish";
}

// flush restarts the background TBs (spin stores only at its end: its TBs
// are idempotent until then); chimera picks per TB within its budget.
class EdgeTbMechanism : public ::testing::TestWithParam<const char*> {};

TEST_P(EdgeTbMechanism, BackgroundTbsLeaveAndResultsAreUnchanged) {
  const Outcome o = run(GetParam());
  expect_cpu_results(o);
  ASSERT_FALSE(o.preemptions.empty());
  uint64_t left = 0;
  for (const frontend::PreemptionRecord& p : o.preemptions) {
    EXPECT_EQ(p.mechanism, GetParam());
    left += p.switched + p.flushed;
  }
  EXPECT_GT(left, 0u) << "no background TB left its SM before finishing";
}

INSTANTIATE_TEST_SUITE_P(FlushAndChimera, EdgeTbMechanism, ::testing::Values("flush", "chimera"));

TEST(EdgeTbPreemption, TheOptionIsValidated) {
  for (const char* bad : {"edge.tb_preemption=pause", "edge.tb_preemption=\"\""}) {
    try {
      edge_config({bad});
      ADD_FAILURE() << bad << " was accepted";
    } catch (const LoadError& e) {
      EXPECT_NE(std::string(e.what()).find("edge.tb_preemption"), std::string::npos) << e.what();
    }
  }
  try {
    edge_config({"edge.scheduling=reserve", "edge.tb_preemption=switch"});
    ADD_FAILURE() << "tb_preemption with a reservation was accepted";
  } catch (const LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("edge.tb_preemption"), std::string::npos) << e.what();
  }
  // Every allowed value is a registered mechanism, and is taken.
  const ParamInfo* p = schema_of<EdgeParams>().find_param("tb_preemption");
  ASSERT_NE(p, nullptr);
  const std::vector<std::string> mechanisms = frontend::preemption_mechanism_names();
  for (const std::string& ok : p->choices) {
    EXPECT_NE(std::find(mechanisms.begin(), mechanisms.end(), ok), mechanisms.end()) << ok;
    EXPECT_EQ(edge_config({"edge.tb_preemption=" + ok}).values().edge.tb_preemption, ok);
  }
}

// ipsec in event mode (one packet per warp per event): its S-boxes in shared
// memory make each event a TB-level kernel; beside mm filling the 8-warp SMs
// it takes its room by context switches, and both CPU checks pass.
TEST(EdgeIpsecEvents, TbLevelEventsSwitchMmAndPassTheirChecks) {
  multitask::WorkloadFile w = multitask::parse_workload(R"(
gpu = "edge-16sm"
set = ["sm.warp_slots=8", "edge.scheduling=preempt", "edge.tb_preemption=switch"]
[[app]]
benchmark = "mm"
size = "tiny"
[[app]]
benchmark = "ipsec"
size = "tiny"
events = { process = "poisson", interval_us = 1.0, count = 24 }
)", "edge-ipsec.toml");
  multitask::RunOptions o = multitask::test::no_baselines();
  multitask::RunResult r = multitask::run_workload(w, o);
  multitask::test::expect_all_passed(r);
  ASSERT_EQ(r.events.size(), 24u);
  for (const frontend::EventRecord& e : r.events) {
    EXPECT_TRUE(e.done);
    EXPECT_FALSE(e.warp_level);
  }
  uint64_t switched = 0;
  for (const frontend::PreemptionRecord& p : r.preemptions) switched += p.switched;
  EXPECT_GT(switched, 0u) << "no mm TB was switched: the test does not exercise the TB path";
}

}  // namespace
}  // namespace gpumux
