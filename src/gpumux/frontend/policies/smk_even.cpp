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
    for (const ActiveKernel& a : ks) {
      policy::Amounts need = policy::needs(*a.kernel);
      policy::Limit l = policy::tbs_within(share, need);
      if (l.tbs == 0)
        throw PartitionError(fmt::format(
            "sharing policy smk-even: kernel {} gets 1/{} of each SM ({} {}), less than one of its TBs needs "
            "({} {})",
            a.kernel->label, ks.size(), share[l.resource], policy::resource_name(l.resource), need[l.resource],
            policy::resource_name(l.resource)));
      quotas_[a.kernel->id] = uint32_t(l.tbs);
    }
  }
};

}  // namespace

std::unique_ptr<SharingPolicy> make_smk_even(const PolicyOptions&) { return std::make_unique<SmkEvenPolicy>(); }

}  // namespace gpumux::frontend
