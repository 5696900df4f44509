// kernel-fcfs (thesis 5.3, the baseline): kernels own SMs in launch order,
// priorities ignored; each takes the idle SMs it can fill, the next kernel
// the rest; nothing is preempted.
#include "gpumux/frontend/policies/sm_ownership.h"

#include <algorithm>

namespace gpumux::frontend {
namespace {

class KernelFcfsPolicy final : public policy::SmOwnershipPolicy {
 public:
  std::string_view name() const override { return "kernel-fcfs"; }

 protected:
  void assign(std::span<const ActiveKernel> active, std::span<sm::Sm* const> sms) override {
    std::vector<ActiveKernel> order(active.begin(), active.end());
    std::stable_sort(order.begin(), order.end(),
                     [](const ActiveKernel& a, const ActiveKernel& b) { return a.kernel->id < b.kernel->id; });
    for (const ActiveKernel& k : order) give_free(k, need(k, sms), sms);
  }
};

}  // namespace

std::unique_ptr<SharingPolicy> make_kernel_fcfs(const PolicyOptions&) { return std::make_unique<KernelFcfsPolicy>(); }

}  // namespace gpumux::frontend
