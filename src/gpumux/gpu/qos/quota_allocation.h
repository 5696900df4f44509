// The quota allocation shared by the quota schemes of Wang et al. (ISCA'17
// 3.4-3.5); each scheme (one file each, registered in quota_schemes.inc) is a
// set of QuotaRules. At every epoch boundary:
//  - a QoS kernel k gets Quota_k = alpha_k x IPC_goal,k x T_epoch thread
//    instructions, alpha_k = max(IPC_goal,k / IPC_history,k, 1) with the
//    history rule (IPC_history: its application's over all the epochs in
//    which the application had an active kernel), else 1; quota carried over
//    is the application's too, so that it survives the end of a launch; an
//    application running several kernels at once splits its quota by TBs;
//  - a non-QoS kernel's quota comes from the artificial goal (3.5)
//      IPC_goal = IPC_epoch x prod over QoS kernels k of IPC_epoch,k / (alpha_k IPC_goal,k)
//    where IPC_epoch is what the kernel reached in the epoch that ended, 1
//    before it has one, and at least 1 (a kernel that could not issue during
//    one epoch is not starved for good); a QoS kernel without a finished
//    epoch counts as on track;
//  - each quota is split over the SMs by the TBs each hosts: Quota_k x T_i / T.
// IPC is in thread instructions per core cycle over the whole GPU.
#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include "gpumux/gpu/qos/qos_manager.h"

namespace gpumux::gpu {

struct QuotaRules {
  bool history = false;   // alpha_k from IPC_history (3.4.2)
  bool rollover = false;  // a QoS kernel's unused quota is added to its next one (3.4.4)
  bool elastic = false;   // a new epoch as soon as every counter is used up; overdrafts carried (3.4.3)
  // Rollover-Time: non-QoS kernels issue only once every QoS counter of
  // their SM is used up, then unthrottled (CPU-like time slicing, section 4).
  bool non_qos_waits = false;
};

std::unique_ptr<QosManager> make_quota_allocation(const QosGoals& goals, QuotaRules rules);

}  // namespace gpumux::gpu
