#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/frontend/sharing_policy.h"

namespace gpumux::frontend {

#define GPUMUX_SHARING_POLICY(fn, name) std::unique_ptr<SharingPolicy> make_##fn(const PolicyOptions&);
#include "gpumux/frontend/policies/policies.inc"
#undef GPUMUX_SHARING_POLICY

namespace {

struct Registered {
  const char* name;
  std::unique_ptr<SharingPolicy> (*make)(const PolicyOptions&);
};

constexpr Registered kPolicies[] = {
#define GPUMUX_SHARING_POLICY(fn, name) {name, &make_##fn},
#include "gpumux/frontend/policies/policies.inc"
#undef GPUMUX_SHARING_POLICY
};

}  // namespace

std::vector<std::string> sharing_policy_names() {
  std::vector<std::string> v;
  for (const Registered& r : kPolicies) v.emplace_back(r.name);
  return v;
}

std::unique_ptr<SharingPolicy> make_sharing_policy(std::string_view name, const PolicyOptions& o) {
  for (const Registered& r : kPolicies)
    if (name == r.name) return r.make(o);
  std::string known;
  for (const Registered& r : kPolicies) known += (known.empty() ? "" : ", ") + std::string(r.name);
  throw LoadError(fmt::format("unknown sharing policy '{}' (known: {})", name, known));
}

}  // namespace gpumux::frontend
