// Warp-level event kernels inside an SM (EDGE; docs/edge.md).
//
// An event kernel of one warp goes straight to an SM's Pending Event Warp
// Table (PEWT). It starts in a free warp slot when the SM has one and enough
// free registers (and free shared memory if it needs some). Otherwise one
// victim warp of a background kernel is preempted: the oldest or newest
// resident warp whose register allocation covers the event's, of a kernel
// whose event needs no shared memory. The victim stops issuing; the event
// waits for what the victim still has in flight, which the flush
// optimizations shorten:
//   barrier     a victim at a barrier: wait for the barrier to release it,
//               or (skip_barrier) preempt it at the barrier at once;
//   scoreboard  without flush_ibuffer, the victim first issues the
//               instructions in its instruction buffer (ibuffer_entries),
//               at the highest priority with raise_victim_priority;
//   loads       its in-flight loads complete, or (replay_loads) are dropped
//               and sent again when the victim resumes (replay_cycles);
//   pipeline    its ALU results in flight are written back;
//   save        its registers go to memory only when the register file
//               lacks free registers for the event (restored afterwards).
// The event warp lends the victim's warp slot and runs at the highest warp
// priority; when it exits, the victim resumes where its SIMT stack left it
// (its exec::Warp is never touched: the functional state is exact).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "gpumux/core/clock.h"
#include "gpumux/sm/kernel_instance.h"

namespace gpumux::sm {

// What an event's wait for its victim was made of, in core cycles.
enum class PreemptWait : uint8_t { Barrier, Scoreboard, Loads, Pipeline, Save };
inline constexpr unsigned kNumPreemptWaits = 5;
const char* preempt_wait_name(PreemptWait w);

// One warp-level event on an SM, as reported when it finishes.
struct EventWarpRecord {
  uint32_t sm = 0;
  Cycle submitted = 0;  // entered the PEWT
  Cycle started = 0;    // its warp was placed (after the victim stopped)
  Cycle finished = 0;
  bool preempted = false;       // it took a victim's warp slot
  bool saved_registers = false;  // the victim's registers went through memory
  std::string victim;            // "kernel TB (x,y,z) warp w"
  std::array<Cycle, kNumPreemptWaits> waits{};
  Cycle preemption_latency() const {
    Cycle s = 0;
    for (Cycle c : waits) s += c;
    return s;
  }
};

class EventWarpListener {
 public:
  virtual ~EventWarpListener() = default;
  // The event warp of `k` has finished (all its accesses done) and its victim
  // is resuming; `k` may be destroyed after the call.
  virtual void event_warp_done(KernelInstance& k, const EventWarpRecord& r) = 0;
};

}  // namespace gpumux::sm
