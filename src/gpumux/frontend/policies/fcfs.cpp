// fcfs: no partition. Every kernel may fill every SM; the dispatcher serves
// kernels in dispatch-priority order, so later kernels take the resources the
// earlier ones leave (leftover sharing, like Hyper-Q).
#include "gpumux/frontend/sharing_policy.h"

namespace gpumux::frontend {
namespace {

class FcfsPolicy final : public SharingPolicy {
 public:
  std::string_view name() const override { return "fcfs"; }
  void repartition(std::span<const ActiveKernel>, std::span<sm::Sm* const>) override {}
  uint32_t quota(const sm::KernelInstance&, uint32_t) const override { return kUnlimited; }
};

}  // namespace

std::unique_ptr<SharingPolicy> make_fcfs(const PolicyOptions&) { return std::make_unique<FcfsPolicy>(); }

}  // namespace gpumux::frontend
