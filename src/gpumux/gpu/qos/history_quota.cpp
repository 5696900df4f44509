// History-based quota adjustment (Wang et al., ISCA'17 3.4.2): naive, with a
// QoS kernel's quota scaled by alpha_k = max(IPC_goal / IPC_history, 1), so
// that a kernel behind its goal over its epochs so far gets more; the non-QoS
// kernels' artificial goal divides by alpha_k too (3.5).
#include "gpumux/gpu/qos/quota_allocation.h"

namespace gpumux::gpu {

std::unique_ptr<QosManager> make_history_quota(const QosGoals& goals) {
  return make_quota_allocation(goals, {.history = true});
}

}  // namespace gpumux::gpu
