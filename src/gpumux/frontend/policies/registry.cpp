#include "gpumux/core/registry.h"
#include "gpumux/frontend/sharing_policy.h"

namespace gpumux::frontend {

#define GPUMUX_SHARING_POLICY(fn, name) std::unique_ptr<SharingPolicy> make_##fn(const PolicyOptions&);
#include "gpumux/frontend/policies/policies.inc"
#undef GPUMUX_SHARING_POLICY

namespace {

using Factory = std::unique_ptr<SharingPolicy> (*)(const PolicyOptions&);

constexpr Registered<Factory> kPolicies[] = {
#define GPUMUX_SHARING_POLICY(fn, name) {name, &make_##fn},
#include "gpumux/frontend/policies/policies.inc"
#undef GPUMUX_SHARING_POLICY
};

}  // namespace

std::vector<std::string> sharing_policy_names() { return registered_names<Factory>(kPolicies); }

std::unique_ptr<SharingPolicy> make_sharing_policy(std::string_view name, const PolicyOptions& o) {
  std::unique_ptr<SharingPolicy> p = find_registered<Factory>(kPolicies, name, "unknown sharing policy")(o);
  make_preemption_mechanism(o.preemption.mechanism);  // an unknown name fails here, at load time
  p->set_preemption(o.preemption);
  p->set_fault_aware(o.fault_aware);
  return p;
}

}  // namespace gpumux::frontend
