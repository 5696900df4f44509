// A PTX module made executable inside one application's address space:
// parsed, analysed (reconvergence), every instruction bound to a handler,
// module variables allocated and initialised, and the per-function frame and
// per-kernel shared-memory layouts computed once.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "gpumux/ptx/ir.h"
#include "gpumux/ptx/register_slots.h"
#include "gpumux/ptx/resources.h"

namespace gpumux::exec {

class AddressSpace;
struct ReplayKernel;

inline constexpr uint64_t kNoOffset = ~uint64_t(0);

// Where a function's variables live inside its frame.
struct FrameLayout {
  // Per Function::locals entry: byte offset in the frame's local depot (.local)
  // or parameter area (.param); kNoOffset for .shared (see KernelLayout).
  std::vector<uint64_t> local_var_offset;
  std::vector<uint64_t> param_offset;  // per Function::params (non-entry functions)
  std::vector<uint64_t> ret_offset;    // per Function::rets
  uint64_t local_bytes = 0;            // per-thread depot size of one activation
  uint64_t param_bytes = 0;            // per-thread parameter area of one activation
};

// What the engine needs of a kernel: its shared-memory layout and resources.
struct KernelLayout {
  ptx::SharedLayout shared;
  ptx::KernelResources resources;
};

class LoadedModule {
 public:
  // Parses, validates and binds `text`; allocates the module's .global and
  // .const variables in `mem`. Throws LoadError (file:line) on bad or
  // unsupported PTX.
  LoadedModule(std::string_view text, const std::string& name, AddressSpace& mem);
  // A module of one kernel that replays a recorded stream (replay.h): `ir`
  // holds its static code, handlers bound; `layout` what a TB of it needs.
  LoadedModule(std::unique_ptr<ptx::Module> ir, const KernelLayout& layout, std::unique_ptr<const ReplayKernel> replay);
  ~LoadedModule();

  const ptx::Module& ir() const { return *ir_; }
  const ptx::Function& function(uint32_t i) const { return ir_->functions[i]; }
  // Function `i` as warps execute it: its registers renamed to storage slots
  // (ptx/register_slots.h), handlers bound. function() keeps the PTX
  // register numbers, which the timing model uses. Made when first asked
  // for (thread-safe): a copy of every function of a large module (CUB's
  // PTX has ~74,000 instructions of 448 bytes) would cost memory for
  // functions that never run.
  const ptx::Function& exec_function(uint32_t i) const;
  // Storage slot of register `reg` of function `fn`.
  uint16_t register_slot(uint32_t fn, uint32_t reg) const { return slots_[fn].slot[reg]; }
  // Index of kernel `name` in Module::functions, or -1.
  int find_kernel(const std::string& name) const;
  // Device address of a module .global/.const variable.
  uint64_t global_address(uint32_t global_index) const { return global_addr_[global_index]; }
  const FrameLayout& frame(uint32_t fn) const { return frames_[fn]; }
  // Layout for kernel `fn` (an .entry).
  const KernelLayout& kernel(uint32_t fn) const { return kernels_[fn]; }
  // The recorded streams of a replayed kernel; null for a PTX module.
  const ReplayKernel* replay() const { return replay_.get(); }

 private:
  void layout_frames();
  void layout_kernels();
  void allocate_globals(AddressSpace& mem);

  std::unique_ptr<ptx::Module> ir_;
  std::vector<ptx::RegisterSlots> slots_;  // per function
  bool renamed_ = false;                   // false: warps execute ir_ itself (replays)
  mutable std::unique_ptr<std::once_flag[]> exec_once_;
  mutable std::vector<std::unique_ptr<const ptx::Function>> exec_fns_;
  std::vector<uint64_t> global_addr_;
  std::vector<FrameLayout> frames_;
  std::vector<KernelLayout> kernels_;  // indexed by function; empty for non-entries
  std::unique_ptr<const ReplayKernel> replay_;
};

// Binds every instruction of `m` to its handler; throws LoadError listing each
// instruction the engine cannot execute (file:line and why).
void bind(ptx::Module& m);
// Binds what it can and returns each instruction the engine cannot execute
// (line, "opcode: why"), in module order: `gpumux ptx check` reports them.
std::vector<ptx::Unsupported> bind_instructions(ptx::Module& m);

}  // namespace gpumux::exec
