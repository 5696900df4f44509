// What gpumux's timing model makes of a SASS opcode read from a trace: its
// class (the unit and latency of a representative PTX instruction, so that a
// replayed instruction is timed by the same tables as a PTX one) and, for
// memory instructions, the state space and kind of access. The opcode sets
// are per ISA family (the trace header's binary version), as data in
// sass_classes.cpp, from NVIDIA's public instruction-set lists (CUDA Binary
// Utilities, "Instruction Set Reference").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gpumux/ptx/ir.h"

namespace gpumux::trace {

enum class IsaFamily : uint8_t { Volta, Turing, Ampere, Hopper };
const char* family_name(IsaFamily f);
// The family of a trace's binary version (70, 72: Volta; 75: Turing; 80, 86,
// 87, 89: Ampere; 90: Hopper); nullopt for any other.
std::optional<IsaFamily> isa_family(uint32_t binary_version);

enum class SassClass : uint8_t {
  Int, IntMul, IntMad, IntMinMax, IntCompare,
  Fp32, Fp32Mul, Fp32Mad, Fp32MinMax, Fp32Compare,
  Fp16, Fp16Mad,
  Fp64, Fp64Mul, Fp64Mad, Fp64Compare,
  Sfu,       // MUFU (its .RCP64H/.RSQ64H forms: an iterative double-precision step)
  Convert,   // F2F, F2I, I2F, FRND (.F64 in the modifiers: double precision)
  Move,      // MOV, SEL, PRMT, S2R, ...: integer-unit latency
  WarpOp,    // SHFL, VOTE, MATCH, REDUX
  Control,   // branches, calls, returns, convergence barriers
  Exit,
  Barrier,   // BAR (the TB's barrier)
  WarpSync,  // WARPSYNC
  Fence,     // MEMBAR, FENCE, ERRBAR: waits for the warp's stores
  Load, Store, Atomic, Reduction,  // a memory access in SassInfo::space
  Texture,   // texture and surface unit: no addresses in traces
  Tensor,    // HMMA, IMMA, DMMA, BMMA, and Hopper's warpgroup MMAs
  Nop,
};

struct SassInfo {
  SassClass cls = SassClass::Nop;
  ptx::Space space = ptx::Space::None;  // Load, Store, Atomic, Reduction
};

// The class of `opcode` (e.g. "LDG.E.128.SYS": the name before the first dot
// selects it, modifiers refine it) in `family`; nullopt with `why` set if the
// family's opcode set has no such name.
std::optional<SassInfo> classify_sass(std::string_view opcode, IsaFamily family, std::string& why);

// The representative PTX instruction of a class (opcode, types, space; tensor
// shape from HMMA-style modifiers), without operands and handler.
ptx::Instruction representative(const SassInfo& info, std::string_view opcode);

}  // namespace gpumux::trace
