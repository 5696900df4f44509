// The QoS manager of the Spart baseline (Wang et al., ISCA'17, after Aguilera
// et al.): spatial partitioning with hill climbing on SM counts, under the
// sharing policy "spart" (frontend/policies/spart.cpp). It sets no quota. At
// the first epoch boundary the applications of the active kernels split the
// SMs evenly; at each later one every QoS application moves one SM toward its
// goal, judged by its IPC over all its epochs so far (IPC_history): below its
// goal it takes one from the non-QoS application holding the most (which
// keeps at least one); above it by more than one SM's worth
// (IPC_history x (n - 1) / n > goal) it gives one to the non-QoS application
// holding the fewest. An application keeps its SMs between its kernels.
#include <algorithm>
#include <map>
#include <set>

#include "gpumux/frontend/policies/common.h"
#include "gpumux/gpu/qos/qos_manager.h"

namespace gpumux::gpu {
namespace {

class SpartManager : public QosManager {
 public:
  explicit SpartManager(QosGoals goals) : goals_(std::move(goals)) {}

  void new_epoch(const EpochSample& s, QuotaControl& q) override {
    if (s.kernels.empty()) return;
    const auto sms = uint32_t(s.kernels.front().tbs.size());
    std::set<uint32_t> apps;
    for (const KernelEpoch& k : s.kernels) {
      apps.insert(k.app);
      history_[k.app].thread_insts += k.total_thread_insts();
    }
    for (uint32_t app : apps) history_[app].cycles += s.ended_cycles;
    bool changed = false;
    for (uint32_t app : apps)
      if (!sms_.contains(app)) changed = true;
    if (changed) {  // a new application: even split of the SMs among the present ones
      std::vector<uint32_t> even = frontend::policy::split_evenly(sms, apps.size());
      sms_.clear();
      size_t i = 0;
      for (uint32_t app : apps) sms_[app] = even[i++];
    } else {
      for (uint32_t app : apps) changed |= climb(app, apps);
    }
    if (changed) q.set_sm_counts(sms_);
  }

 private:
  struct History {
    uint64_t thread_insts = 0;
    Cycle cycles = 0;
  };

  // One hill-climbing step of QoS application `app`; true if an SM moved.
  bool climb(uint32_t app, const std::set<uint32_t>& apps) {
    std::optional<double> goal = goals_.of(app);
    const History& h = history_[app];
    if (!goal || h.cycles == 0) return false;
    double ipc = double(h.thread_insts) / double(h.cycles);
    uint32_t& mine = sms_[app];
    std::optional<uint32_t> other;  // the non-QoS application to trade with
    bool take = ipc < *goal;
    if (!take && !(mine > 1 && ipc * double(mine - 1) / double(mine) > *goal)) return false;
    for (uint32_t a : apps) {
      if (goals_.of(a) || (take && sms_[a] <= 1)) continue;
      if (!other || (take ? sms_[a] > sms_[*other] : sms_[a] < sms_[*other])) other = a;
    }
    if (!other) return false;
    if (take) {
      --sms_[*other];
      ++mine;
    } else {
      ++sms_[*other];
      --mine;
    }
    return true;
  }

  QosGoals goals_;
  std::map<uint32_t, History> history_;  // by app id
  std::map<uint32_t, uint32_t> sms_;     // SM count by app id
};

}  // namespace

std::unique_ptr<QosManager> make_spart_manager(const QosGoals& goals) { return std::make_unique<SpartManager>(goals); }

}  // namespace gpumux::gpu
