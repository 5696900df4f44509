// The engine's built-in device functions: extern functions nvcc calls for
// device printf, assert and heap (ptx/builtins.h lists their names for the
// parser). bind() binds a call to one of them to its handler, which runs
// the function for the executing lanes in ascending lane order.
#pragma once

#include <span>
#include <string_view>

#include "gpumux/ptx/ir.h"

namespace gpumux::exec {

struct Builtin {
  std::string_view name;
  ptx::ExecHandler handler;
  unsigned num_args;   // the call must pass exactly these
  bool returns_value;  // the call may take a return value
};

// The built-in called `name`, or nullptr.
const Builtin* find_builtin(std::string_view name);
std::span<const Builtin> all_builtins();

}  // namespace gpumux::exec
