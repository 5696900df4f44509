// Internal to exec/builtins/: one handler per built-in, each in its own file.
#pragma once

#include "gpumux/exec/step_context.h"

namespace gpumux::exec {

void vprintf_builtin(StepContext& c, const ptx::Instruction& in);
void assertfail_builtin(StepContext& c, const ptx::Instruction& in);
void malloc_builtin(StepContext& c, const ptx::Instruction& in);
void free_builtin(StepContext& c, const ptx::Instruction& in);
void get_parameter_buffer_builtin(StepContext& c, const ptx::Instruction& in);
void launch_device_builtin(StepContext& c, const ptx::Instruction& in);
void stream_create_builtin(StepContext& c, const ptx::Instruction& in);
void stream_destroy_builtin(StepContext& c, const ptx::Instruction& in);
void set_conditional_builtin(StepContext& c, const ptx::Instruction& in);

}  // namespace gpumux::exec
