// spart: the Spart baseline of Wang et al. (ISCA'17), spatial partitioning
// with hill climbing on SM counts (Aguilera et al.). One kernel per SM,
// contiguous ranges in dispatch-priority order as spatial-even; each
// application's SM count is what the QoS manager "spart" last set (at epoch
// boundaries), applications without one split the SMs left evenly. SMs that
// change owner are taken back with the policy's preemption mechanism.
#include "gpumux/frontend/policies/spart.h"

#include "gpumux/frontend/policies/common.h"

namespace gpumux::frontend {
namespace {

class SpartPolicy final : public policy::SpatialPolicy, public SmCountTarget {
 public:
  std::string_view name() const override { return "spart"; }
  void set_sm_counts(const std::map<uint32_t, uint32_t>& sms_by_app) override { sms_by_app_ = sms_by_app; }

 protected:
  std::vector<uint32_t> sm_counts(std::span<const ActiveKernel> kernels,
                                  std::span<sm::Sm* const> sms) const override {
    const auto n = uint32_t(sms.size());
    uint32_t set = 0;
    size_t unset = 0;
    for (const ActiveKernel& k : kernels) {
      auto it = sms_by_app_.find(k.kernel->app);
      if (it == sms_by_app_.end())
        ++unset;
      else
        set += it->second;
    }
    std::vector<uint32_t> even = policy::split_evenly(n > set ? n - set : 0, unset);
    std::vector<uint32_t> counts;
    size_t next_even = 0;
    for (const ActiveKernel& k : kernels) {
      auto it = sms_by_app_.find(k.kernel->app);
      counts.push_back(it == sms_by_app_.end() ? even[next_even++] : it->second);
    }
    return counts;
  }

 private:
  std::map<uint32_t, uint32_t> sms_by_app_;
};

}  // namespace

std::unique_ptr<SharingPolicy> make_spart(const PolicyOptions&) { return std::make_unique<SpartPolicy>(); }

}  // namespace gpumux::frontend
