// The CUDA runtime entry points gpumux does not implement (unimplemented.inc):
// a program calling one gets cudaErrorNotSupported, never a crash, and the
// name on stderr once. Their arguments are ignored, which the x86-64 calling
// convention allows for a function declared without parameters.
#include "gpumux/cudart/state.h"

extern "C" {
#define GPUMUX_UNIMPLEMENTED(name) \
  cudaError_t name() { return gpumux::cudart::Runtime::get().unimplemented(#name); }
#include "gpumux/cudart/unimplemented.inc"
#undef GPUMUX_UNIMPLEMENTED
}
