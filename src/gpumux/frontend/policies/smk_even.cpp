// smk-even: simultaneous multikernel with an even split. Every SM is shared
// by all kernels with TBs left; each of the n kernels gets 1/n of every SM
// resource (TB slots, warps, threads, registers, shared memory), and its
// quota is the TBs that fit its share: min over resources of
// floor(share / per-TB need). A share that holds no TB is a PartitionError.
#include <map>

#include <fmt/format.h>

#include "gpumux/frontend/policies/common.h"

namespace gpumux::frontend {
namespace {

class SmkEvenPolicy final : public policy::UniformQuotaPolicy {
 public:
  std::string_view name() const override { return "smk-even"; }

  void repartition(std::span<const ActiveKernel> active, std::span<sm::Sm* const> sms) override {
    quotas_.clear();
    std::vector<ActiveKernel> ks = policy::with_tbs_left(active);
    if (ks.empty() || sms.empty()) return;
    policy::Amounts share = policy::capacity(sms.front()->params());
    for (uint64_t& v : share) v /= ks.size();
    for (const ActiveKernel& a : ks)
      quotas_[a.kernel->id] = policy::quota_within(a, share, name(), fmt::format("1/{}", ks.size()));
  }
};

}  // namespace

std::unique_ptr<SharingPolicy> make_smk_even(const PolicyOptions&) { return std::make_unique<SmkEvenPolicy>(); }

}  // namespace gpumux::frontend
