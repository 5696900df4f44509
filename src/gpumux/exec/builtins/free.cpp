// free(pointer): releases a device-malloc block; free(NULL) does nothing.
#include <fmt/format.h>

#include "gpumux/exec/builtins/call.h"
#include "gpumux/exec/builtins/handlers.h"
#include "gpumux/exec/builtins/services.h"

namespace gpumux::exec {

void free_builtin(StepContext& c, const ptx::Instruction& in) {
  BuiltinCall call(c, in);
  BuiltinServices& heap = call.services();
  for_each_lane(c.mask, [&](unsigned lane) {
    const uint64_t p = call.arg(0, lane);
    if (p && !heap.heap_release(call.memory(), p))
      call.fault(fmt::format("free of 0x{:x}, which is not a live block of device malloc", p), lane);
  });
}

}  // namespace gpumux::exec
