// How an executed PTX instruction is named in an Accel-Sim trace: a SASS-like
// opcode whose first token is in Accel-Sim's Volta opcode map (binary version
// 70), so it selects the functional-unit class whose latency Accel-Sim's
// trace.config gives, and whose modifiers carry memory widths (.U8, .U16,
// .64, .128; 4 bytes by default). docs/accelsim-trace.md tabulates the mapping.
#pragma once

#include <string>

#include "gpumux/ptx/ir.h"

namespace gpumux::trace {

struct SassForm {
  std::string opcode;    // e.g. "LDG.E.64", "FFMA", "ISETP.GE.AND"
  bool memory = false;   // a global, shared or local access whose addresses are traced
};

// `space` is the state space the instruction's access resolved to (generic
// accesses are traced as accesses to the space they reached), or the
// instruction's own space when no lane accessed memory. `in_kernel`: the
// instruction belongs to the kernel itself, whose ret ends its threads (EXIT).
SassForm sass_form(const ptx::Instruction& in, ptx::Space space, bool in_kernel);

}  // namespace gpumux::trace
