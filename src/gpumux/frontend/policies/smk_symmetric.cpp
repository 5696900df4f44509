// smk-symmetric: the symmetric TB allocation of Wang et al. (ISCA'17 3.6).
// QoS kernels (of applications with a qos_goal, PolicyOptions::qos_apps) run
// on every SM; the non-QoS kernels split the SMs evenly, contiguous ranges in
// dispatch-priority order (one QoS and two non-QoS kernels on 16 SMs: the
// QoS kernel on all 16, each non-QoS kernel on 8). On each SM the kernels
// present get an equal share of every resource, so an equal number of
// threads, and their quota is the TBs that fit their share (as smk-even does
// with all kernels on all SMs; a share that holds no TB is a PartitionError).
// Only kernels with TBs left take part. The QoS TB adjustment adds per
// (kernel, SM) changes to these shares (TbShareTarget); they last while the
// kernel is active. With one QoS and one non-QoS kernel this is smk-even.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "gpumux/frontend/policies/common.h"
#include "gpumux/frontend/policies/smk_symmetric.h"

namespace gpumux::frontend {
namespace {

class SmkSymmetricPolicy final : public SharingPolicy, public TbShareTarget {
 public:
  explicit SmkSymmetricPolicy(const PolicyOptions& o) : qos_apps_(o.qos_apps) {}

  std::string_view name() const override { return "smk-symmetric"; }

  void adjust_tbs(uint32_t kernel, uint32_t sm, int32_t delta) override { adjusted_[{kernel, sm}] += delta; }

  void repartition(std::span<const ActiveKernel> active, std::span<sm::Sm* const> sms) override {
    std::erase_if(adjusted_, [&](const auto& e) {
      return std::none_of(active.begin(), active.end(),
                          [&](const ActiveKernel& a) { return a.kernel->id == e.first.first; });
    });
    shares_.clear();
    std::vector<ActiveKernel> ks = policy::with_tbs_left(active);
    if (ks.empty() || sms.empty()) return;
    std::vector<const sm::KernelInstance*> qos, non_qos;
    for (const ActiveKernel& a : ks) (qos_apps_.contains(a.kernel->app) ? qos : non_qos).push_back(a.kernel);
    std::vector<uint32_t> counts = policy::split_evenly(uint32_t(sms.size()), non_qos.size());
    const policy::Amounts capacity = policy::capacity(sms.front()->params());
    size_t owner = 0;  // the non-QoS kernel of the SM
    uint32_t owned = 0;
    for (sm::Sm* s : sms) {
      while (owner < counts.size() && owned == counts[owner]) ++owner, owned = 0;
      std::vector<const sm::KernelInstance*> present = qos;
      if (owner < non_qos.size()) {
        present.push_back(non_qos[owner]);
        ++owned;
      }
      policy::Amounts share = capacity;
      for (uint64_t& v : share) v /= present.size();
      for (const sm::KernelInstance* k : present) {
        policy::Amounts need = policy::needs(*k);
        policy::Limit l = policy::tbs_within(share, need);
        if (l.tbs == 0)
          throw PartitionError(fmt::format(
              "sharing policy smk-symmetric: kernel {} gets 1/{} of SM {} ({} {}), less than one of its TBs needs "
              "({} {})",
              k->label, present.size(), s->id(), share[l.resource], policy::resource_name(l.resource),
              need[l.resource], policy::resource_name(l.resource)));
        shares_[{k->id, s->id()}] = uint32_t(l.tbs);
      }
    }
  }

  uint32_t quota(const sm::KernelInstance& k, uint32_t sm) const override {
    auto share = shares_.find({k.id, sm});
    auto adjusted = adjusted_.find({k.id, sm});
    int64_t q = int64_t(share == shares_.end() ? 0 : share->second) +
                (adjusted == adjusted_.end() ? 0 : adjusted->second);
    return uint32_t(std::max<int64_t>(q, 0));
  }

 private:
  using KernelSm = std::pair<uint32_t, uint32_t>;  // (kernel id, SM id)
  std::set<uint32_t> qos_apps_;
  std::map<KernelSm, uint32_t> shares_;
  std::map<KernelSm, int32_t> adjusted_;
};

}  // namespace

std::unique_ptr<SharingPolicy> make_smk_symmetric(const PolicyOptions& o) {
  return std::make_unique<SmkSymmetricPolicy>(o);
}

}  // namespace gpumux::frontend
