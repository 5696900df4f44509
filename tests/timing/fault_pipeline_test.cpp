// The issue rules of the preemptible-fault pipelines (sm/fault_pipeline.h,
// docs/virtual-memory.md) on one warp of hand-written kernels on the
// thesis-ch6 preset, and library workloads under each pipeline.
//
// Each probe kernel reads %clock64 (the cycle its instruction issues) before
// its first global load and at three marks; the loads touch a page no TLB
// holds yet, so the first one's translation walks the page table.
#include <gtest/gtest.h>

#include <array>

#include "timing/timing_test_util.h"
#include "workload.h"

namespace gpumux::test {
namespace {

using runtime::DevPtr;

// Cycles from the clock read before the body to each of its three marks.
using Marks = std::array<uint64_t, 3>;

Marks run_probe(const std::string& body, std::vector<std::string> overrides) {
  const std::string ptx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry probe(.param .u64 out, .param .u64 data) {
  .reg .b64 %rd<16>;
  .reg .b32 %r<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [data];
  mov.u32 %r5, 5;
  mov.u64 %rd3, %clock64;
)" + body + R"(
  sub.s64 %rd10, %rd10, %rd3;
  sub.s64 %rd11, %rd11, %rd3;
  sub.s64 %rd12, %rd12, %rd3;
  st.global.u64 [%rd1], %rd10;
  st.global.u64 [%rd1+8], %rd11;
  st.global.u64 [%rd1+16], %rd12;
  ret;
}
)";
  TimedDevice d("thesis-ch6", overrides);
  runtime::Module& m = d.ctx.load_module_string(ptx, "probe");
  DevPtr out = d.ctx.malloc(24), data = d.ctx.malloc(4096);
  d.ctx.launch(m.kernel("probe"), {1}, {32}, out, data);
  d.ctx.synchronize();
  Marks r{};
  d.ctx.memcpy_d2h(r.data(), out, 24);
  return r;
}

// A load, an independent instruction (mark 0), one that overwrites the load's
// address register (WAR, mark 1), one that reads its result (RAW, mark 2).
constexpr const char* kHazards = R"(
  ld.global.u32 %r1, [%rd2];
  mov.u64 %rd10, %clock64;
  add.s64 %rd2, %rd2, 4;
  mov.u64 %rd11, %clock64;
  add.s32 %r2, %r1, 1;
  mov.u64 %rd12, %clock64;
)";

Marks hazards(const std::string& mode) { return run_probe(kHazards, {"sm.fault_pipeline.mode=" + mode}); }

// The first load's TLB check: from its issue, the LSU sends its line the next
// cycle, the L1D takes it the cycle after, looks it up after its 28-cycle
// pipeline (a miss), then the L1 TLB (40), the L2 TLB (70) and a walk (500)
// (Table 6.1), and the SM hears of the fill the cycle after.
constexpr uint64_t kFirstCheck = 1 + 1 + 28 + 40 + 70 + 500 + 1;

TEST(FaultPipeline, EachPipelinesIssueRuleOnOneLoad) {
  const Marks base = hazards("stall-on-fault");
  // The load issues the cycle before the independent instruction; the WAR one
  // issues 2 cycles after it, the RAW one when the data arrives.
  const uint64_t load = base[0] - 1;
  EXPECT_EQ(base[1], base[0] + 2);
  EXPECT_GT(base[2], load + kFirstCheck);

  // Warp disable stops the warp's fetch: once enabled, its next instruction is
  // fetched again (sm.fetch_latency, 4 cycles).
  const uint64_t fetch = 4;

  // Warp disable until commit: nothing issues before the data arrives (when the
  // baseline's RAW instruction issues: its mark is the cycle after) and is fetched.
  const Marks commit = hazards("wd-commit");
  EXPECT_EQ(commit[0], base[2] - 1 + fetch);
  EXPECT_EQ(commit[1], commit[0] + 2);
  EXPECT_EQ(commit[2], commit[0] + 4);

  // Until the last TLB check: the independent instruction issues once the
  // translation is known; the RAW one still waits for the data.
  const Marks lastcheck = hazards("wd-lastcheck");
  EXPECT_EQ(lastcheck[0], load + kFirstCheck + fetch);
  EXPECT_EQ(lastcheck[1], lastcheck[0] + 2);
  EXPECT_EQ(lastcheck[2], base[2]);

  // Replay queue: the independent instruction issues at once; the one that
  // overwrites the load's address register waits for the check.
  const Marks replay = hazards("replay-queue");
  EXPECT_EQ(replay[0], base[0]);
  EXPECT_EQ(replay[1], load + kFirstCheck + 1);
  EXPECT_EQ(replay[2], base[2]);

  // Operand log: the address is logged, nothing waits.
  EXPECT_EQ(hazards("operand-log"), base);
}

