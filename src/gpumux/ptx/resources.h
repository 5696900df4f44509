// Static per-kernel resources (registers, shared/local memory, parameters)
// and the shared-memory layout of a kernel, computed from the PTX alone.
// Both walk the kernel and every function it can call.
#pragma once

#include <cstdint>
#include <vector>

#include "gpumux/ptx/ir.h"

namespace gpumux::ptx {

struct KernelResources {
  // Estimated registers per thread: the peak number of simultaneously live
  // 32-bit register units (64-bit registers count 2, predicates 0) over the
  // kernel and its callees, rounded up to a multiple of 8, in [16, 255].
  // ptxas allocates differently, so this is an estimate (within ~2x).
  uint32_t registers = 16;
  uint64_t static_smem = 0;    // bytes of static .shared used by the kernel and callees
  bool dynamic_smem = false;   // an .extern .shared variable is used
  uint64_t local_bytes = 0;    // per-thread .local bytes: own depot + deepest call chain
  bool recursion = false;      // the call graph has a cycle: local_bytes is a lower bound
  uint64_t param_bytes = 0;    // kernel parameter buffer size
};

// `kernel` must be an element of m.functions; functions should have been
// analysed (cfg.h: analyze_module) so that their CFG is well formed.
KernelResources estimate_resources(const Module& m, const Function& kernel);

// Per instruction of `f`, the 32-bit register units (64-bit registers count 2,
// predicates 0) live just before it executes: what must be kept of a thread's
// registers if it is stopped there. `f`'s CFG must be well formed (cfg.h).
std::vector<uint32_t> live_units_before(const Function& f);

inline constexpr uint64_t kNoSharedOffset = ~uint64_t(0);

// Shared memory the driver reserves per thread block on sm_80 (what
// cudaDevAttrReservedSharedMemoryPerBlock reports on an A100: 1 KB). PTX reads
// its place through %reserved_smem_offset_* (cooperative groups keeps a
// block's scratch there); gpumux gives a block the region only when its
// kernel reads one of those registers, so other kernels keep their occupancy.
inline constexpr uint64_t kReservedSmemBytes = 1024;

// Where each .shared variable used by a kernel (and its callees) lives in the
// thread block's shared memory. Variables are placed in declaration order
// (module variables first, then function-local ones by function index), each
// at its alignment. Dynamic shared memory (every .extern .shared variable)
// starts at dynamic_offset, after the static variables, aligned to the
// largest .extern alignment (16 if none is declared). The reserved region
// (kReservedSmemBytes), if the kernel reads %reserved_smem_offset_*, lies
// between the static variables and dynamic_offset.
struct SharedLayout {
  std::vector<uint64_t> module_offset;              // per Module::globals; kNoSharedOffset if unused
  std::vector<std::vector<uint64_t>> local_offset;  // [function][local]; kNoSharedOffset if unused
  uint64_t static_bytes = 0;
  uint64_t reserved_offset = kNoSharedOffset;       // start of the reserved region; kNoSharedOffset if none
  uint64_t dynamic_offset = 0;
  bool uses_dynamic = false;
};

SharedLayout layout_shared(const Module& m, const Function& kernel);

}  // namespace gpumux::ptx
