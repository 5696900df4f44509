// dss (thesis 5.2.4, Dynamic Spatial Sharing, algorithm 1): every kernel has
// SM tokens; its count is its tokens minus the SMs it holds (owns, or still
// runs TBs on after placing its last one), and may go
// negative (debt) so that no SM idles. Idle SMs go to the kernel with the
// highest count that can fill one more; then, while the highest count of a
// kernel with TBs to place exceeds the lowest count of a kernel holding an
// SM by more than one, one SM of the lowest is reserved for the highest (its
// TBs are preempted with the policy's mechanism; an SM already reserved may
// be re-targeted). Runs on kernel arrival and whenever an SM becomes idle.
//
// Tokens: by app from the workload (`tokens`), else equal sharing,
// floor(SMs / apps) per kernel, the remainder one each to the kernels that
// reached the active queue first.
#include <algorithm>
#include <map>

#include "gpumux/frontend/policies/sm_ownership.h"

namespace gpumux::frontend {
namespace {

class DssPolicy final : public policy::SmOwnershipPolicy {
 public:
  explicit DssPolicy(const PolicyOptions& o) : tokens_by_app_(o.tokens_by_app), apps_(o.num_apps) {}
  std::string_view name() const override { return "dss"; }
  bool repartition_when_sm_idle() const override { return true; }

 protected:
  void assign(std::span<const ActiveKernel> active, std::span<sm::Sm* const> sms) override {
    const size_t n = active.size();
    // Who holds each SM: its owner, or the kernel whose TBs still run there
    // after it placed its last one (released, but not idle: algorithm 1 may
    // take such an SM back).
    // A kernel with TBs left owns again the SMs its TBs run on.
    std::vector<int64_t> holder(owner_);
    for (size_t s = 0; s < sms.size(); ++s)
      for (size_t i = 0; i < n && holder[s] == kNoOwner; ++i)
        if (sms[s]->resident_tbs(active[i].kernel->id) > 0) {
          holder[s] = active[i].kernel->id;
          if (active[i].tbs_left > 0) owner_[s] = holder[s];
        }
    auto holds = [&](size_t i) {
      return uint32_t(std::count(holder.begin(), holder.end(), int64_t(active[i].kernel->id)));
    };
    std::vector<int64_t> count(n);
    const uint32_t apps = std::max<uint32_t>(apps_, 1);
    uint32_t remainder = uint32_t(sms.size()) % apps;
    for (size_t i = 0; i < n; ++i) {
      const sm::KernelInstance& k = *active[i].kernel;
      auto t = tokens_by_app_.find(k.app);
      int64_t tokens = t != tokens_by_app_.end() ? t->second : int64_t(sms.size() / apps) + (i < remainder ? 1 : 0);
      count[i] = tokens - holds(i);
    }
    auto wants = [&](size_t i) { return active[i].tbs_left > 0 && held(active[i].kernel->id) < need(active[i], sms); };
    auto highest = [&]() {
      int64_t best = -1;
      for (size_t i = 0; i < n; ++i)
        if (wants(i) && (best < 0 || count[i] > count[size_t(best)])) best = int64_t(i);
      return best;
    };
    auto give = [&](size_t s, size_t to) {
      take(uint32_t(s), active[to].kernel->id, sms);
      holder[s] = active[to].kernel->id;
      --count[to];
    };
    // Idle SMs first: to the highest count, debt allowed.
    for (size_t s = 0; s < sms.size(); ++s) {
      if (holder[s] != kNoOwner) continue;
      int64_t h = highest();
      if (h < 0) break;
      give(s, size_t(h));
    }
    // Rebalance by reservation until counts differ by at most one.
    for (;;) {
      int64_t h = highest(), l = -1;
      for (size_t i = 0; i < n; ++i)
        if (holds(i) > 0 && (l < 0 || count[i] < count[size_t(l)])) l = int64_t(i);
      if (h < 0 || l < 0 || h == l || count[size_t(h)] <= count[size_t(l)] + 1) return;
      size_t s = holder.size();
      while (s-- > 0 && holder[s] != int64_t(active[size_t(l)].kernel->id)) {}
      give(s, size_t(h));
      ++count[size_t(l)];
    }
  }

 private:
  std::map<uint32_t, uint32_t> tokens_by_app_;
  uint32_t apps_;
};

}  // namespace

std::unique_ptr<SharingPolicy> make_dss(const PolicyOptions& o) { return std::make_unique<DssPolicy>(o); }

}  // namespace gpumux::frontend
