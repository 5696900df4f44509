// Kernel-aware "None" (GPU Maestro 5.2): no kernel-level choice, GTO over all
// warps, only urgent warps (draining or boundary TBs) first.
#include "gpumux/sm/warp_scheduler/kernel_aware.h"

namespace gpumux::sm {
namespace {

class KaNone : public KernelAwareGto {
  uint32_t favoured(std::span<const uint32_t>) override { return kAnyKernel; }
};

}  // namespace

std::unique_ptr<WarpScheduler> make_ka_none(const SmParams&) { return std::make_unique<KaNone>(); }

}  // namespace gpumux::sm
