// The enhanced warp scheduler of Wang et al. (ISCA'17, section 3.3): any
// registered warp scheduler, unchanged, plus one instruction quota counter
// per kernel on the SM. Each issued warp instruction takes its active
// threads off its kernel's counter; a kernel whose counter is at or below
// zero is hidden from the base scheduler, so its warps do not issue (a
// "throttled" stall when nothing else is ready). A QoS manager
// (gpu/qos/qos_manager.h) sets the counters at every epoch boundary.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "gpumux/sm/warp_scheduler/warp_scheduler.h"

namespace gpumux::sm {

// The quota counters C_k of the kernels on one SM, shared by its sub-cores.
class KernelQuotas {
 public:
  // Drops every counter: a kernel without one is not throttled.
  void clear() { entries_.clear(); }
  // Sets kernel `kernel`'s counter to `quota` thread instructions. `qos`:
  // the kernel has a QoS goal; a non-QoS kernel whose counter is used up gets
  // `quota` again once every QoS counter on the SM is used up too, so that
  // cycles the QoS kernels no longer need are not lost (ISCA'17 3.4.1). A
  // non-QoS quota of 0 blocks the kernel until then and leaves it unthrottled
  // after (Rollover-Time).
  void set(uint32_t kernel, int64_t quota, bool qos);
  // Whether warps of `kernel` may issue now (may refill a non-QoS counter).
  bool allows(uint32_t kernel);
  // An instruction of `kernel` issued with `threads` active threads.
  void charge(uint32_t kernel, uint32_t threads);
  // The counter of `kernel`, if it has one.
  std::optional<int64_t> remaining(uint32_t kernel) const;
  // Every counter used up (or refilled): an elastic epoch may end (3.4.3).
  bool all_used() const;
  bool empty() const { return entries_.empty(); }

 private:
  struct Entry {
    uint32_t kernel = 0;
    int64_t quota = 0, left = 0;
    bool qos = false, refilled = false;
  };
  const Entry* find(uint32_t kernel) const;
  Entry* find(uint32_t kernel);
  bool qos_exhausted() const;
  std::vector<Entry> entries_;  // a handful of kernels: a linear search is fastest
};

class QuotaWarpScheduler : public WarpScheduler {
 public:
  QuotaWarpScheduler(std::unique_ptr<WarpScheduler> base, KernelQuotas& quotas)
      : base_(std::move(base)), quotas_(quotas) {}
  int pick(std::span<const WarpView> warps) override;
  bool wants_kernel_fields() const override { return base_->wants_kernel_fields(); }
  // No sticky shortcut: the base's greedy warp may belong to a throttled kernel.

 private:
  std::unique_ptr<WarpScheduler> base_;
  KernelQuotas& quotas_;
  std::vector<WarpView> allowed_;  // the views with throttled kernels' warps not ready
};

}  // namespace gpumux::sm
