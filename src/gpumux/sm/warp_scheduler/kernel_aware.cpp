#include "gpumux/sm/warp_scheduler/kernel_aware.h"

#include <algorithm>

namespace gpumux::sm {

KernelAwareGto::Greedy* KernelAwareGto::greedy_of(uint32_t kernel) {
  for (Greedy& g : greedy_)
    if (g.kernel == kernel) return &g;
  return nullptr;
}

int KernelAwareGto::pick(std::span<const WarpView> warps) {
  observe(warps);
  // Forget the greedy warps of kernels that left the sub-core.
  std::erase_if(greedy_, [&](const Greedy& g) {
    return std::none_of(warps.begin(), warps.end(), [&](const WarpView& w) { return w.kernel == g.kernel; });
  });
  ready_kernels_.clear();
  bool urgent = false;
  for (const WarpView& w : warps) {
    if (!w.ready) continue;
    urgent |= w.urgent;
    if (std::find(ready_kernels_.begin(), ready_kernels_.end(), w.kernel) == ready_kernels_.end())
      ready_kernels_.push_back(w.kernel);
  }
  if (ready_kernels_.empty()) return -1;
  uint32_t kernel = kAnyKernel;
  if (!urgent && ready_kernels_.size() > 1) {
    std::sort(ready_kernels_.begin(), ready_kernels_.end());
    kernel = favoured(ready_kernels_);
  }
  // GTO among the candidates: a kernel's greedy warp if it is one (the
  // favoured kernel's, or with kAnyKernel that of the kernel that issued last),
  // else the oldest.
  const Greedy* hint = greedy_of(kernel == kAnyKernel ? last_kernel_ : kernel);
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
  Greedy* g = greedy_of(w.kernel);
  if (!g) g = &greedy_.emplace_back();
  *g = Greedy{w.kernel, w.slot, w.age};
  last_kernel_ = w.kernel;
  issued(w);
  return best;
}

}  // namespace gpumux::sm
