// Register liveness of a PTX function (predicates excluded), per lane: each
// thread follows a path of the CFG, so a register is live where some path
// from there reads it before writing it unconditionally. A guarded write
// (@p) does not end liveness: lanes whose guard is false keep the old value.
#pragma once

#include <cstdint>
#include <vector>

#include "gpumux/ptx/cfg.h"
#include "gpumux/ptx/ir.h"

namespace gpumux::ptx {

// Registers an instruction reads and writes (Reg, Addr base, Vec elements,
// call arguments and results), in operand order.
void uses_and_defs(const Instruction& in, std::vector<uint32_t>& uses, std::vector<uint32_t>& defs);

// Bit set over register indices: word r / 64, bit r % 64.
using RegBits = std::vector<uint64_t>;

struct BlockLiveness {
  Cfg cfg;
  std::vector<RegBits> live_out;  // per block: registers live after its last instruction
};

// Live-out sets of every block of `f` (iterated to a fixed point).
BlockLiveness block_liveness(const Function& f);

}  // namespace gpumux::ptx