// Two loads of one page, a third, then a store (marks after the second load,
// the third and the store).
constexpr const char* kLoadsThenStore = R"(
  ld.global.u32 %r1, [%rd2];
  ld.global.u32 %r2, [%rd2+128];
  mov.u64 %rd10, %clock64;
  ld.global.u32 %r3, [%rd2+256];
  mov.u64 %rd11, %clock64;
  st.global.u32 [%rd2+512], %r5;
  mov.u64 %rd12, %clock64;
)";

Marks loads_then_store(std::vector<std::string> overrides) { return run_probe(kLoadsThenStore, overrides); }

// A later load's check: an L1 TLB hit, 40 cycles after the L1D's lookup.
constexpr uint64_t kHitCheck = 1 + 1 + 28 + 40 + 1;

TEST(FaultPipeline, ReplayQueueAndOperandLogSpace) {
  const Marks base = loads_then_store({});
  const uint64_t load1 = base[0] - 2;  // the first load's issue
  EXPECT_EQ(base[1], base[0] + 2);
  EXPECT_EQ(base[2], base[0] + 4);
  EXPECT_EQ(loads_then_store({"sm.fault_pipeline.mode=replay-queue"}), base);  // 128 entries: room

  // One replay-queue entry: each load waits for the one before to commit. The
  // first commits when the probe above's RAW instruction issues (same cycles).
  const Marks hz = hazards("stall-on-fault");
  ASSERT_EQ(hz[0] - 1, load1);
  const Marks rq1 = loads_then_store({"sm.fault_pipeline.mode=replay-queue", "sm.fault_pipeline.replay_queue=1"});
  EXPECT_EQ(rq1[0], hz[2]);
  EXPECT_GT(rq1[1], rq1[0] + kHitCheck);
  EXPECT_GT(rq1[2], rq1[1] + kHitCheck);

  // 8 KB: 32 entries over the 16 TBs a one-warp TB's kernel fits on an SM: 2 per
  // TB. The two loads take them; the third waits for their (common) check, the
  // store (2 entries) for the third's.
  const Marks log8 =
      loads_then_store({"sm.fault_pipeline.mode=operand-log", "sm.fault_pipeline.operand_log_bytes=8192"});
  EXPECT_EQ(log8[0], base[0]);
  EXPECT_EQ(log8[1], load1 + kFirstCheck + 1);
  EXPECT_EQ(log8[2], log8[1] + kHitCheck);

  // 16 KB: 4 per TB: the third load issues at once, the store waits for the first two's check.
  const Marks log16 =
      loads_then_store({"sm.fault_pipeline.mode=operand-log", "sm.fault_pipeline.operand_log_bytes=16384"});
  EXPECT_EQ(log16[1], base[1]);
  EXPECT_EQ(log16[2], load1 + kFirstCheck + 1);
}

// Library workloads pass their checks under each pipeline with translation on
// (and under demand paging), and the pipelines' statistics show their work.
struct PipelineRun {
  workloads::CheckResult check;
  Cycle cycles = 0;
  uint64_t faults = 0, disabled = 0, held = 0, replay_entries = 0, log_entries = 0, log_full = 0;
  bool registered = false;
};

