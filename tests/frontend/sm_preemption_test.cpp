// The SM's preemption protocol in detail (sm/preemption.h): what a context
// switch moves, that every byte saved is read back, when a TB may be flushed,
// and what a switch costs. One SM, whose TBs the dispatcher's stress option
// (frontend.preempt_every) preempts every 1000 cycles with one mechanism; the
// kernels are the hand-written ones of tests/frontend/kernels.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "frontend/frontend_test_util.h"
#include "gpumux/frontend/tb_dispatcher.h"

namespace gpumux::frontend {
namespace {

constexpr uint32_t kThreads = 256;
constexpr uint32_t kSmemBytes = 32768;  // spin_smem's shared memory per TB

// The needs of the kernel's TBs, and how often each TB left its SM early.
class PreemptionLog : public TbEventSink {
 public:
  void tb_started(uint32_t, const sm::KernelInstance& k, uint64_t, Cycle) override { needs = k.needs; }
  void tb_finished(uint32_t, const sm::KernelInstance&, uint64_t, Cycle) override {}
  void kernel_finished(const KernelRecord&) override {}
  void tb_preempted(uint32_t, const sm::KernelInstance&, uint64_t tb, Cycle) override { ++times_preempted[tb]; }

  sm::TbNeeds needs;
  std::map<uint64_t, uint32_t> times_preempted;
};

// Kernels on one SM, all of whose TBs are preempted with `mechanism` every 1000 cycles.
struct Stressed {
  explicit Stressed(const std::string& mechanism, sm::ContextSaveOptions save = {},
                    std::vector<std::string> overrides = {})
      : dev("fcfs", options(mechanism, save), with_stress(std::move(overrides)), 1, fixtures::kPreemptionPtx) {
    dev.dispatcher().set_event_sink(&log);
  }
  ~Stressed() { dev.dispatcher().set_event_sink(nullptr); }
  static std::vector<std::string> with_stress(std::vector<std::string> overrides) {
    overrides.insert(overrides.end(), {"gpu.num_sms=1", "frontend.preempt_every=1000", "frontend.launch_latency=10"});
    return overrides;
  }
  static PolicyOptions options(const std::string& mechanism, sm::ContextSaveOptions save) {
    PolicyOptions o;
    o.preemption.mechanism = mechanism;
    o.preemption.save = save;
    return o;
  }
  // Runs `kernel` to completion; the threads whose result is wrong (spin_smem adds threadIdx.x).
  size_t run(const std::string& kernel, uint32_t tbs, int iters) {
    runtime::DevPtr out = dev.launch(0, kernel, tbs, kThreads, iters);
    std::vector<float> v = dev.ctx[0]->read<float>(out, tbs * kThreads);
    return fixtures::wrong_fma_results(v, kThreads, iters, kernel == "spin_smem" ? 1.f : 0.f);
  }
  const std::vector<PreemptionRecord>& preemptions() { return dev.dispatcher().preemptions(); }
  const PreemptionRecord& first() { return preemptions().at(0); }
  uint64_t stat(const std::string& name) { return dev.gpu().stats().sum(fmt::format("sm*.preempt.{}", name)); }
  // What a switch saves of one TB whose warps all run: its registers, its
  // shared memory and each warp's state.
  uint64_t full_tb_context() {
    return uint64_t(log.needs.registers) * 4 + log.needs.shared_bytes +
           uint64_t(log.needs.warps) * dev.config.values().sm.warp_context_bytes;
  }

