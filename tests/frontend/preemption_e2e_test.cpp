// End to end through the timing model: an urgent kernel arrives while a long
// low-priority kernel fills a 4-SM GPU. npq makes it wait for the SMs to be
// released; ppq takes them, preempting the low-priority TBs with its
// mechanism. Both kernels must still compute exactly their results.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "frontend/frontend_test_util.h"
#include "gpumux/frontend/tb_dispatcher.h"

namespace gpumux::frontend {
namespace {

constexpr uint32_t kThreads = 256;
// low: two waves of 32 long TBs (8 per SM); urgent: 32 short TBs, one wave.
constexpr uint32_t kLowTbs = 64, kUrgentTbs = 32;
constexpr int kLowIters = 300, kUrgentIters = 16;
constexpr Cycle kArrival = 3000;  // core cycle of the urgent launch: the first wave of low runs
constexpr uint32_t kLow = 0, kUrgent = 1;  // kernel ids (launch order)

struct Urgent {
  Urgent(const std::string& policy, const std::string& mechanism)
      : dev(policy, options(mechanism),
            {"gpu.num_sms=4", "frontend.check_invariants=true", "frontend.launch_latency=100"}, 2,
            fixtures::kTimingPtx) {
    low_out = dev.launch(0, "fma_chains", kLowTbs, kThreads, kLowIters);
    dev.run_to_cycle(kArrival);
    urgent_out = dev.launch(1, "fma_chains", kUrgentTbs, kThreads, kUrgentIters, 5);
  }
  static PolicyOptions options(const std::string& mechanism) {
    PolicyOptions o;
    o.preemption.mechanism = mechanism;
    return o;
  }
  // Runs both to completion and checks their results.
  void finish() {
    std::vector<float> low = dev.ctx[0]->read<float>(low_out, kLowTbs * kThreads);
    std::vector<float> urgent = dev.ctx[1]->read<float>(urgent_out, kUrgentTbs * kThreads);
    EXPECT_EQ(fixtures::wrong_fma_results(low, kThreads, kLowIters), 0u);
    EXPECT_EQ(fixtures::wrong_fma_results(urgent, kThreads, kUrgentIters), 0u);
    ASSERT_TRUE(dev.record(kLow).done && dev.record(kUrgent).done);
    // The urgent kernel arrived while low had TBs resident and left to place.
    ASSERT_LT(dev.record(kLow).first_tb, dev.record(kUrgent).enqueued);
  }
  Cycle urgent_turnaround() { return dev.record(kUrgent).finished - dev.record(kUrgent).enqueued; }
  const std::vector<PreemptionRecord>& preemptions() { return dev.dispatcher().preemptions(); }
  uint32_t total(uint32_t PreemptionRecord::*field) {
    uint32_t n = 0;
    for (const PreemptionRecord& r : preemptions()) n += r.*field;
    return n;
  }
  std::vector<Cycle> latencies() {
    std::vector<Cycle> v;
    for (const PreemptionRecord& r : preemptions()) v.push_back(r.latency());
    return v;
  }

  fixtures::PolicyDevice dev;
  runtime::DevPtr low_out = 0, urgent_out = 0;
};

TEST(PreemptionE2E, PpqSwitchServesTheUrgentKernelLongBeforeNpq) {
  Urgent npq("npq", "switch");
  npq.finish();
  EXPECT_TRUE(npq.preemptions().empty());
  // npq: the urgent kernel waits until low has placed its second wave and that wave has finished.
  EXPECT_GT(npq.dev.record(kUrgent).first_tb, npq.dev.record(kLow).first_tb);
  EXPECT_EQ(npq.dev.record(kLow).tbs_preempted, 0u);

  Urgent ppq("ppq", "switch");
  ppq.finish();
  ASSERT_FALSE(ppq.preemptions().empty());
  for (const PreemptionRecord& r : ppq.preemptions()) {
    EXPECT_EQ(r.kernel, kLow);
    EXPECT_EQ(r.mechanism, "switch");
    EXPECT_TRUE(r.done());
    EXPECT_EQ(r.switched, r.tbs);
    EXPECT_GT(r.bytes_saved, 0u);
    EXPECT_GE(r.requested, kArrival);
  }
  EXPECT_EQ(ppq.total(&PreemptionRecord::switched), ppq.dev.record(kLow).tbs_preempted);
  EXPECT_GT(ppq.total(&PreemptionRecord::switched), 0u);
  EXPECT_LT(ppq.dev.record(kUrgent).finished, ppq.dev.record(kLow).finished);
  EXPECT_LT(ppq.urgent_turnaround() * 3, npq.urgent_turnaround())
      << "ppq " << ppq.urgent_turnaround() << " npq " << npq.urgent_turnaround();
  RecordProperty("urgent_turnaround", std::to_string(ppq.urgent_turnaround()) + " (ppq switch) vs " +
                                          std::to_string(npq.urgent_turnaround()) + " (npq)");
}

TEST(PreemptionE2E, PpqDrainWaitsForLongTbsLongerThanASwitch) {
  Urgent drain("ppq", "drain");
  drain.finish();
  ASSERT_FALSE(drain.preemptions().empty());
  EXPECT_EQ(drain.total(&PreemptionRecord::drained), drain.total(&PreemptionRecord::tbs));
  EXPECT_GT(drain.total(&PreemptionRecord::drained), 0u);
  EXPECT_EQ(drain.total(&PreemptionRecord::switched) + drain.total(&PreemptionRecord::flushed), 0u);
  EXPECT_EQ(drain.dev.record(kLow).tbs_preempted, 0u);  // drained TBs finish, they never leave early

  Urgent sw("ppq", "switch");
  sw.finish();
  std::vector<Cycle> d = drain.latencies(), s = sw.latencies();
  ASSERT_FALSE(s.empty());
  // Low's TBs have most of their run ahead of them: finishing takes longer than saving them.
  EXPECT_GE(*std::min_element(d.begin(), d.end()), *std::max_element(s.begin(), s.end()));
  EXPECT_LT(sw.urgent_turnaround(), drain.urgent_turnaround());
}

TEST(PreemptionE2E, SmStatusTableShowsTheReservedSmAndItsNextKernel) {
  Urgent u("ppq", "drain");
  TbDispatcher& d = u.dev.dispatcher();
  Engine& engine = u.dev.gpu().engine();
  while (d.preemptions().empty()) ASSERT_TRUE(engine.step());
  const PreemptionRecord first = d.preemptions().front();
  std::vector<SmStatus> table = d.sm_status_table();
  ASSERT_EQ(table.size(), 4u);
  const SmStatus& st = table[first.sm];
  EXPECT_EQ(st.state, SmState::Reserved);
  EXPECT_EQ(st.next, int64_t(kUrgent));
  EXPECT_EQ(st.kernels, std::vector<uint32_t>{kLow});
  EXPECT_EQ(st.running_tbs, first.tbs);
  EXPECT_STREQ(sm_state_name(st.state), "reserved");
  // Once its TBs have drained the SM runs the urgent kernel.
  while (!d.preemptions().front().done()) ASSERT_TRUE(engine.step());
  while (u.dev.gpu().sm(first.sm).resident_tbs(kUrgent) == 0) ASSERT_TRUE(engine.step());
  table = d.sm_status_table();
  EXPECT_EQ(table[first.sm].state, SmState::Running);
  EXPECT_EQ(table[first.sm].next, -1);
  EXPECT_EQ(table[first.sm].kernels, std::vector<uint32_t>{kUrgent});
  u.finish();
}

}  // namespace
}  // namespace gpumux::frontend
