// Kernel-aware LRR (GPU Maestro 4.3): kernel priority flips whenever another
// kernel has a ready warp; the ready kernels take turns (by launch id, after
// the one that issued last), GTO inside each.
#include "gpumux/sm/warp_scheduler/kernel_aware.h"

namespace gpumux::sm {
namespace {

class KaLrr : public KernelAwareGto {
  uint32_t favoured(std::span<const uint32_t> ready) override {
    for (uint32_t k : ready)
      if (k > last_) return k;
    return ready.front();
  }
  void issued(const WarpView& w) override { last_ = w.kernel; }

  uint32_t last_ = 0;  // kernel that issued last
};

}  // namespace

std::unique_ptr<WarpScheduler> make_ka_lrr(const SmParams&) { return std::make_unique<KaLrr>(); }

}  // namespace gpumux::sm
