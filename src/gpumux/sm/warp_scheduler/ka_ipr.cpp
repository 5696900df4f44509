// Kernel-aware IPR (GPU Maestro 5.2, after ICOUNT): per kernel, warps issued
// over warps ready, summed over the cycles; the ready kernel with the lowest
// ratio goes first (a kernel that waits sees its ratio fall). Counters are per
// sub-core and dropped when the kernel has no warp left on it.
#include <algorithm>
#include <vector>

#include "gpumux/sm/warp_scheduler/kernel_aware.h"

namespace gpumux::sm {
namespace {

class KaIpr : public KernelAwareGto {
  struct Counts {
    uint32_t kernel = 0;
    uint64_t issued = 0, ready = 0;
  };

  void observe(std::span<const WarpView> warps) override {
    std::erase_if(counts_, [&](const Counts& c) {
      return std::none_of(warps.begin(), warps.end(), [&](const WarpView& w) { return w.kernel == c.kernel; });
    });
    for (const WarpView& w : warps)
      if (w.ready) ++of(w.kernel).ready;
  }
  uint32_t favoured(std::span<const uint32_t> ready) override {
    uint32_t best = ready.front();
    for (uint32_t k : ready) {
      const Counts &c = of(k), &b = of(best);
      if (c.issued * b.ready < b.issued * c.ready) best = k;  // c.issued/c.ready < b.issued/b.ready
    }
    return best;
  }
  void issued(const WarpView& w) override { ++of(w.kernel).issued; }

  Counts& of(uint32_t kernel) {
    for (Counts& c : counts_)
      if (c.kernel == kernel) return c;
    return counts_.emplace_back(Counts{kernel, 0, 0});
  }

  std::vector<Counts> counts_;
};

}  // namespace

std::unique_ptr<WarpScheduler> make_ka_ipr(const SmParams&) { return std::make_unique<KaIpr>(); }

}  // namespace gpumux::sm
