// Rollover allocation (Wang et al., ISCA'17 3.4.4): history-based allocation
// in which a QoS kernel's unused quota at an epoch boundary (or its overdraft)
// is added to its next quota, so that a kernel behind its goal catches up;
// non-QoS quota is discarded as usual.
#include "gpumux/gpu/qos/quota_allocation.h"

namespace gpumux::gpu {

std::unique_ptr<QosManager> make_rollover_quota(const QosGoals& goals) {
  return make_quota_allocation(goals, {.history = true, .rollover = true});
}

}  // namespace gpumux::gpu
