#include "gpumux/core/registry.h"
#include "gpumux/frontend/preemption/mechanism.h"

namespace gpumux::frontend {

#define GPUMUX_PREEMPTION_MECHANISM(fn, name) std::unique_ptr<PreemptionMechanism> make_##fn();
#include "gpumux/frontend/preemption/mechanisms.inc"
#undef GPUMUX_PREEMPTION_MECHANISM

namespace {

using Factory = std::unique_ptr<PreemptionMechanism> (*)();

constexpr Registered<Factory> kMechanisms[] = {
#define GPUMUX_PREEMPTION_MECHANISM(fn, name) {name, &make_##fn},
#include "gpumux/frontend/preemption/mechanisms.inc"
#undef GPUMUX_PREEMPTION_MECHANISM
};

}  // namespace

std::vector<std::string> preemption_mechanism_names() { return registered_names<Factory>(kMechanisms); }

std::unique_ptr<PreemptionMechanism> make_preemption_mechanism(std::string_view name) {
  return find_registered<Factory>(kMechanisms, name, "unknown preemption mechanism")();
}

}  // namespace gpumux::frontend
