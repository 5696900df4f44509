// The quota schemes of Wang et al. (ISCA'17 3.4-3.5) and the Spart manager,
// driven with hand-made epoch samples: the quotas (or SM counts) they set.
#include <gtest/gtest.h>

#include <map>
#include <utility>

#include "gpumux/gpu/qos/qos_manager.h"

namespace gpumux::gpu {
namespace {

// Records what a manager sets.
struct Recorder : QuotaControl {
  std::map<std::pair<uint32_t, uint32_t>, std::pair<int64_t, bool>> quotas;  // (sm, kernel) -> (quota, qos)
  std::map<uint32_t, uint32_t> sms_by_app;
  int sm_count_calls = 0;
  void set_quota(uint32_t sm, uint32_t kernel, int64_t thread_insts, bool qos) override {
    quotas[{sm, kernel}] = {thread_insts, qos};
  }
  void set_sm_counts(const std::map<uint32_t, uint32_t>& s) override {
    sms_by_app = s;
    ++sm_count_calls;
  }
  int64_t quota(uint32_t sm, uint32_t kernel) const { return quotas.at({sm, kernel}).first; }
};

// Kernel `kernel` of app `app` on two SMs: `tbs` TBs on each, `insts`
// thread instructions issued on each, `left` quota left on each.
KernelEpoch kernel(uint32_t kernel, uint32_t app, uint32_t tbs, uint64_t insts, int64_t left = 0) {
  KernelEpoch k;
  k.kernel = kernel;
  k.app = app;
  k.tbs = {tbs, tbs};
  k.thread_insts = {insts, insts};
  k.warp_insts = {insts / 32, insts / 32};
  k.quota_left = {left, left};
  return k;
}

EpochSample sample(uint64_t index, Cycle ended, std::vector<KernelEpoch> ks) {
  return EpochSample{index, ended, 1000, std::move(ks)};
}

QosGoals goal_of_app0(double ipc) { return QosGoals{{ipc}}; }

TEST(QuotaSchemes, NaiveGivesGoalTimesEpochAndTheArtificialGoalToNonQos) {
  auto m = make_quota_scheme("naive", goal_of_app0(10));
  Recorder r;
  // First epoch: the QoS kernel on track, the non-QoS kernel at IPC 1.
  m->new_epoch(sample(0, 0, {kernel(1, 0, 2, 0), kernel(2, 1, 1, 0)}), r);
  EXPECT_EQ(r.quota(0, 1), 5000);  // 10 x 1000, half on each SM
  EXPECT_TRUE(r.quotas.at({0, 1}).second);
  EXPECT_EQ(r.quota(1, 2), 500);   // 1 x 1000, half on each SM
  EXPECT_FALSE(r.quotas.at({1, 2}).second);
  // The QoS kernel reached 8 of its 10 (IPC 8), the other 20: 20 x 0.8 = 16.
  m->new_epoch(sample(1, 1000, {kernel(1, 0, 2, 4000), kernel(2, 1, 1, 10000)}), r);
  EXPECT_EQ(r.quota(0, 1), 5000);  // unchanged: no history, nothing carried
  EXPECT_EQ(r.quota(0, 2), 8000);
}

TEST(QuotaSchemes, HistoryScalesTheQuotaOfAKernelBehindItsGoal) {
  auto m = make_quota_scheme("history", goal_of_app0(10));
  Recorder r;
  m->new_epoch(sample(0, 0, {kernel(1, 0, 2, 0), kernel(2, 1, 1, 0)}), r);
  m->new_epoch(sample(1, 1000, {kernel(1, 0, 2, 4000), kernel(2, 1, 1, 10000)}), r);
  // IPC_history 8 of 10: alpha 1.25; the non-QoS goal is 20 x 8 / (1.25 x 10).
  EXPECT_EQ(r.quota(0, 1), 6250);
  EXPECT_EQ(r.quota(0, 2), 6400);
  // Ahead of its goal (history (8000 + 24000) / 2000 = 16): alpha 1.
  m->new_epoch(sample(2, 1000, {kernel(1, 0, 2, 12000), kernel(2, 1, 1, 10000)}), r);
  EXPECT_EQ(r.quota(0, 1), 5000);
}

TEST(QuotaSchemes, RolloverCarriesUnusedQosQuotaAcrossLaunchesAndDiscardsNonQos) {
  auto m = make_quota_scheme("rollover", goal_of_app0(10));
  Recorder r;
  m->new_epoch(sample(0, 0, {kernel(1, 0, 2, 0), kernel(2, 1, 1, 0)}), r);
  // On track (IPC 10), 300 left on each SM; the non-QoS kernel's 700 left is dropped.
  m->new_epoch(sample(1, 1000, {kernel(1, 0, 2, 5000, 300), kernel(2, 1, 1, 1000, 700)}), r);
  EXPECT_EQ(r.quota(0, 1), 5300);
  EXPECT_EQ(r.quota(0, 2), 1000);  // 2 x 1 (on track) x 1000 over two SMs
  // Quota is the app's: its next launch (kernel 3, started during the epoch)
  // shares what kernel 1 left, by TBs: (10000 + 400) / 2 over two SMs.
  m->new_epoch(sample(2, 1000, {kernel(1, 0, 2, 5000, 200), kernel(3, 0, 2, 0)}), r);
  EXPECT_EQ(r.quota(0, 1), 2600);
  EXPECT_EQ(r.quota(1, 3), 2600);
}

TEST(QuotaSchemes, ElasticCarriesOnlyOverdraftsAndAsksForEarlyEpochs) {
  auto m = make_quota_scheme("elastic", goal_of_app0(10));
  EXPECT_TRUE(m->elastic());
  EXPECT_FALSE(make_quota_scheme("rollover", goal_of_app0(10))->elastic());
  Recorder r;
  m->new_epoch(sample(0, 0, {kernel(1, 0, 2, 0)}), r);
  m->new_epoch(sample(1, 500, {kernel(1, 0, 2, 2500, -20)}), r);  // an early epoch, quota overdrawn
  EXPECT_EQ(r.quota(0, 1), 4980);
  m->new_epoch(sample(2, 1000, {kernel(1, 0, 2, 5000, 300)}), r);  // unused quota is not carried
  EXPECT_EQ(r.quota(0, 1), 5000);
}

TEST(QuotaSchemes, RolloverTimeBlocksNonQosKernelsUntilTheQosQuotasAreUsed) {
  auto m = make_quota_scheme("rollover-time", goal_of_app0(10));
  Recorder r;
  m->new_epoch(sample(0, 0, {kernel(1, 0, 2, 0), kernel(2, 1, 1, 0)}), r);
  EXPECT_EQ(r.quota(0, 1), 5000);
  EXPECT_EQ(r.quota(0, 2), 0);  // 0: waits for the QoS counters (sm::KernelQuotas)
  EXPECT_EQ(r.quota(1, 2), 0);
}

TEST(QuotaSchemes, SpartClimbsOneSmPerEpochTowardTheGoal) {
  auto m = make_quota_scheme("spart", goal_of_app0(10));
  Recorder r;
  auto s = [&](uint64_t i, uint64_t qos_insts) {
    KernelEpoch q = kernel(1, 0, 2, qos_insts), o = kernel(2, 1, 2, 1000), p = kernel(3, 2, 2, 1000);
    for (KernelEpoch* k : {&q, &o, &p}) {
      k->tbs.assign(16, 0);  // 16 SMs
      k->thread_insts.assign(16, 0);
      k->thread_insts[0] = k == &q ? qos_insts : 1000;
    }
    return sample(i, i ? 1000 : 0, {q, o, p});
  };
  m->new_epoch(s(0, 0), r);  // even split of the 16 SMs among the three apps
  EXPECT_EQ(r.sms_by_app, (std::map<uint32_t, uint32_t>{{0, 6}, {1, 5}, {2, 5}}));
  m->new_epoch(s(1, 8000), r);  // IPC 8 < 10: one SM from a non-QoS app
  EXPECT_EQ(r.sms_by_app, (std::map<uint32_t, uint32_t>{{0, 7}, {1, 4}, {2, 5}}));
  m->new_epoch(s(2, 10000), r);  // history 9 < 10: one more, from the one holding most
  EXPECT_EQ(r.sms_by_app, (std::map<uint32_t, uint32_t>{{0, 8}, {1, 4}, {2, 4}}));
  int calls = r.sm_count_calls;
  m->new_epoch(s(3, 10000), r);  // history 28/3 < 10 still
  EXPECT_EQ(r.sms_by_app, (std::map<uint32_t, uint32_t>{{0, 9}, {1, 3}, {2, 4}}));
  m->new_epoch(s(4, 20000), r);  // history 12: 12 x 8/9 > 10: one back to the one holding fewest
  EXPECT_EQ(r.sm_count_calls, calls + 2);
  EXPECT_EQ(r.sms_by_app, (std::map<uint32_t, uint32_t>{{0, 8}, {1, 4}, {2, 4}}));
  m->new_epoch(s(5, 12000), r);  // history 12, 12 x 7/8 = 10.5 > 10: one more back
  EXPECT_EQ(r.sms_by_app, (std::map<uint32_t, uint32_t>{{0, 7}, {1, 5}, {2, 4}}));
}

}  // namespace
}  // namespace gpumux::gpu
