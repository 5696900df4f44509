#include "gpumux/core/registry.h"
#include "gpumux/gpu/qos/qos_manager.h"

namespace gpumux::gpu {

#define GPUMUX_QUOTA_SCHEME(fn, name) std::unique_ptr<QosManager> make_##fn(const QosGoals&);
#include "gpumux/gpu/qos/quota_schemes.inc"
#undef GPUMUX_QUOTA_SCHEME

namespace {

using Factory = std::unique_ptr<QosManager> (*)(const QosGoals&);

constexpr Registered<Factory> kSchemes[] = {
#define GPUMUX_QUOTA_SCHEME(fn, name) {name, &make_##fn},
#include "gpumux/gpu/qos/quota_schemes.inc"
#undef GPUMUX_QUOTA_SCHEME
};

}  // namespace

std::vector<std::string> quota_scheme_names() { return registered_names<Factory>(kSchemes); }

std::unique_ptr<QosManager> make_quota_scheme(std::string_view name, const QosGoals& goals) {
  return find_registered<Factory>(kSchemes, name, "unknown quota scheme")(goals);
}

}  // namespace gpumux::gpu
