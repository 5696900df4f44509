// Facts about instructions that several PTX analyses need.
#pragma once

#include "gpumux/ptx/ir.h"

namespace gpumux::ptx {

// Whether ops[0] is written (a destination) rather than read: false for st,
// red, prefetch, control transfers, nanosleep, membar and bar except bar.red.
bool has_destination(const Instruction& in);

}  // namespace gpumux::ptx
