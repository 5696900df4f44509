// Kernel-aware IPR (GPU Maestro 5.2, after ICOUNT): per kernel, warps issued
// over warps ready, summed over the cycles; the ready kernel with the lowest
// ratio goes first (a kernel that waits sees its ratio fall). Counters are per
// sub-core and dropped when the kernel has no warp left on it.
#include "gpumux/sm/warp_scheduler/kernel_aware.h"

namespace gpumux::sm {
namespace {

class KaIpr : public KernelAwareGto {
  struct Counts {
    uint64_t issued = 0, ready = 0;
  };

  void observe(std::span<const WarpView> warps) override {
    counts_.keep_resident(warps);
    for (const WarpView& w : warps)
      if (w.ready) ++counts_.of(w.kernel).ready;
  }
  uint32_t favoured(std::span<const uint32_t> ready) override {
    uint32_t best = ready.front();
    for (uint32_t k : ready) {
      const Counts &c = counts_.of(k), &b = counts_.of(best);
      if (c.issued * b.ready < b.issued * c.ready) best = k;  // c.issued/c.ready < b.issued/b.ready
    }
    return best;
  }
  void issued(const WarpView& w) override { ++counts_.of(w.kernel).issued; }

  PerKernel<Counts> counts_;
};

}  // namespace

std::unique_ptr<WarpScheduler> make_ka_ipr(const SmParams&) { return std::make_unique<KaIpr>(); }

}  // namespace gpumux::sm