PipelineRun run_pipeline(const std::string& workload, const std::string& mode, std::vector<std::string> extra = {}) {
  extra.push_back("sm.fault_pipeline.mode=" + mode);
  Config cfg = Config::build(std::string(GPUMUX_SOURCE_DIR) + "/configs/thesis-ch6.toml", extra);
  auto dev = timing::make_device(cfg.values());
  runtime::Context& ctx = dev->create_context(workload);
  PipelineRun r;
  r.check = workloads::run_workload(*workloads::find_workload(workload), ctx, workloads::Size::Tiny, 1);
  timing::TimingBackend& b = timing::backend_of(*dev);
  r.cycles = b.busy_cycles();
  const StatRegistry& s = b.gpu().stats();
  auto sum = [&](const std::string& name) { return s.sum("sm*." + name); };
  r.registered = s.find("sm0.fault_pipeline.disabled_cycles") || s.find("sm0.fault_pipeline.replay_queue.entry_cycles");
  r.faults = s.sum("vm.faults");
  r.disabled = sum("fault_pipeline.disabled_cycles");
  r.held = sum("fault_pipeline.source_hold_cycles");
  r.replay_entries = sum("fault_pipeline.replay_queue.entry_cycles");
  r.log_entries = sum("fault_pipeline.operand_log.entry_cycles");
  r.log_full = sum("fault_pipeline.operand_log.full_cycles");
  return r;
}

class FaultPipelineWorkload : public ::testing::TestWithParam<const char*> {};

TEST_P(FaultPipelineWorkload, CorrectUnderEveryPipeline) {
  const std::string name = GetParam();
  PipelineRun base = run_pipeline(name, "stall-on-fault");
  EXPECT_TRUE(base.check.passed) << base.check.detail;
  EXPECT_FALSE(base.registered);  // no pipeline statistics without a pipeline
  PipelineRun commit = run_pipeline(name, "wd-commit");
  PipelineRun lastcheck = run_pipeline(name, "wd-lastcheck");
  PipelineRun replay = run_pipeline(name, "replay-queue");
  PipelineRun log8 = run_pipeline(name, "operand-log", {"sm.fault_pipeline.operand_log_bytes=8192"});
  for (const PipelineRun* r : {&commit, &lastcheck, &replay, &log8}) {
    EXPECT_TRUE(r->check.passed) << r->check.detail;
    EXPECT_TRUE(r->registered);
  }
  EXPECT_GT(commit.disabled, 0u);
  EXPECT_GT(lastcheck.disabled, 0u);
  EXPECT_LT(lastcheck.disabled, commit.disabled);  // the check passes before the commit
  EXPECT_GT(replay.replay_entries, 0u);
  EXPECT_GT(replay.held, 0u);
  EXPECT_GT(log8.log_entries, 0u);
  EXPECT_EQ(log8.held, 0u);  // the log replaces the holds
}

INSTANTIATE_TEST_SUITE_P(Library, FaultPipelineWorkload, ::testing::Values("vecadd", "sgemm", "histo", "stencil"));

// With faults: the warp disable and the log wait for checks that a fault delays.
TEST(FaultPipelineWorkload, CorrectWithDemandPaging) {
  for (const char* mode : {"wd-lastcheck", "operand-log"}) {
    PipelineRun r = run_pipeline("histo", mode, {"vm.demand_paging=true"});
    EXPECT_TRUE(r.check.passed) << mode << ": " << r.check.detail;
    EXPECT_GT(r.faults, 0u) << mode;
  }
}

TEST(FaultPipelineConfig, InvalidSettingsAreRefused) {
  const std::string preset = std::string(GPUMUX_SOURCE_DIR) + "/configs/thesis-ch6.toml";
  auto build = [&](std::vector<std::string> o) { return Config::build(preset, o); };
  EXPECT_THROW(build({"sm.fault_pipeline.mode=replay"}), std::exception);
  // Without translation nothing can fault.
  EXPECT_THROW(build({"sm.fault_pipeline.mode=wd-commit", "vm.translation=false"}), std::exception);
  // 16 TB slots need 2 entries of 256 B each: 8 KB at least; and whole entries.
  EXPECT_THROW(build({"sm.fault_pipeline.mode=operand-log", "sm.fault_pipeline.operand_log_bytes=4096"}),
               std::exception);
  EXPECT_THROW(build({"sm.fault_pipeline.operand_log_bytes=10000"}), std::exception);
  EXPECT_NO_THROW(build({"sm.fault_pipeline.mode=operand-log", "sm.fault_pipeline.operand_log_bytes=8192"}));
}

}  // namespace
}  // namespace gpumux::test
