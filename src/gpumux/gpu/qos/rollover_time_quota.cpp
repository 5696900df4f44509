// Rollover-Time (Wang et al., ISCA'17 section 4, figures 10-11): the
// CPU-like baseline of Rollover. QoS kernels get Rollover's quotas; a non-QoS
// kernel is blocked on an SM until every QoS counter there is used up, then
// issues unthrottled until the epoch ends (time slicing instead of overlap).
#include "gpumux/gpu/qos/quota_allocation.h"

namespace gpumux::gpu {

std::unique_ptr<QosManager> make_rollover_time_quota(const QosGoals& goals) {
  return make_quota_allocation(goals, {.history = true, .rollover = true, .non_qos_waits = true});
}

}  // namespace gpumux::gpu
