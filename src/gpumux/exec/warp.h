// Architectural state of one warp and its execution, one warp instruction at
// a time. Divergence uses a per-function SIMT reconvergence stack whose
// entries reconverge at the immediate post-dominator computed by ptx/cfg.
// Device-function calls push a Frame with its own registers, local-memory
// depot and parameter area. A Warp is a plain value: copying it saves its
// state (preemption), assigning a saved copy back restores it.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "gpumux/exec/step_context.h"
#include "gpumux/ptx/ir.h"

namespace gpumux::exec {

class ThreadBlock;
class LoadedModule;

// One divergent path: execute from pc with mask until pc reaches rpc.
struct SimtEntry {
  uint32_t pc = 0;
  uint32_t rpc = 0;
  uint32_t mask = 0;
};

// One activation of a function (the kernel itself is frame 0).
struct Frame {
  uint32_t fn = 0;            // index in Module::functions
  uint32_t ret_pc = 0;        // caller's pc after the call
  uint32_t simt_base = 0;     // first SimtEntry of this frame in Warp::simt
  uint32_t reg_base = 0;      // first PTX register of the frame, counting the callers' (timing model)
  uint32_t slot_base = 0;     // first storage slot (x32 lanes) in Warp::regs (ptx/register_slots.h)
  uint32_t pred_base = 0;     // first predicate in Warp::preds
  uint32_t local_base = 0;    // per-thread local-memory offset of this frame's depot
  uint32_t param_base = 0;    // per-thread offset of this frame's parameter area
  uint32_t returned = 0;      // lanes that executed ret in this frame
  uint32_t call_pc = 0;       // caller's call instruction (return values are copied at ret)
  const ptx::Function* code = nullptr;  // LoadedModule::exec_function(fn): registers as slots
};

// What memory a warp instruction touched; filled when recording is on (timing model).
struct MemAccess {
  ptx::Space space = ptx::Space::None;  // resolved space (generic accesses are resolved)
  bool is_store = false, is_atomic = false;
  uint32_t bytes = 0;                   // per lane (vector loads: whole vector)
  uint32_t mask = 0;                    // lanes that accessed
  std::array<uint64_t, kWarpSize> addr{};  // global: device address; shared/local: offset
};

enum class WarpState : uint8_t { Ready, AtBarrier, Exited };

class Warp {
 public:
  Warp(ThreadBlock& tb, uint32_t index, uint32_t valid_lanes);

  // Executes the next instruction. Returns the instruction executed.
  const ptx::Instruction& step();

  WarpState state() const { return state_; }
  bool ready() const { return state_ == WarpState::Ready; }
  uint32_t index() const { return index_; }
  uint32_t pc() const { return simt_.back().pc; }
  uint32_t active_mask() const { return simt_.back().mask; }
  uint32_t function() const { return frames_.back().fn; }
  // The current function as the warp executes it (registers as storage slots).
  const ptx::Function& exec_function() const { return *frames_.back().code; }
  const ptx::Instruction& next_instruction() const;
  uint64_t executed() const { return executed_; }
  ThreadBlock& tb() const { return *tb_; }
  // Lane i's thread index within the TB (linear).
  uint32_t thread_linear(unsigned lane) const { return index_ * kWarpSize + lane; }

  // Memory access recording for the timing model.
  void set_record_memory(bool on) { record_mem_ = on; }
  const MemAccess& last_access() const { return mem_; }

  // --- used by instruction handlers (exec/ops_*.cpp) ---
  MemAccess& access() { return mem_; }
  bool recording() const { return record_mem_; }
  uint32_t guard_true_mask(const ptx::Instruction& in) const;
  void branch(uint32_t taken_mask, uint32_t target, uint32_t reconv);
  void call(const ptx::Instruction& in, uint32_t mask, uint32_t callee);
  void ret(uint32_t mask);
  void exit_lanes(uint32_t mask);
  void wait_at_barrier() { state_ = WarpState::AtBarrier; }
  // bar.red: the destination to write when the barrier releases.
  void set_pending_reduction(const ptx::Instruction* in, uint32_t lanes) {
    pending_red_ = in;
    pending_red_lanes_ = lanes;
  }
  void release_from_barrier(uint32_t reduction);
  // A wait that found its condition false (mbarrier.test_wait/try_wait): the
  // warp spins, so ThreadBlock::run_to_completion lets the other warps run.
  void request_yield() { yield_ = true; }
  bool take_yield() {
    const bool y = yield_;
    yield_ = false;
    return y;
  }
  // Divergent indirect call: `later` lanes execute the call instruction again
  // once the other lanes have returned from theirs (ops_control.cpp).
  void defer_call(uint32_t later);
  void rebind(ThreadBlock& tb) { tb_ = &tb; }
  // Trace replay (replay.h): the warp's next instruction is `pc`, executed
  // by `lanes` (nonzero); its registers, for the replay's hidden state.
  void replay_at(uint32_t pc, uint32_t lanes) { simt_.back() = SimtEntry{pc, 0xffffffffu, lanes}; }
  uint64_t* register_lanes(uint32_t r) { return regs_.data() + size_t(r) * kWarpSize; }
  uint8_t* local_ptr(unsigned lane, uint64_t offset, uint64_t bytes);
  uint8_t* param_ptr(unsigned lane, uint64_t offset, uint64_t bytes);
  const Frame& frame() const { return frames_.back(); }
  // Asks the host cache for storage slot `abs` (all lanes; frame's slot_base
  // included) ahead of the instruction that uses it: a warp's registers are
  // rarely still cached when it issues again (docs/performance.md).
  void prefetch_register(size_t abs) const {
    if (abs >= regs_.size() / kWarpSize) return;
    const uint64_t* p = regs_.data() + abs * kWarpSize;
    for (unsigned line = 0; line < kWarpSize * sizeof(uint64_t) / 64; ++line) __builtin_prefetch(p + 8 * line);
  }
  bool in_kernel_frame() const { return frames_.size() == 1; }
  uint64_t clock() const;
  [[noreturn]] void fault(const std::string& reason, std::optional<unsigned> lane) const;

 private:
  void pop_reconverged();
  void remove_lanes(uint32_t mask, size_t from_frame);
  void bind_context(StepContext& c);
  void grow_per_thread(std::vector<uint8_t>& buf, uint32_t& stride, uint64_t need,
                       const char* what);

  ThreadBlock* tb_;
  uint32_t index_;
  WarpState state_ = WarpState::Ready;
  bool record_mem_ = false;
  bool yield_ = false;
  uint64_t executed_ = 0;
  std::vector<Frame> frames_;
  std::vector<SimtEntry> simt_;
  std::vector<uint64_t> regs_;
  std::vector<uint32_t> preds_;
  // Per-thread memories, lane-major: lane * stride + offset.
  std::vector<uint8_t> local_, params_;
  uint32_t local_stride_ = 0, param_stride_ = 0;
  uint32_t local_top_ = 0, param_top_ = 0;  // next free per-thread offsets
  MemAccess mem_;
  const ptx::Instruction* pending_red_ = nullptr;
  uint32_t pending_red_lanes_ = 0;
};

// Address of a Symbol operand in its own space: device address for
// .global/.const, TB offset for .shared, per-thread offset for .local and
// frame .param variables, kernel parameter-buffer offset for kernel params.
uint64_t symbol_address(const Warp& w, const ptx::Operand& o);

}  // namespace gpumux::exec
