// The SM's side of preemption (docs/preemption.md): how one resident TB can
// leave an SM before it finishes, and how a TB taken off comes back.
//
//   Drain   nothing happens to the TB: it runs to completion; the front end
//           only stops placing TBs of its kernel on the SM.
//   Switch  its warps stop issuing; once their in-flight instructions and
//           memory accesses are done, its architectural state (registers,
//           shared memory, barrier and SIMT state) is written by store
//           traffic through the SM's memory path into its application's save
//           area, and its resources are freed. Resuming reads the same bytes
//           back before its warps issue again, on any SM.
//   Flush   allowed only while the TB is idempotent (no global/local store,
//           atomic or device-function side effect yet): its warps stop, its
//           in-flight loads complete, its progress is discarded and it is
//           re-run from the start later. A TB is flushed at most once: its
//           re-run drains or is switched instead, so that repeated
//           preemptions cannot keep restarting it (forward progress).
//
// Lazy shared-memory save (ContextSaveOptions::lazy_shared): a switch saves
// the registers and warp state only; the TB's shared memory stays allocated on
// its SM, parked. If the TB resumes on that SM, its shared memory is neither
// saved nor restored. The SM writes parked shared memory back to the save
// area (eviction) when a placement needs the space, or when the front end
// would place the TB on another SM; it is then restored with the rest.
//
// The functional state of a switched TB is the exec::ThreadBlock itself,
// moved out of the SM and back: a TB resumed any number of times computes
// exactly what it would have without preemption. The memory traffic gives the
// save and restore their time.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "gpumux/core/clock.h"
#include "gpumux/exec/thread_block.h"
#include "gpumux/mem/coalescer.h"
#include "gpumux/mem/request.h"

namespace gpumux::sm {

enum class PreemptAction : uint8_t { Drain, Switch, Flush };
const char* action_name(PreemptAction a);

// What a preemption mechanism sees of one resident TB.
struct ResidentTb {
  uint16_t slot = 0;          // the SM's TB slot (handle for Sm::preempt_tb)
  uint64_t index = 0;         // linear TB index in the grid
  uint64_t run_cycles = 0;    // cycles resident so far, over all its stints on SMs
  uint64_t warp_insts = 0;    // issued since it (re)started from the beginning
  uint64_t context_bytes = 0; // what a switch would save now
  uint64_t live_context_bytes = 0;  // the same, saving live registers only
  uint32_t shared_bytes = 0;  // of those, shared memory (not saved now under lazy_shared)
  bool idempotent = true;     // may be flushed
  bool preempting = false;    // an action other than running to completion is pending
  bool draining = false;      // marked to drain (counts as preempting)
};

// A global memory instruction squashed when its TB was switched out on a
// fault (TB switching on fault, docs/virtual-memory.md): it ran functionally
// at issue, so its replay only sends its lines again (timing), and its
// destinations wait for them as they did.
struct ReplayedAccess {
  uint32_t warp = 0;  // index in the TB's warps
  mem::MemOp op = mem::MemOp::Read;
  uint32_t bytes = 0;  // per lane
  std::vector<mem::LineAccess> lines;
  std::array<uint32_t, 4> regs{};  // scoreboard slots, as the SM's MemOp holds them
  uint8_t num_regs = 0;
  bool is_store = false;
  uint16_t extra_latency = 0;
};

// A TB taken off an SM: its saved state (switch), or nothing (flushed: re-run
// from the start).
struct PreemptedTb {
  uint64_t index = 0;
  std::unique_ptr<exec::ThreadBlock> state;  // null: flushed
  uint64_t context_bytes = 0;                // saved (and to restore)
  uint64_t run_cycles = 0;                   // kept across a switch, 0 after a flush
  uint64_t warp_insts = 0;                   // kept across a switch; after a flush: discarded
  bool live_registers_only = false;          // state saved under that option
  bool side_effects = false;                 // not idempotent any more (cannot be flushed)
  bool flushed = false;                      // flushed once: its re-run is not flushed again (progress)
  bool lazy_shared = false;                  // saved under that option: its save area holds shared memory only once evicted
  int32_t shared_parked_on = -1;             // lazy_shared: the SM still holding its shared memory (-1: saved)
  // TB switching on fault: the SM it was switched out of (-1: another
  // preemption), whether a fault it waits for is still being serviced (it
  // may not resume before), and its squashed instructions, replayed at resume.
  int32_t fault_sm = -1;
  bool faults_pending = false;
  std::vector<ReplayedAccess> replays;
  // Whether any SM may place it now: its shared memory is not parked on one,
  // and no fault it waits for is still being serviced.
  bool ready() const { return shared_parked_on < 0 && !faults_pending; }
};

// How a context switch sizes the state it moves.
struct ContextSaveOptions {
  // Save only the registers live at each warp's pc (PTX liveness) instead of
  // the TB's whole register allocation.
  bool live_registers_only = false;
  // Leave the shared memory parked on the SM (lazy save, above).
  bool lazy_shared = false;
  // Ideal preemption, to measure what preemption costs a policy: every
  // preempted TB is switched, and its context moves without memory traffic
  // (saved and restored in no time, no progress lost). It still leaves once
  // its in-flight memory accesses are done, which its state depends on.
  bool zero_cost = false;
};

}  // namespace gpumux::sm
