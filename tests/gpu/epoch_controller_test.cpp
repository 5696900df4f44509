// The QoS epoch controller on a timing device: called every
// qos.epoch_cycles while a kernel is active, with what each SM issued during
// the epoch that ended; the quotas it sets bound what each SM issues next.
#include "gpumux/gpu/qos/epoch_controller.h"

#include <gtest/gtest.h>

#include "frontend/frontend_test_util.h"

namespace gpumux::gpu {
namespace {

using frontend::fixtures::kTimingPtx;
using frontend::fixtures::PolicyDevice;

constexpr Cycle kEpoch = 500;
constexpr int64_t kQuota = 4000;  // thread instructions per SM per epoch

// Records each call with the cumulative counters of the SMs at that moment,
// and gives every kernel kQuota on every SM hosting its TBs.
class RecordingManager : public QosManager {
 public:
  struct Call {
    Cycle cycle;
    EpochSample sample;
    std::vector<uint64_t> thread_insts, warp_insts;  // cumulative, per SM
  };
  explicit RecordingManager(Gpu& g) : g_(g) {}
  void new_epoch(const EpochSample& s, QuotaControl& q) override {
    Call c{g_.core_cycle(), s, {}, {}};
    for (uint32_t i = 0; i < g_.num_sms(); ++i) {
      c.thread_insts.push_back(g_.sm(i).stats().thread_insts.total().value());
      c.warp_insts.push_back(g_.sm(i).stats().warp_insts.total().value());
    }
    calls.push_back(std::move(c));
    for (const KernelEpoch& k : s.kernels)
      for (uint32_t i = 0; i < k.tbs.size(); ++i)
        if (k.tbs[i]) q.set_quota(i, k.kernel, kQuota, true);
  }
  std::vector<Call> calls;

 private:
  Gpu& g_;
};

PolicyDevice two_sm_device() {
  return PolicyDevice("fcfs", {}, {"gpu.num_sms=2", "qos.epoch_cycles=" + std::to_string(kEpoch)}, 1, kTimingPtx);
}

// 16 TBs of fma_chains, checked against the CPU reference.
void run_fma_chains(PolicyDevice& d) {
  const uint32_t tbs = 16, threads = 128;
  const int iters = 64;
  runtime::DevPtr out = d.launch(0, "fma_chains", tbs, threads, iters);
  std::vector<float> r = d.ctx[0]->read<float>(out, tbs * threads);
  EXPECT_EQ(frontend::fixtures::wrong_fma_results(r, threads, iters), 0u);
}

TEST(EpochController, CalledEveryEpochWithTheEpochsCountsAndItsQuotasThrottle) {
  PolicyDevice d = two_sm_device();
  auto manager = std::make_unique<RecordingManager>(d.gpu());
  RecordingManager& m = *manager;
  d.gpu().enable_qos(std::move(manager));
  run_fma_chains(d);
  ASSERT_TRUE(d.record(0).done);

  ASSERT_GE(m.calls.size(), 4u);
  EXPECT_EQ(d.gpu().epoch_controller()->epochs(), m.calls.size() + 1);  // the last found no kernel
  uint64_t throttled = d.gpu().stats().sum("sm*.issue.throttled");
  EXPECT_GT(throttled, 0u);
  for (size_t i = 0; i < m.calls.size(); ++i) {
    const RecordingManager::Call& c = m.calls[i];
    SCOPED_TRACE(i);
    EXPECT_EQ(c.sample.index, i);
    EXPECT_EQ(c.sample.epoch_cycles, kEpoch);
    ASSERT_EQ(c.sample.kernels.size(), 1u);
    const KernelEpoch& k = c.sample.kernels[0];
    EXPECT_EQ(k.kernel, d.record(0).id);
    ASSERT_EQ(k.thread_insts.size(), 2u);
    if (i == 0) {
      EXPECT_EQ(c.sample.ended_cycles, 0u);
      EXPECT_EQ(k.total_thread_insts(), 0u);
      continue;
    }
    const RecordingManager::Call& prev = m.calls[i - 1];
    EXPECT_EQ(c.cycle - prev.cycle, kEpoch);
    EXPECT_EQ(c.sample.ended_cycles, kEpoch);
    for (uint32_t sm = 0; sm < 2; ++sm) {
      EXPECT_EQ(k.thread_insts[sm], c.thread_insts[sm] - prev.thread_insts[sm]);
      EXPECT_EQ(k.warp_insts[sm], c.warp_insts[sm] - prev.warp_insts[sm]);
      // Once every SM hosted TBs at the boundary, an SM issues at most its
      // quota, plus one warp instruction that started with quota left.
      if (prev.sample.kernels[0].tbs[sm] > 0) {
        EXPECT_LE(int64_t(k.thread_insts[sm]), kQuota + 31);
      }
    }
  }

  // Asleep while no kernel is active; the next activation starts a new series.
  const size_t first_series = m.calls.size();
  run_fma_chains(d);
  ASSERT_GT(m.calls.size(), first_series);
  EXPECT_EQ(m.calls[first_series].sample.index, 0u);
  EXPECT_EQ(m.calls[first_series].sample.ended_cycles, 0u);
  EXPECT_EQ(m.calls[first_series].sample.kernels.at(0).kernel, d.record(1).id);
  EXPECT_EQ(d.gpu().epoch_controller()->epochs(), m.calls.size() + 2);
}

// An elastic manager whose quotas are used up long before the epoch ends
// gets its next epoch early: the boundaries come closer than epoch_cycles.
class ElasticManager : public QosManager {
 public:
  bool elastic() const override { return true; }
  void new_epoch(const EpochSample& s, QuotaControl& q) override {
    ended.push_back(s.ended_cycles);
    for (const KernelEpoch& k : s.kernels)
      for (uint32_t i = 0; i < k.tbs.size(); ++i)
        if (k.tbs[i]) q.set_quota(i, k.kernel, 256, true);
  }
  std::vector<Cycle> ended;
};

TEST(EpochController, ElasticEpochsStartAsSoonAsEveryQuotaIsUsedUp) {
  PolicyDevice d = two_sm_device();
  auto manager = std::make_unique<ElasticManager>();
  ElasticManager& m = *manager;
  d.gpu().enable_qos(std::move(manager));
  run_fma_chains(d);
  const EpochController& c = *d.gpu().epoch_controller();
  EXPECT_GT(c.early_epochs(), 0u);
  size_t shorter = 0;
  for (Cycle e : m.ended) {
    EXPECT_LE(e, kEpoch);
    // Looked at every epoch_cycles / kElasticPolls cycles.
    EXPECT_EQ(e % (kEpoch / EpochController::kElasticPolls), 0u);
    shorter += e > 0 && e < kEpoch;
  }
  EXPECT_EQ(shorter, c.early_epochs());
}

// Without a QoS manager nothing of it exists: no controller, no counters.
TEST(EpochController, AbsentWithoutAQosManager) {
  PolicyDevice d("fcfs", {}, {"gpu.num_sms=2"}, 1, kTimingPtx);
  EXPECT_EQ(d.gpu().epoch_controller(), nullptr);
  EXPECT_EQ(d.gpu().sm(0).quotas(), nullptr);
}

}  // namespace
}  // namespace gpumux::gpu
