// Static TB adjustment of Wang et al. (ISCA'17 3.6), used by the quota
// schemes when the workload asks for it ([policy] tb_adjustment = true, on
// the symmetric allocation of the sharing policy "smk-symmetric"). During
// each epoch the epoch controller samples, idle_warp_samples times, the idle
// warps of every active kernel on every SM (warps whose next instruction is
// ready but that do not issue: Sm::idle_warps); their mean over the epoch,
// divided by the kernel's warps per TB, is its count of idle TBs on that SM.
// At the epoch boundary, on each SM, a QoS kernel with TBs left to place,
// IPC_history below its goal and at most one idle TB there gets one more TB
// there, unless the SM has room for it and its share there is not filled
// yet (its TBs are still being placed). If the SM's free resources cannot hold it, n TBs of a victim kernel
// on that SM are swapped out with the policy's preemption mechanism (the
// paper: partial context switch), n the fewest that vacate enough resources;
// the victim is the first, in dispatch order and non-QoS kernels first,
// that satisfies one of the paper's rules:
//   - it is a non-QoS kernel;
//   - it has at least n + 1 idle TBs on that SM;
//   - IPC_history x (1 - n / N) > its goal, N its resident TBs on all SMs.
// Swaps happen only while no preemption is pending. The victim's share on
// that SM shrinks by n and the gainer's grows by one, for the rest of their
// launches. IPC_history is the application's thread IPC over all the epochs
// in which it had an active kernel (as the history quota scheme's).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "gpumux/gpu/qos/tb_adjustment_params.h"
#include "gpumux/core/stats.h"
#include "gpumux/frontend/policies/common.h"
#include "gpumux/frontend/policies/smk_symmetric.h"
#include "gpumux/frontend/tb_dispatcher.h"
#include "gpumux/gpu/qos/qos_manager.h"
#include "gpumux/sm/sm.h"

namespace gpumux::gpu {

// One active kernel at an epoch boundary, as the decision sees it.
struct TbKernel {
  uint32_t kernel = 0;                 // launch id
  std::optional<double> goal;          // thread IPC; none: non-QoS
  std::optional<double> ipc_history;   // none before a finished epoch
  bool tbs_left = false;               // TBs waiting to be placed
  uint32_t warps_per_tb = 1;
  frontend::policy::Amounts need{};    // of one TB
  std::vector<uint32_t> tbs;           // resident, per SM
  std::vector<uint32_t> share;         // its TB quota under the policy, per SM (empty: no limit)
  std::vector<double> idle_warps;      // mean sampled, per SM
  uint32_t idle_tbs(uint32_t sm) const { return uint32_t(idle_warps[sm] / double(warps_per_tb)); }
};

// One more TB of `kernel` on `sm`; `victim_tbs` TBs of `victim` leave it first (0: it fits).
struct TbMove {
  uint32_t sm = 0, kernel = 0;
  uint32_t victim = 0, victim_tbs = 0;
  bool operator==(const TbMove&) const = default;
};

// The decision of one epoch boundary (pure: unit-tested). `kernels` in
// dispatch order; `capacity` of one SM; `may_swap`: no preemption pending.
std::vector<TbMove> plan_tb_moves(std::span<const TbKernel> kernels, const frontend::policy::Amounts& capacity,
                                  bool may_swap);

// The component the epoch controller drives: sampling, histories, decision
// and its application to the policy (frontend::TbShareTarget) and dispatcher.
class TbAdjustment {
 public:
  // The dispatcher's policy must be a TbShareTarget (ApiError otherwise).
  TbAdjustment(const TbAdjustmentParams& p, QosGoals goals, frontend::TbDispatcher& dispatcher,
               std::vector<sm::Sm*> sms);
  void register_stats(StatRegistry& reg);
  uint32_t samples_per_epoch() const { return p_.idle_warp_samples; }
  // Counts the idle warps of every active kernel on every SM.
  void sample(Cycle now);
  // At an epoch boundary (`s` the epoch that ended): decides and applies the moves.
  void new_epoch(const EpochSample& s, Cycle now);

 private:
  struct History {
    uint64_t thread_insts = 0;
    Cycle cycles = 0;
  };
  // Adds the context bytes and latency of finished swaps to the statistics.
  void account_swaps();

  TbAdjustmentParams p_;
  QosGoals goals_;
  frontend::TbDispatcher& dispatcher_;
  frontend::TbShareTarget& shares_;
  std::unique_ptr<frontend::PreemptionMechanism> context_switch_;  // how victims leave
  std::vector<sm::Sm*> sms_;
  std::map<uint32_t, std::vector<uint64_t>> idle_sums_;  // by kernel id, per SM, this epoch
  uint32_t samples_ = 0;                                 // this epoch
  std::map<uint32_t, History> history_;                  // by app id
  // Preemption records (index) of swaps not yet finished, and the victim's stat key.
  std::vector<std::pair<size_t, StatKey>> swaps_pending_;
  KeyedCounter grants_, victim_tbs_, swap_bytes_, swap_cycles_;
  Counter idle_samples_;
};

}  // namespace gpumux::gpu
