// switch (thesis 5.2.2): the youngest TBs (least progress at stake if the
// save is slow) are context-switched: their state goes to memory and they
// resume later, first, on any SM.
#include "gpumux/frontend/preemption/mechanism.h"

namespace gpumux::frontend {
namespace {

class ContextSwitchPreemption final : public PreemptionMechanism {
 public:
  std::string_view name() const override { return "switch"; }
  void choose(std::span<const sm::ResidentTb> candidates, uint32_t n, const sm::KernelInstance&,
              const PreemptionEstimates&, std::vector<PreemptChoice>& out) const override {
    auto youngest = [](const sm::ResidentTb& a, const sm::ResidentTb& b) { return a.run_cycles < b.run_cycles; };
    for (const sm::ResidentTb& t : first_n(candidates, n, youngest))
      out.push_back({t.slot, sm::PreemptAction::Switch});
  }
};

}  // namespace

std::unique_ptr<PreemptionMechanism> make_context_switch() { return std::make_unique<ContextSwitchPreemption>(); }

}  // namespace gpumux::frontend
