// A kernel launch as the SMs see it: the functional launch its TBs execute,
// who it belongs to (app, stats key) and what one TB needs. Owned by the front
// end; SMs hold pointers to it while its TBs are resident.
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "gpumux/core/stats.h"
#include "gpumux/exec/thread_block.h"
#include "gpumux/sm/inst_timing.h"
#include "gpumux/sm/occupancy.h"

namespace gpumux::sm {

struct KernelInstance {
  uint32_t id = 0;     // launch order, unique in the run
  uint32_t app = 0;    // application (context) id
  int priority = 0;    // of its stream: higher is more urgent
  uint32_t warp_budget = 1;  // its application's, for the QAWS warp scheduler
  // ka-fair: its isolated issue rate x% over the warps it has per sub-core
  // alone (T_k TBs per SM), so that a sub-core's sum over the kernel's
  // resident warps is C_k = x% S_k / T_k (GPU Maestro, equation 4); 0: unknown.
  float fair_weight = 0;
  StatKey key = kNoKey;
  std::string label;   // "app.kernel"
  exec::GridLaunch grid;
  const ModuleTiming* timing = nullptr;
  TbNeeds needs;
  // No TB left to place (set by the dispatcher): its resident TBs are its
  // last, kernel-aware warp schedulers issue them first.
  bool all_placed = false;
  uint64_t warp_insts = 0;  // issued so far on all SMs (per-launch IPC)
  uint64_t thread_insts = 0;  // their active threads (per-launch QoS results)
  // Finished TBs and their summed residency in cycles: the average TB length
  // a preemption mechanism uses to predict how long draining a TB takes.
  uint64_t tbs_finished = 0, tb_cycles_finished = 0;
  // First device fault of the launch (set by the SM that saw it): its TBs are
  // aborted and no more are dispatched.
  std::exception_ptr fault;
  // An event kernel (frontend/events/): never a victim of warp-level preemption.
  bool event = false;
  // The SMs its TBs may use, by SM id (a stream of a green context,
  // runtime::Context::create_stream); empty: every SM. The dispatcher places
  // TBs only where both this and the sharing policy's quota allow.
  std::vector<bool> sms;
  bool may_use_sm(uint32_t sm) const { return sms.empty() || (sm < sms.size() && sms[sm]); }
};

}  // namespace gpumux::sm
