#include "gpumux/core/registry.h"
#include "gpumux/sm/warp_scheduler/warp_scheduler.h"

namespace gpumux::sm {

#define GPUMUX_WARP_SCHEDULER(fn, name) std::unique_ptr<WarpScheduler> make_##fn(const SmParams&);
#include "gpumux/sm/warp_scheduler/policies.inc"
#undef GPUMUX_WARP_SCHEDULER

namespace {

constexpr Registered<WarpSchedulerFactory> kPolicies[] = {
#define GPUMUX_WARP_SCHEDULER(fn, name) {name, &make_##fn},
#include "gpumux/sm/warp_scheduler/policies.inc"
#undef GPUMUX_WARP_SCHEDULER
};

}  // namespace

std::vector<std::string> warp_scheduler_names() { return registered_names<WarpSchedulerFactory>(kPolicies); }

std::unique_ptr<WarpScheduler> make_warp_scheduler(const std::string& name, const SmParams& p) {
  return find_registered<WarpSchedulerFactory>(kPolicies, name, "sm.warp_scheduler: unknown policy")(p);
}

}  // namespace gpumux::sm
