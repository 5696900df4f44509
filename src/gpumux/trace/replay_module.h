// A trace kernel made executable (exec/replay.h): a module of one kernel
// whose static code is the trace's, each traced PC a representative PTX
// instruction of its class (sass_classes.h) with the recorded registers as
// operands, and whose TBs need the header's registers and shared memory.
#pragma once

#include <memory>

#include "gpumux/exec/loaded_module.h"
#include "gpumux/trace/accelsim_reader.h"

namespace gpumux::trace {

std::unique_ptr<exec::LoadedModule> replay_module(TraceKernel k);

}  // namespace gpumux::trace
