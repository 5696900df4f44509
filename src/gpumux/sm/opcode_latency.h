// Per-opcode latency overrides ([sm.opcode_latency], core/opcode_latency_params.h).
#pragma once

#include <cstdint>

#include "gpumux/core/opcode_latency_params.h"
#include "gpumux/ptx/ir.h"

namespace gpumux::sm {

// The configured latency of `in`'s opcode class (mul, mad, div, min/max, shfl
// of its type), or 0 when none is configured: the unit's latency then applies.
uint32_t opcode_latency(const ptx::Instruction& in, const SmOpcodeLatencyParams& p);

}  // namespace gpumux::sm
