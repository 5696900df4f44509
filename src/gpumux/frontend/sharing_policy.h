// The seam between the TB dispatcher and sharing policies (docs/sharing-policies.md).
//
// A policy partitions the SMs among the active kernels: for every (kernel, SM)
// it gives a quota, the most TBs of that kernel that may be resident on that
// SM. The dispatcher places a TB of kernel k on SM s only if it fits s's free
// resources, s holds fewer than quota(k, s) TBs of k and, for a spatial policy
// (exclusive_sms()), s holds no TB of another kernel. The dispatcher calls
// repartition() whenever the set of active kernels changes and when a kernel
// dispatches its last TB; a partition change takes effect as running TBs
// finish (no preemption).
//
// Policies are registered by name (policies/policies.inc, one line each, one
// file per policy under policies/):
//   fcfs           no partition: kernels take leftover resources in dispatch order (Hyper-Q)
//   spatial-even   SMs split evenly among the kernels, contiguous ranges, one kernel per SM
//   spatial-smart  as spatial-even, but no kernel gets more SMs than its TBs can fill
//   smk-even       every SM shared: each kernel gets 1/n of every SM resource
//   smk-drf        every SM shared by dominant-resource fairness (progressive filling)
//   smk-quota      every SM shared: explicit TBs per SM per kernel of each application
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpumux/core/error.h"
#include "gpumux/sm/kernel_instance.h"
#include "gpumux/sm/sm.h"

namespace gpumux::frontend {

// What a policy sees of one active kernel.
struct ActiveKernel {
  const sm::KernelInstance* kernel;
  uint64_t tbs_left;     // TBs not yet dispatched
  uint64_t tbs_running;  // dispatched, not finished
};

// Parameters of the policies, from the workload file.
struct PolicyOptions {
  std::map<uint32_t, uint32_t> tb_quota_by_app;  // smk-quota: TBs per SM per kernel of app id
};

class SharingPolicy {
 public:
  static constexpr uint32_t kUnlimited = ~0u;
  virtual ~SharingPolicy() = default;
  virtual std::string_view name() const = 0;
  // Recomputes the partition; called by the dispatcher whenever the set of
  // active kernels changes (activation, completion) and when a kernel
  // dispatches its last TB. `active` is in dispatch-priority order. Throws
  // PartitionError when a kernel's share cannot hold one of its TBs.
  virtual void repartition(std::span<const ActiveKernel> active, std::span<sm::Sm* const> sms) = 0;
  // Max resident TBs of k on SM `sm` (its id) under the current partition
  // (0: none, kUnlimited: as many as fit).
  virtual uint32_t quota(const sm::KernelInstance& k, uint32_t sm) const = 0;
  // Spatial policies: an SM hosts one kernel at a time; the dispatcher waits
  // until an SM holds no TB of another kernel before placing a TB there.
  virtual bool exclusive_sms() const { return false; }
};

// Registered policies by name; LoadError listing the known names for an unknown one.
std::unique_ptr<SharingPolicy> make_sharing_policy(std::string_view name, const PolicyOptions& o = {});
std::vector<std::string> sharing_policy_names();

// A kernel whose share under the partition cannot hold one of its TBs (e.g.
// smk-even with 4 kernels and a 1024-thread TB): thrown from repartition; the
// message names the kernel label, the policy, the share and the need.
class PartitionError : public ApiError {
 public:
  using ApiError::ApiError;
};

}  // namespace gpumux::frontend
