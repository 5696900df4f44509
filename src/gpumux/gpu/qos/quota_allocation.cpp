#include "gpumux/gpu/qos/quota_allocation.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace gpumux::gpu {
namespace {

// The initial IPC_epoch of a non-QoS kernel (the paper's value), also its floor.
constexpr double kInitialIpc = 1.0;

class QuotaAllocation : public QosManager {
 public:
  QuotaAllocation(QosGoals goals, QuotaRules rules) : goals_(std::move(goals)), rules_(rules) {}

  bool elastic() const override { return rules_.elastic; }

  void new_epoch(const EpochSample& s, QuotaControl& q) override {
    auto ipc = [&](const KernelEpoch& k) { return double(k.total_thread_insts()) / double(s.ended_cycles); };
    // Histories and carried quota are per application: its goal is, and so is
    // its measured IPC (over all its launches).
    std::set<uint32_t> apps;
    for (const KernelEpoch& k : s.kernels) {
      apps.insert(k.app);
      App& a = apps_[k.app];
      a.thread_insts += k.total_thread_insts();
      a.carried += k.total_quota_left();
    }
    for (uint32_t app : apps) apps_[app].cycles += s.ended_cycles;
    double qos_ratio = 1;  // prod of IPC_epoch,k / (alpha_k IPC_goal,k); 1 before a finished epoch
    if (s.ended_cycles > 0)
      for (const KernelEpoch& k : s.kernels)
        if (auto goal = goals_.of(k.app)) qos_ratio *= ipc(k) / (alpha(apps_[k.app], *goal) * *goal);
    std::map<uint32_t, uint32_t> tbs_of_app;  // an app's quota is split over its kernels by their TBs
    for (const KernelEpoch& k : s.kernels) tbs_of_app[k.app] += k.total_tbs();
    for (const KernelEpoch& k : s.kernels) {
      std::optional<double> goal = goals_.of(k.app);
      if (!goal) {
        double own = s.ended_cycles > 0 ? std::max(ipc(k), kInitialIpc) : kInitialIpc;
        split(k, rules_.non_qos_waits ? 0 : own * qos_ratio * double(s.epoch_cycles), false, q);
        continue;
      }
      App& a = apps_[k.app];
      double quota = alpha(a, *goal) * *goal * double(s.epoch_cycles);
      if (rules_.rollover || (rules_.elastic && a.carried < 0)) quota += double(a.carried);
      uint32_t app_tbs = tbs_of_app[k.app];
      split(k, std::max(quota, 0.0) * (app_tbs ? double(k.total_tbs()) / double(app_tbs) : 1.0), true, q);
    }
    for (uint32_t app : apps) apps_[app].carried = 0;
  }

 private:
  struct App {
    uint64_t thread_insts = 0;
    Cycle cycles = 0;   // epochs during which it had an active kernel
    int64_t carried = 0;  // quota left on its counters at this boundary
  };

  double alpha(const App& h, double goal) const {
    if (!rules_.history || h.cycles == 0) return 1;
    double achieved = double(h.thread_insts) / double(h.cycles);
    return achieved > 0 ? std::max(goal / achieved, 1.0) : 1;
  }

  // Quota_k x T_i / T on every SM hosting T_i > 0 of the kernel's T TBs. A
  // positive non-QoS share is at least one thread instruction, so that it can
  // be refilled (0 is Rollover-Time's "wait for the QoS kernels").
  static void split(const KernelEpoch& k, double quota, bool qos, QuotaControl& q) {
    uint32_t total = k.total_tbs();
    if (total == 0) return;
    for (uint32_t sm = 0; sm < k.tbs.size(); ++sm) {
      if (k.tbs[sm] == 0) continue;
      auto share = int64_t(std::ceil(quota * double(k.tbs[sm]) / double(total)));
      q.set_quota(sm, k.kernel, qos || quota == 0 ? share : std::max<int64_t>(share, 1), qos);
    }
  }

  QosGoals goals_;
  QuotaRules rules_;
  std::map<uint32_t, App> apps_;  // by app id
};

}  // namespace

std::unique_ptr<QosManager> make_quota_allocation(const QosGoals& goals, QuotaRules rules) {
  return std::make_unique<QuotaAllocation>(goals, rules);
}

}  // namespace gpumux::gpu
