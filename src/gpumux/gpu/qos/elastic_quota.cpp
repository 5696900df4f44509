// Elastic epoch (Wang et al., ISCA'17 3.4.3): history-based allocation whose
// epochs end early as soon as every quota counter on every SM is used up (or,
// non-QoS, refilled); the counters' overdrafts are taken off the new quotas
// "as if the next epoch had started". The epoch controller looks
// EpochController::kElasticPolls times per epoch.
#include "gpumux/gpu/qos/quota_allocation.h"

namespace gpumux::gpu {

std::unique_ptr<QosManager> make_elastic_quota(const QosGoals& goals) {
  return make_quota_allocation(goals, {.history = true, .elastic = true});
}

}  // namespace gpumux::gpu
