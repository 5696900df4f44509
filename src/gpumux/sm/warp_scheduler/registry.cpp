#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/sm/warp_scheduler/warp_scheduler.h"

namespace gpumux::sm {

#define GPUMUX_WARP_SCHEDULER(fn, name) std::unique_ptr<WarpScheduler> make_##fn(const SmParams&);
#include "gpumux/sm/warp_scheduler/policies.inc"
#undef GPUMUX_WARP_SCHEDULER

namespace {

struct Registered {
  const char* name;
  WarpSchedulerFactory make;
};

constexpr Registered kPolicies[] = {
#define GPUMUX_WARP_SCHEDULER(fn, name) {name, &make_##fn},
#include "gpumux/sm/warp_scheduler/policies.inc"
#undef GPUMUX_WARP_SCHEDULER
};

}  // namespace

std::vector<std::string> warp_scheduler_names() {
  std::vector<std::string> v;
  for (const Registered& r : kPolicies) v.emplace_back(r.name);
  return v;
}

std::unique_ptr<WarpScheduler> make_warp_scheduler(const std::string& name, const SmParams& p) {
  for (const Registered& r : kPolicies)
    if (name == r.name) return r.make(p);
  std::string known;
  for (const Registered& r : kPolicies) known += (known.empty() ? "" : ", ") + std::string(r.name);
  throw LoadError(fmt::format("sm.warp_scheduler: unknown policy '{}' (known: {})", name, known));
}

}  // namespace gpumux::sm
