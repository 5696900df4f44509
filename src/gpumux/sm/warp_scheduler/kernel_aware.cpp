#include "gpumux/sm/warp_scheduler/kernel_aware.h"

#include <algorithm>

namespace gpumux::sm {

int KernelAwareGto::pick(std::span<const WarpView> warps) {
  observe(warps);
  // Forget the greedy warps of kernels that left the sub-core.
  greedy_.keep_resident(warps);
  // Candidates: the ready warps, only the urgent ones if any is urgent.
  bool urgent = std::any_of(warps.begin(), warps.end(), [](const WarpView& w) { return w.ready && w.urgent; });
  ready_kernels_.clear();
  for (const WarpView& w : warps)
    if (w.ready && (w.urgent || !urgent) &&
        std::find(ready_kernels_.begin(), ready_kernels_.end(), w.kernel) == ready_kernels_.end())
      ready_kernels_.push_back(w.kernel);
  if (ready_kernels_.empty()) return -1;
  uint32_t kernel = kAnyKernel;
  if (ready_kernels_.size() > 1) {
    std::sort(ready_kernels_.begin(), ready_kernels_.end());
    kernel = favoured(ready_kernels_);
  }
  // GTO among the candidates: a kernel's greedy warp if it is one (the
  // favoured kernel's, or with kAnyKernel that of the kernel that issued last),
  // else the oldest.
  const Greedy* hint = greedy_.find(kernel == kAnyKernel ? last_kernel_ : kernel);
  int best = -1;
  for (size_t i = 0; i < warps.size(); ++i) {
    const WarpView& w = warps[i];
    if (!w.ready || (urgent && !w.urgent) || (kernel != kAnyKernel && w.kernel != kernel)) continue;
    if (hint && w.slot == hint->slot && w.age == hint->age) {
      best = int(i);
      break;
    }
    if (best < 0 || w.age < warps[size_t(best)].age) best = int(i);
  }
  const WarpView& w = warps[size_t(best)];
  greedy_.of(w.kernel) = Greedy{w.slot, w.age};
  last_kernel_ = w.kernel;
  issued(w);
  return best;
}

}  // namespace gpumux::sm
