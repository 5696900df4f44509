// The seam between the TB dispatcher and sharing policies: the dispatcher
// finds TBs that fit an SM's free resources; the policy says whether kernel K
// may place a TB on SM s now. Spatial partitioners (SMs per kernel), SMK
// quotas (TBs per kernel per SM) and preemption-aware schedulers implement
// this interface; FCFS, the default, always agrees, so kernels take leftover
// resources in arrival order (like Hyper-Q).
#pragma once

#include <memory>

#include "gpumux/sm/kernel_instance.h"
#include "gpumux/sm/sm.h"

namespace gpumux::frontend {

class SharingPolicy {
 public:
  virtual ~SharingPolicy() = default;
  // Called for a kernel with TBs left whose TB fits `sm` now.
  virtual bool may_place(const sm::KernelInstance& k, const sm::Sm& sm) = 0;
  // Lifecycle notifications, for policies that keep per-kernel state.
  virtual void kernel_activated(const sm::KernelInstance&) {}
  virtual void kernel_finished(const sm::KernelInstance&) {}
};

class FcfsPolicy : public SharingPolicy {
 public:
  bool may_place(const sm::KernelInstance&, const sm::Sm&) override { return true; }
};

}  // namespace gpumux::frontend
