// drain: the TBs closest to finishing (longest resident) are left to finish;
// the SM is free when they have.
#include "gpumux/frontend/preemption/mechanism.h"

namespace gpumux::frontend {
namespace {

class DrainPreemption final : public PreemptionMechanism {
 public:
  std::string_view name() const override { return "drain"; }
  void choose(std::span<const sm::ResidentTb> candidates, uint32_t n, const sm::KernelInstance&,
              const PreemptionEstimates&, std::vector<PreemptChoice>& out) const override {
    auto oldest = [](const sm::ResidentTb& a, const sm::ResidentTb& b) { return a.run_cycles > b.run_cycles; };
    for (const sm::ResidentTb& t : first_n(candidates, n, oldest)) out.push_back({t.slot, sm::PreemptAction::Drain});
  }
};

}  // namespace

std::unique_ptr<PreemptionMechanism> make_drain() { return std::make_unique<DrainPreemption>(); }

}  // namespace gpumux::frontend
