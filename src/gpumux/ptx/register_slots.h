// Storage slots for a function's registers. nvcc gives nearly every value
// its own PTX register (spmv's kernels declare 65, 94 and 89; 19, 24 and 21
// slots suffice), and a warp stores 32 lanes x 64 bits per register:
// at one slot per register the register files are most of a run's memory.
// Registers that are never needed at the same time share a slot, as a
// register allocator would do; only where values are kept changes, so what
// a lane reads is what it read before. The timing model keeps the PTX
// register numbers (scoreboard, operand banks, traces).
#pragma once

#include <cstdint>
#include <vector>

#include "gpumux/ptx/ir.h"

namespace gpumux::ptx {

struct RegisterSlots {
  std::vector<uint16_t> slot;  // register index -> slot
  std::vector<Type> types;     // slot -> the declared type of every register in it
};

// Functions with more registers than this keep one slot per register: the
// interference matrix takes registers^2 / 8 bytes.
inline constexpr uint32_t kMaxSlotSharingRegisters = 8192;

// Assigns slots: two registers share one only if they have the same declared
// type and neither is written while the other is live (per lane, liveness.h),
// nor written by an instruction that reads the other (a handler may read a
// source after writing part of a vector destination). Registers read in
// other lanes (the sources of shfl, redux and match; every register of mma,
// ldmatrix and wmma) keep a slot of their own: a lane may read another
// lane's register where that lane no longer needs the value.
RegisterSlots assign_register_slots(const Function& f);
// One slot per register (no sharing).
RegisterSlots one_slot_each(const Function& f);

// Rewrites f's register operands (Reg, Addr bases, Vec elements, call
// arguments and results) to slots; num_regs, reg_types and reg_names then
// describe the slots.
void rename_to_slots(Function& f, const RegisterSlots& s);

}  // namespace gpumux::ptx
