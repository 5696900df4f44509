// Kernel-aware Fair (GPU Maestro 5.2, SMK-W of Wang et al.): kernel k's share
// of the issue slots is Quota_k = C_k / sum C_k with C_k = x% S_k / T_k (x%:
// its isolated issue rate, T_k / S_k: its TBs per SM alone / now). Here per
// sub-core: C_k is the sum of its resident warps' fair_weight (x% over its
// warps per sub-core alone, set at launch from the runner's isolated runs),
// and the ready kernel furthest behind its share (fewest issued / C_k) goes
// first. A kernel without an isolated rate (C_k = 0) goes last.
#include "gpumux/sm/warp_scheduler/kernel_aware.h"

namespace gpumux::sm {
namespace {

class KaFair : public KernelAwareGto {
  struct Share {
    uint64_t issued = 0;
    double weight = 0;  // C_k on this sub-core now
  };

  void observe(std::span<const WarpView> warps) override {
    shares_.keep_resident(warps);
    shares_.for_each([](Share& s) { s.weight = 0; });
    for (const WarpView& w : warps) shares_.of(w.kernel).weight += w.fair_weight;
  }
  uint32_t favoured(std::span<const uint32_t> ready) override {
    uint32_t best = ready.front();
    for (uint32_t k : ready) {
      const Share &c = shares_.of(k), &b = shares_.of(best);
      // c.issued / c.weight < b.issued / b.weight; a kernel of weight 0 loses to any other.
      if (b.weight == 0 ? c.weight > 0 : c.weight > 0 && double(c.issued) * b.weight < double(b.issued) * c.weight)
        best = k;
    }
    return best;
  }
  void issued(const WarpView& w) override { ++shares_.of(w.kernel).issued; }

  PerKernel<Share> shares_;
};

}  // namespace

std::unique_ptr<WarpScheduler> make_ka_fair(const SmParams&) { return std::make_unique<KaFair>(); }

}  // namespace gpumux::sm
