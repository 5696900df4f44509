// Naive quota allocation (Wang et al., ISCA'17 3.4.1 and 3.5): at every epoch
// boundary each kernel's counters are reset to its quota, unused quota is
// discarded. A QoS kernel's quota is IPC_goal x T_epoch thread instructions;
// a non-QoS kernel's comes from the artificial goal
//   IPC_goal = IPC_epoch x prod over QoS kernels k of IPC_epoch,k / IPC_goal,k
// (alpha_k = 1: no history adjustment), where IPC_epoch is what the kernel
// reached in the epoch that ended, 1 before it has one. Each quota is split
// over the SMs by the TBs each hosts. Non-QoS counters are refilled within the
// epoch once every QoS counter of their SM is used up (sm::KernelQuotas).
#include <algorithm>
#include <cmath>

#include "gpumux/gpu/qos/qos_manager.h"

namespace gpumux::gpu {
namespace {

// The initial IPC_epoch of a non-QoS kernel (the paper's value), also its
// floor: a kernel that could not issue during one epoch is not starved for good.
constexpr double kInitialIpc = 1.0;

class NaiveQuota : public QosManager {
 public:
  explicit NaiveQuota(QosGoals goals) : goals_(std::move(goals)) {}

  void new_epoch(const EpochSample& s, QuotaControl& q) override {
    auto ipc = [&](const KernelEpoch& k) { return double(k.total_thread_insts()) / double(s.ended_cycles); };
    // How far the QoS kernels are above (> 1) or below their goals; a kernel
    // without a finished epoch counts as on track.
    double qos_ratio = 1;
    if (s.ended_cycles > 0)
      for (const KernelEpoch& k : s.kernels)
        if (auto goal = goals_.of(k.app)) qos_ratio *= ipc(k) / *goal;
    for (const KernelEpoch& k : s.kernels) {
      std::optional<double> goal = goals_.of(k.app);
      double own = s.ended_cycles > 0 ? std::max(ipc(k), kInitialIpc) : kInitialIpc;
      double goal_ipc = goal ? *goal : own * qos_ratio;
      split(k, goal_ipc * double(s.epoch_cycles), goal.has_value(), q);
    }
  }

 private:
  // Quota_k x T_i / T on every SM hosting T_i > 0 of the kernel's T TBs. A
  // non-QoS share is at least one thread instruction, so that it can be refilled.
  static void split(const KernelEpoch& k, double quota, bool qos, QuotaControl& q) {
    uint32_t total = k.total_tbs();
    if (total == 0) return;
    for (uint32_t sm = 0; sm < k.tbs.size(); ++sm) {
      if (k.tbs[sm] == 0) continue;
      auto share = int64_t(std::ceil(quota * double(k.tbs[sm]) / double(total)));
      q.set_quota(sm, k.kernel, qos ? share : std::max<int64_t>(share, 1), qos);
    }
  }

  QosGoals goals_;
};

}  // namespace

std::unique_ptr<QosManager> make_naive_quota(const QosGoals& goals) { return std::make_unique<NaiveQuota>(goals); }

}  // namespace gpumux::gpu
