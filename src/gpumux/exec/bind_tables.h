// Internal to exec/: the handler families bind() combines. Each returns the
// handler for `in`, nullptr if the opcode is not its family or (with `why`
// set) if the combination is unsupported.
#pragma once

#include <string>

#include "gpumux/exec/step_context.h"
#include "gpumux/exec/warp.h"

namespace gpumux::exec {

ptx::ExecHandler bind_memory(const ptx::Instruction& in, std::string& why);
ptx::ExecHandler bind_control(const ptx::Instruction& in, std::string& why);
ptx::ExecHandler bind_warp_ops(const ptx::Instruction& in, std::string& why);
ptx::ExecHandler bind_texture(const ptx::Instruction& in, std::string& why);

}  // namespace gpumux::exec
