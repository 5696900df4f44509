// Naive quota allocation (Wang et al., ISCA'17 3.4.1): every epoch each
// kernel's counters are reset to its quota, unused quota is discarded,
// alpha_k = 1. Non-QoS counters are refilled within the epoch once every QoS
// counter of their SM is used up (sm::KernelQuotas). quota_allocation.h has
// the formulas.
#include "gpumux/gpu/qos/quota_allocation.h"

namespace gpumux::gpu {

std::unique_ptr<QosManager> make_naive_quota(const QosGoals& goals) { return make_quota_allocation(goals, {}); }

}  // namespace gpumux::gpu
