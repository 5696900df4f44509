// smk-split: simultaneous multikernel with a fixed uneven split, GPU Maestro's
// figure 2 (ASPLOS'17 section 3: "fixed numbers of threads assigned to each
// kernel within an SM"). While the first application (app 0) and another both
// have kernels on the GPU (TBs left or running), app 0's kernels share
// PolicyOptions::first_share of every SM resource (TB slots, warps, threads,
// registers, shared memory) and the other kernels the rest, each group evenly
// among its kernels; the quota is the TBs that fit the share. Unlike smk-even,
// a kernel keeps its share after placing its last TB, until its TBs finish:
// the split stays fixed while both run. One group alone splits the SM evenly.
// A share that holds no TB is a PartitionError.
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "gpumux/frontend/policies/common.h"

namespace gpumux::frontend {
namespace {

class SmkSplitPolicy final : public policy::UniformQuotaPolicy {
 public:
  explicit SmkSplitPolicy(const PolicyOptions& o) : first_share_(o.first_share) {
    if (!(first_share_ > 0 && first_share_ < 1))
      throw LoadError(fmt::format("sharing policy smk-split: first_share {} is not in (0, 1)", first_share_));
  }

  std::string_view name() const override { return "smk-split"; }

  void repartition(std::span<const ActiveKernel> active, std::span<sm::Sm* const> sms) override {
    quotas_.clear();
    if (sms.empty()) return;
    std::vector<ActiveKernel> groups[2];  // app 0's kernels, the others
    for (const ActiveKernel& a : active)
      if (a.tbs_left + a.tbs_running > 0) groups[a.kernel->app == 0 ? 0 : 1].push_back(a);
    const bool split = !groups[0].empty() && !groups[1].empty();
    const policy::Amounts capacity = policy::capacity(sms.front()->params());
    for (int g = 0; g < 2; ++g) {
      if (groups[g].empty()) continue;
      double fraction = (split ? (g == 0 ? first_share_ : 1 - first_share_) : 1.0) / double(groups[g].size());
      policy::Amounts share;
      for (size_t r = 0; r < policy::kNumResources; ++r) share[r] = uint64_t(std::floor(double(capacity[r]) * fraction));
      std::string text = fmt::format("{:.4g}%", 100 * fraction);
      for (const ActiveKernel& a : groups[g]) quotas_[a.kernel->id] = policy::quota_within(a, share, name(), text);
    }
  }

 private:
  double first_share_;
};

}  // namespace

std::unique_ptr<SharingPolicy> make_smk_split(const PolicyOptions& o) { return std::make_unique<SmkSplitPolicy>(o); }

}  // namespace gpumux::frontend