  fixtures::PolicyDevice dev;
  PreemptionLog log;
};

TEST(SmPreemption, ASwitchSavesRegistersSharedMemoryAndWarpState) {
  for (const char* kernel : {"spin", "spin_smem"}) {
    SCOPED_TRACE(kernel);
    const bool smem = std::string(kernel) == "spin_smem";
    const uint32_t tbs = smem ? 3 : 8;  // all that fit the SM
    Stressed full("switch");
    EXPECT_EQ(full.run(kernel, tbs, 100), 0u);
    ASSERT_EQ(full.log.needs.shared_bytes, smem ? kSmemBytes : 0u);
    ASSERT_EQ(full.log.needs.warps, kThreads / 32);
    ASSERT_EQ(full.first().switched, tbs);
    EXPECT_EQ(full.first().bytes_saved, tbs * full.full_tb_context());

    // Live registers only: less, but the shared memory and warp state are still saved.
    Stressed live("switch", {.live_registers_only = true});
    EXPECT_EQ(live.run(kernel, tbs, 100), 0u);
    ASSERT_EQ(live.first().switched, tbs);
    EXPECT_LT(live.first().bytes_saved, full.first().bytes_saved);
    const uint64_t warp_state = uint64_t(live.log.needs.warps) * live.dev.config.values().sm.warp_context_bytes;
    EXPECT_GT(live.first().bytes_saved, tbs * (live.log.needs.shared_bytes + warp_state));
  }
}

TEST(SmPreemption, EveryByteSavedIsRestored) {
  for (bool live : {false, true}) {
    SCOPED_TRACE(live ? "live registers" : "whole allocation");
    Stressed s("switch", {.live_registers_only = live});
    EXPECT_EQ(s.run("spin_smem", 3, 300), 0u);
    uint64_t switched = 0, bytes = 0;
    for (const PreemptionRecord& r : s.preemptions()) {
      switched += r.switched;
      bytes += r.bytes_saved;
    }
    EXPECT_GT(switched, 3u);  // several rounds
    EXPECT_EQ(s.stat("tbs_switched"), switched);
    EXPECT_EQ(s.stat("tbs_resumed"), switched);
    EXPECT_EQ(s.stat("context_bytes_saved"), bytes);
    EXPECT_EQ(s.stat("context_bytes_restored"), bytes);
    EXPECT_EQ(s.dev.record(0).tbs_preempted, switched);
  }
}

TEST(SmPreemption, ATbThatStoredToGlobalMemoryDrainsInsteadOfFlushing) {
  // Round-robin issue: every TB reaches its first store long before the
  // first preemption (greedy-then-oldest would starve the youngest TBs,
  // which would then rightly be flushed).
  Stressed stored("flush", {}, {"sm.warp_scheduler=lrr"});
  runtime::DevPtr out = stored.dev.launch(0, "store_first", 8, kThreads, 50);
  stored.dev.run_to_cycle(1000);
  ASSERT_TRUE(stored.preemptions().empty());
  std::vector<sm::ResidentTb> resident;
  stored.dev.gpu().sm(0).resident_tbs(0, resident);
  ASSERT_EQ(resident.size(), 8u);
  for (const sm::ResidentTb& t : resident) ASSERT_FALSE(t.idempotent) << "TB " << t.index << " has not stored yet";
  std::vector<float> v = stored.dev.ctx[0]->read<float>(out, 8 * kThreads);
  EXPECT_EQ(fixtures::wrong_fma_results(v, kThreads, 50), 0u);
  ASSERT_FALSE(stored.preemptions().empty());
  for (const PreemptionRecord& r : stored.preemptions()) {
    EXPECT_EQ(r.flushed, 0u);
    EXPECT_EQ(r.drained, r.tbs);
  }
  EXPECT_EQ(stored.stat("tbs_flushed"), 0u);
  EXPECT_TRUE(stored.log.times_preempted.empty());

  // The same loop with its only store at the end is flushed.
  Stressed idempotent("flush");
  EXPECT_EQ(idempotent.run("spin", 8, 50), 0u);
  EXPECT_EQ(idempotent.first().flushed, 8u);
  EXPECT_GT(idempotent.first().insts_discarded, 0u);
  EXPECT_EQ(idempotent.stat("insts_discarded"), idempotent.first().insts_discarded);
}

TEST(SmPreemption, AFlushedTbIsFlushedAtMostOnce) {
  Stressed s("flush");
  EXPECT_EQ(s.run("spin", 8, 50), 0u);
  ASSERT_GE(s.preemptions().size(), 2u);  // its re-runs were asked to leave again
  EXPECT_EQ(s.log.times_preempted.size(), 8u);
  for (const auto& [tb, n] : s.log.times_preempted) EXPECT_EQ(n, 1u) << "TB " << tb;
  EXPECT_EQ(s.stat("tbs_flushed"), 8u);
  uint32_t drained_reruns = 0;
  for (size_t i = 1; i < s.preemptions().size(); ++i) {
    EXPECT_EQ(s.preemptions()[i].flushed, 0u);
    drained_reruns += s.preemptions()[i].drained;
  }
  EXPECT_EQ(drained_reruns, 8u);
}

TEST(SmPreemption, ASwitchTakesLongerTheMoreContextItMoves) {
  Stressed small("switch"), large("switch");
  EXPECT_EQ(small.run("spin", 3, 100), 0u);
  EXPECT_EQ(large.run("spin_smem", 3, 100), 0u);
  ASSERT_EQ(small.first().switched, 3u);
  ASSERT_EQ(large.first().switched, 3u);
  EXPECT_EQ(large.first().bytes_saved - small.first().bytes_saved, 3u * kSmemBytes);
  // The shared memory goes out one 128 B line per cycle at best.
  EXPECT_GE(large.first().latency(), small.first().latency() + 3 * kSmemBytes / 128)
      << "small " << small.first().latency() << " large " << large.first().latency();
}

TEST(SmPreemption, ALazySaveLeavesSharedMemoryParkedAndResumesTheTbInPlace) {
  Stressed eager("switch"), lazy("switch", {.lazy_shared = true});
  EXPECT_EQ(eager.run("spin_smem", 3, 300), 0u);
  EXPECT_EQ(lazy.run("spin_smem", 3, 300), 0u);
  ASSERT_EQ(lazy.first().switched, 3u);
  // Registers and warp state only; on the GPU's one SM every TB finds its shared memory again.
  EXPECT_EQ(lazy.first().bytes_saved, 3 * (lazy.full_tb_context() - kSmemBytes));
  const uint64_t switched = lazy.stat("tbs_switched");
  EXPECT_GT(switched, 3u);
  EXPECT_EQ(lazy.stat("shared_parked"), switched);
  EXPECT_EQ(lazy.stat("shared_resumed_in_place"), switched);
  EXPECT_EQ(lazy.stat("shared_evictions"), 0u);
  EXPECT_EQ(lazy.stat("context_bytes_restored"), lazy.stat("context_bytes_saved"));
  EXPECT_EQ(eager.stat("shared_parked"), 0u);
  // Not writing 96 KB of shared memory makes the SM free sooner.
  EXPECT_LE(lazy.first().latency() + 3 * kSmemBytes / 128, eager.first().latency())
      << "lazy " << lazy.first().latency() << " eager " << eager.first().latency();
}

// A high-priority kernel needs the shared memory the switched TBs left
// parked: the SM writes it back first, and those TBs restore it when they
// resume.
TEST(SmPreemption, ParkedSharedMemoryIsWrittenBackWhenAPlacementNeedsIt) {
  PolicyOptions o;
  o.preemption.mechanism = "switch";
  o.preemption.save.lazy_shared = true;
  fixtures::PolicyDevice dev("ppq", o,
                             {"gpu.num_sms=1", "frontend.max_active_kernels=2", "frontend.launch_latency=100",
                              "frontend.check_invariants=true"},
                             2, fixtures::kPreemptionPtx);
  runtime::DevPtr low = dev.launch(0, "spin_smem", 3, kThreads, 300);
  dev.run_to_cycle(2000);
  runtime::DevPtr high = dev.launch(1, "spin_smem", 3, kThreads, 20, 5);
  std::vector<float> high_v = dev.ctx[1]->read<float>(high, 3 * kThreads);
  std::vector<float> low_v = dev.ctx[0]->read<float>(low, 3 * kThreads);
  EXPECT_EQ(fixtures::wrong_fma_results(low_v, kThreads, 300, 1.f), 0u);
  EXPECT_EQ(fixtures::wrong_fma_results(high_v, kThreads, 20, 1.f), 0u);
  ASSERT_LT(dev.record(1).finished, dev.record(0).finished)
      << "low " << dev.record(0).first_tb << ".." << dev.record(0).finished << " high " << dev.record(1).enqueued
      << " " << dev.record(1).first_tb << ".." << dev.record(1).finished << " preemptions "
      << dev.dispatcher().preemptions().size();
  auto stat = [&](const char* name) { return dev.gpu().stats().sum(fmt::format("sm*.preempt.{}", name)); };
  EXPECT_EQ(stat("tbs_switched"), 3u);
  EXPECT_EQ(stat("shared_parked"), 3u);
  // The urgent kernel's first TBs need the space; a later one may find the
  // space of an urgent TB that finished. Every parked TB either resumed in
  // place or was written back.
  EXPECT_GE(stat("shared_evictions"), 1u);
  EXPECT_EQ(stat("shared_evictions") + stat("shared_resumed_in_place"), 3u);
  // What was saved (registers and warp state, then the evicted shared memory) is all read back.
  EXPECT_EQ(stat("context_bytes_saved"), stat("context_bytes_restored"));
  EXPECT_EQ(dev.gpu().sm(0).parked_shared_bytes(), 0u);
}

}  // namespace
}  // namespace gpumux::frontend
