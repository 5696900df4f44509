// Internal to exec/: the address operands of the asynchronous and
// tensor-core instructions (ops_async.cpp, ops_tensor.cpp).
#pragma once

#include <cstdint>

#include "gpumux/exec/step_context.h"

namespace gpumux::exec {

// Base register (or variable address) plus offset, for one lane.
uint64_t operand_address(const StepContext& c, const ptx::Operand& a, unsigned lane);

// The `bytes` of shared memory at address operand `a` of an instruction in
// `space` (Shared, or Generic with an address in the shared window; a
// variable's name is its shared offset). Faults if misaligned or out of
// bounds; `offset` receives the shared-memory offset.
uint8_t* shared_at(StepContext& c, ptx::Space space, const ptx::Operand& a, unsigned lane, uint32_t bytes,
                   uint64_t& offset);

}  // namespace gpumux::exec
