// A kernel launch as the engine sees it (GridLaunch) and one thread block of
// it: its warps, its shared memory and its named barriers. A ThreadBlock is a
// value that can be copied out (save for a context switch) and back (restore);
// dropping it discards the TB's progress (flush).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "gpumux/exec/warp.h"

namespace gpumux::exec {

class AddressSpace;
class BuiltinServices;
class LoadedModule;

using Dim = std::array<uint32_t, 3>;

// Everything about one kernel launch that all its TBs share. Immutable while it runs.
struct GridLaunch {
  const LoadedModule* module = nullptr;
  uint32_t kernel = 0;           // index in Module::functions
  Dim grid{1, 1, 1}, block{1, 1, 1};
  uint64_t dyn_smem = 0;
  std::vector<uint8_t> params;   // packed kernel parameter buffer
  AddressSpace* mem = nullptr;   // the application's address space
  BuiltinServices* builtins = nullptr;  // its printf sink and device heap (exec/builtins)
  uint32_t grid_id = 0;          // %gridid
  uint32_t depth = 0;            // nesting depth: 0 for a host launch, parent's + 1 for a device launch
  uint32_t num_sms = 1;          // %nsmid
  uint64_t max_local_per_thread = 512 * 1024;
  // A cooperative launch's grid-barrier workspace in `mem` (0 otherwise): nvcc's
  // cooperative_groups reads it through %envreg1 (high half) and %envreg2 (low half).
  uint64_t grid_sync = 0;

  const ptx::Function& function() const;
  uint32_t threads_per_tb() const { return block[0] * block[1] * block[2]; }
  uint32_t warps_per_tb() const { return (threads_per_tb() + kWarpSize - 1) / kWarpSize; }
  uint64_t num_tbs() const { return uint64_t(grid[0]) * grid[1] * grid[2]; }
  Dim tb_coords(uint64_t linear) const;
};

class ThreadBlock {
 public:
  static constexpr unsigned kNumBarriers = 16;

  ThreadBlock(const GridLaunch& launch, Dim ctaid, uint32_t smid);
  // Copies are snapshots: the copy's warps point at the copy.
  ThreadBlock(const ThreadBlock& o);
  ThreadBlock& operator=(const ThreadBlock& o);

  const GridLaunch& launch() const { return *launch_; }
  Dim ctaid() const { return ctaid_; }
  uint32_t smid() const { return smid_; }
  // A TB resumed after a context switch may run on another SM (%smid changes, as on hardware).
  void set_smid(uint32_t smid) { smid_ = smid; }
  // %clock/%clock64 read *cycles when set (the cycle counter of the SM running
  // the TB, under the timing model); unset, they count the warp's instructions.
  void set_clock_source(const uint64_t* cycles) { clock_source_ = cycles; }
  const uint64_t* clock_source() const { return clock_source_; }
  std::vector<Warp>& warps() { return warps_; }
  const std::vector<Warp>& warps() const { return warps_; }
  std::vector<uint8_t>& shared() { return shared_; }
  const std::vector<uint8_t>& shared() const { return shared_; }
  uint64_t static_smem() const { return static_smem_; }
  bool done() const { return live_threads_ == 0; }

  // Barrier protocol (bar.sync / bar.arrive / bar.red). `threads` is the
  // expected number of threads, 0 meaning all live threads of the TB. Returns
  // true if the arrival released the barrier.
  bool arrive(Warp& w, unsigned id, uint32_t threads, uint32_t lanes, bool wait,
              const ptx::Instruction* red_inst, uint32_t red_true_lanes);
  // Called when lanes of a warp exit: a barrier may now be complete.
  void on_lanes_exited(uint32_t count);
  // For deadlock reports: which barrier each blocked warp waits at.
  std::string describe_waits() const;

  // Runs every warp until all exit (functional mode). Throws DeviceFault on a
  // fault or a barrier deadlock. Returns the warp instructions executed.
  uint64_t run_to_completion() { return run_to_completion(NoStepHook{}); }
  // The same, calling after_step(warp, instruction, executed lanes) after each
  // warp instruction, for observers outside the model (trace export).
  template <class AfterStep>
  uint64_t run_to_completion(AfterStep&& after_step);

 private:
  struct Barrier {
    uint32_t arrived = 0;     // threads arrived
    uint32_t expected = 0;    // 0: all live threads
    uint32_t accum = 0;       // bar.red accumulator
    uint32_t result = 0;      // last released reduction
    bool red_and = true;      // bar.red.and accumulates with AND
    ptx::RedOp op = ptx::RedOp::None;
    std::vector<uint16_t> waiting;  // warps blocked here
  };
  struct NoStepHook {
    void operator()(const Warp&, const ptx::Instruction&, uint32_t) const {}
  };
  bool try_release(unsigned id);
  // A round of run_to_completion() without progress: returns if every warp
  // exited, else faults with a barrier-deadlock report.
  void check_stalled() const;
  // Spin rounds (see run_to_completion) after which no arrival can come.
  static constexpr unsigned kMaxSpinRounds = 1024;
  // Warp instructions a warp runs before the others get a turn: a warp that
  // waits for another by spinning on memory (cooperative groups' tiles wider
  // than a warp) never blocks, so it must not run alone forever.
  static constexpr unsigned kTurnInstructions = 1 << 16;
  [[noreturn]] void spin_deadlock() const;

  const GridLaunch* launch_;
  Dim ctaid_;
  uint32_t smid_;
  const uint64_t* clock_source_ = nullptr;
  uint64_t static_smem_ = 0;
  uint32_t live_threads_ = 0;
  std::vector<uint8_t> shared_;
  std::vector<Warp> warps_;
  std::array<Barrier, kNumBarriers> bars_{};
};

template <class AfterStep>
uint64_t ThreadBlock::run_to_completion(AfterStep&& after_step) {
  constexpr bool kObserved = !std::is_same_v<std::decay_t<AfterStep>, NoStepHook>;
  unsigned spin_rounds = 0;  // rounds in a row in which every warp that ran ended in a failed wait
  uint64_t executed = 0;
  for (;;) {
    bool progressed = false, only_spins = true;
    for (Warp& w : warps_) {
      // Run each warp until it blocks or its turn ends: few switches, same
      // result, since memory order is unspecified between barriers. A failed
      // mbarrier wait yields (a spin round); the end of a turn does not.
      bool ran = false, yielded = false;
      for (unsigned turn = 0; turn < kTurnInstructions && w.ready(); ++turn) {
        if constexpr (kObserved) {
          const ptx::Instruction& in = w.next_instruction();
          uint32_t mask = w.active_mask();
          if (in.guard != ptx::kNoReg) mask &= w.guard_true_mask(in);
          w.step();
          after_step(static_cast<const Warp&>(w), in, mask);
        } else {
          w.step();
        }
        ++executed;
        ran = true;
        if (w.take_yield()) [[unlikely]] {
          yielded = true;
          break;
        }
      }
      progressed |= ran;
      only_spins &= !ran || yielded;
    }
    spin_rounds = progressed && only_spins ? spin_rounds + 1 : 0;
    if (spin_rounds > kMaxSpinRounds) spin_deadlock();
    if (done()) return executed;
    if (!progressed) {
      check_stalled();
      return executed;
    }
  }
}

}  // namespace gpumux::exec
