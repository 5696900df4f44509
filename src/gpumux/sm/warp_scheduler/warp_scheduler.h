// The warp scheduler of one sub-core: each cycle it picks which of its warps
// issues. A policy sees every resident warp of its sub-core with its kernel,
// application, age and readiness, so kernel-aware policies (quotas, QoS
// budgets) fit the same interface; returning no warp although some are ready
// counts as a "throttled by policy" stall.
//
// Adding a policy: write warp_scheduler/<name>.cpp defining
//   std::unique_ptr<WarpScheduler> make_<name>(const SmParams&)
// and add one GPUMUX_WARP_SCHEDULER line to warp_scheduler/policies.inc.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gpumux/core/sm_params.h"

namespace gpumux::sm {

// Fields ordered to pack into 32 bytes: the SM builds one per resident warp at
// every scan. The kernel fields (budget, fair_weight, urgent) are filled only
// for a scheduler whose wants_kernel_fields() is true (unspecified otherwise).
struct WarpView {
  uint16_t slot = 0;     // warp slot in the SM (stable while the warp lives)
  bool ready = false;    // can issue this cycle (operands, instruction, unit)
  bool long_wait = false;  // waits for memory or a barrier (two-level demotes it)
  uint32_t kernel = 0;   // launch id, unique in the run
  uint32_t app = 0;
  uint32_t budget = 1;   // its kernel's warp budget (QAWS)
  uint64_t age = 0;      // dispatch order: smaller is older
  float fair_weight = 0;  // its kernel's KernelInstance::fair_weight (ka-fair)
  // Its TB is being drained, or its kernel has no TB left to place (kernel-aware
  // schedulers issue such warps first, to free the SM sooner).
  bool urgent = false;
};
static_assert(sizeof(WarpView) == 32);

class WarpScheduler {
 public:
  virtual ~WarpScheduler() = default;
  // `warps` are the sub-core's resident warps, oldest first, at least one
  // ready. Returns the index of a ready warp, or -1 to issue nothing.
  virtual int pick(std::span<const WarpView> warps) = 0;
  // Optional shortcut: a warp (slot and age) that pick() would choose, without
  // changing its state, whenever that warp is ready, whatever the others do
  // (GTO's greedy warp). The SM then issues it without building the views.
  // Returns false when there is none.
  virtual bool sticky(uint16_t& slot, uint64_t& age) const {
    (void)slot;
    (void)age;
    return false;
  }
  // Whether pick() reads WarpView's kernel fields (budget, fair_weight,
  // urgent): the SM fills them only then, sparing the others the loads.
  virtual bool wants_kernel_fields() const { return false; }
};

using WarpSchedulerFactory = std::unique_ptr<WarpScheduler> (*)(const SmParams&);

// The policy registered under `name`; LoadError listing the known names if none.
std::unique_ptr<WarpScheduler> make_warp_scheduler(const std::string& name, const SmParams& p);
std::vector<std::string> warp_scheduler_names();

}  // namespace gpumux::sm
