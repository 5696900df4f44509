// smk-quota: simultaneous multikernel with explicit quotas: every kernel of
// application a may hold PolicyOptions::tb_quota_by_app[a] TBs on each SM
// (as many as fit beside the others). An application without an entry is a
// PartitionError when its kernel becomes active; a quota of 0 is rejected
// when the policy is made (LoadError).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "gpumux/frontend/policies/common.h"

namespace gpumux::frontend {
namespace {

class SmkQuotaPolicy final : public policy::UniformQuotaPolicy {
 public:
  explicit SmkQuotaPolicy(const PolicyOptions& o) : by_app_(o.tb_quota_by_app) {
    for (const auto& [app, q] : by_app_)
      if (q == 0) throw LoadError(fmt::format("sharing policy smk-quota: app {} has a TB quota of 0 (at least 1)", app));
  }

  std::string_view name() const override { return "smk-quota"; }

  void repartition(std::span<const ActiveKernel> active, std::span<sm::Sm* const>) override {
    quotas_.clear();
    for (const ActiveKernel& a : active) {
      auto it = by_app_.find(a.kernel->app);
      if (it == by_app_.end()) {
        std::string known;
        for (const auto& [app, q] : by_app_) known += fmt::format("{}{}: {}", known.empty() ? "" : ", ", app, q);
        throw PartitionError(fmt::format(
            "sharing policy smk-quota: no TB quota for app {} (kernel {}); quotas are given for: {}", a.kernel->app,
            a.kernel->label, known.empty() ? "none" : known));
      }
      quotas_[a.kernel->id] = it->second;
    }
  }

 private:
  std::map<uint32_t, uint32_t> by_app_;
};

}  // namespace

std::unique_ptr<SharingPolicy> make_smk_quota(const PolicyOptions& o) { return std::make_unique<SmkQuotaPolicy>(o); }

}  // namespace gpumux::frontend
