// The driver entry points gpumux does not implement (unimplemented.inc). A
// driver call that silently did nothing would let a program compute on
// garbage, so each one names itself and ends the program (exit status 2, as
// gpumux's input and API errors). Their arguments are ignored, which the
// x86-64 calling convention allows for a function declared without parameters.
#include <cstdlib>

#include <fmt/format.h>

#include "gpumux/cudart/driver/driver_abi.h"

namespace {

[[noreturn]] void unsupported(const char* name) {
  fmt::print(stderr,
             "gpumux: {} is not supported by gpumux's libcuda.so.1 (supported driver calls: "
             "docs/cuda-programs.md, \"Driver API\"); exiting\n",
             name);
  std::exit(2);
}

}  // namespace

extern "C" {
#define GPUMUX_CU_UNIMPLEMENTED(name) \
  CUresult name() { unsupported(#name); }
#include "gpumux/cudart/driver/unimplemented.inc"
#undef GPUMUX_CU_UNIMPLEMENTED
}
