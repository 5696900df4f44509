// flush (Chimera's SM flushing): idempotent TBs, those with the least work
// done first, are discarded and re-run from the start later; a TB that has
// already had a side effect cannot be flushed and drains instead (the SM
// decides, as idempotence can change until the moment it stops the TB).
#include "gpumux/frontend/preemption/mechanism.h"

namespace gpumux::frontend {
namespace {

class FlushPreemption final : public PreemptionMechanism {
 public:
  std::string_view name() const override { return "flush"; }
  void choose(std::span<const sm::ResidentTb> candidates, uint32_t n, const sm::KernelInstance&,
              const PreemptionEstimates&, std::vector<PreemptChoice>& out) const override {
    auto cheapest = [](const sm::ResidentTb& a, const sm::ResidentTb& b) {
      if (a.idempotent != b.idempotent) return a.idempotent;
      return a.warp_insts < b.warp_insts;
    };
    for (const sm::ResidentTb& t : first_n(candidates, n, cheapest)) out.push_back({t.slot, sm::PreemptAction::Flush});
  }
};

}  // namespace

std::unique_ptr<PreemptionMechanism> make_flush() { return std::make_unique<FlushPreemption>(); }

}  // namespace gpumux::frontend
