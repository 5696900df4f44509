// smk-drf: simultaneous multikernel with dominant-resource fairness inside
// each SM, by progressive filling: repeatedly give one more TB to the kernel
// with the smallest dominant share (max over resources of used / capacity;
// ties to the first in dispatch order) whose next TB still fits the SM's
// remaining capacity, until no TB fits. A kernel takes part while it has TBs
// left to dispatch and its count is below tbs_left + tbs_running (it never
// has more TBs than that to hold at once). SMs are identical, so the quotas
// are the same on every SM. A kernel may end with quota 0 when the others
// fill the SM; it waits for the next repartition. PartitionError only if one
// TB alone exceeds an SM.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "gpumux/frontend/policies/common.h"

namespace gpumux::frontend {
namespace {

class SmkDrfPolicy final : public policy::UniformQuotaPolicy {
 public:
  std::string_view name() const override { return "smk-drf"; }

  void repartition(std::span<const ActiveKernel> active, std::span<sm::Sm* const> sms) override {
    quotas_.clear();
    std::vector<ActiveKernel> ks = policy::with_tbs_left(active);
    if (ks.empty() || sms.empty()) return;
    const policy::Amounts cap = policy::capacity(sms.front()->params());
    std::vector<policy::Amounts> need(ks.size());
    std::vector<uint64_t> count(ks.size(), 0);
    for (size_t i = 0; i < ks.size(); ++i) need[i] = policy::needs(*ks[i].kernel);
    policy::Amounts used{};
    for (;;) {
      size_t best = ks.size();
      double best_share = 0;
      for (size_t i = 0; i < ks.size(); ++i) {
        if (count[i] >= ks[i].tbs_left + ks[i].tbs_running) continue;
        bool fits = true;
        double dominant = 0;
        for (size_t r = 0; r < policy::kNumResources; ++r) {
          if (need[i][r] == 0) continue;
          fits &= used[r] + need[i][r] <= cap[r];
          if (cap[r] > 0) dominant = std::max(dominant, double(count[i] * need[i][r]) / double(cap[r]));
        }
        if (fits && (best == ks.size() || dominant < best_share)) {
          best = i;
          best_share = dominant;
        }
      }
      if (best == ks.size()) break;
      ++count[best];
      for (size_t r = 0; r < policy::kNumResources; ++r) used[r] += need[best][r];
    }
    for (size_t i = 0; i < ks.size(); ++i) {
      if (count[i] == 0) {
        policy::Limit alone = policy::tbs_within(cap, need[i]);
        if (alone.tbs == 0)
          throw PartitionError(fmt::format(
              "sharing policy smk-drf: kernel {} cannot fit one TB in an SM: it needs {} {}, an SM has {}",
              ks[i].kernel->label, need[i][alone.resource], policy::resource_name(alone.resource),
              cap[alone.resource]));
      }
      quotas_[ks[i].kernel->id] = uint32_t(count[i]);
    }
  }
};

}  // namespace

std::unique_ptr<SharingPolicy> make_smk_drf(const PolicyOptions&) { return std::make_unique<SmkDrfPolicy>(); }

}  // namespace gpumux::frontend
