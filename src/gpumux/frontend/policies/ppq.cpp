// ppq (thesis 5.3.2, preemptive priority queues): kernels in priority order
// take the free SMs they can fill, then take SMs from lower-priority kernels
// (the lowest priority first), which are preempted with the policy's
// mechanism. With `exclusive` (the default, thesis figure 5.5a) kernels below
// the highest active priority get no SM at all while a higher-priority kernel
// is active: the SMs they hold stop receiving their TBs (those running
// finish). Without it (figure 5.5b) they may use the SMs the high-priority
// kernels leave free, as back-to-back kernel execution does.
#include <algorithm>

#include "gpumux/frontend/policies/sm_ownership.h"

namespace gpumux::frontend {
namespace {

class PpqPolicy final : public policy::SmOwnershipPolicy {
 public:
  explicit PpqPolicy(bool exclusive) : exclusive_(exclusive) {}
  std::string_view name() const override { return "ppq"; }

 protected:
  void assign(std::span<const ActiveKernel> active, std::span<sm::Sm* const> sms) override {
    if (active.empty()) return;
    auto priority_of = [&](int64_t id) {
      for (const ActiveKernel& a : active)
        if (a.kernel->id == id) return a.kernel->priority;
      return active.back().kernel->priority;
    };
    const int top = active.front().kernel->priority;  // active: dispatch-priority order
    for (const ActiveKernel& k : active) {
      if (exclusive_ && k.kernel->priority < top) {
        release(k.kernel->id);
        continue;
      }
      uint32_t target = need(k, sms);
      // A free SM still running TBs of a lower priority (released, or left
      // by exclusive access) is taken from them too.
      give_free(k, target, sms, [&](size_t s) {
        for (const ActiveKernel& v : active)
          if (v.kernel->priority < k.kernel->priority && sms[s]->resident_tbs(v.kernel->id) > 0) return true;
        return false;
      });
      // Take the rest from lower-priority owners, the lowest first.
      for (uint32_t have = held(k.kernel->id); have < target; ++have) {
        int64_t victim = -1;
        for (size_t s = 0; s < sms.size(); ++s)
          if (owner_[s] != kNoOwner && priority_of(owner_[s]) < k.kernel->priority &&
              (victim < 0 || priority_of(owner_[s]) < priority_of(owner_[size_t(victim)])))
            victim = int64_t(s);
        if (victim < 0) break;
        take(uint32_t(victim), k.kernel->id, sms);
      }
    }
  }

 private:
  bool exclusive_;
};

}  // namespace

std::unique_ptr<SharingPolicy> make_ppq(const PolicyOptions& o) { return std::make_unique<PpqPolicy>(o.exclusive); }

}  // namespace gpumux::frontend
