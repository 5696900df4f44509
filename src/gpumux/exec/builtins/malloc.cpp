// malloc(size): device heap allocation from the application's address space,
// bounded by the heap limit (0 when exhausted, as on a GPU).
#include "gpumux/exec/builtins/call.h"
#include "gpumux/exec/builtins/handlers.h"
#include "gpumux/exec/builtins/services.h"

namespace gpumux::exec {

void malloc_builtin(StepContext& c, const ptx::Instruction& in) {
  BuiltinCall call(c, in);
  BuiltinServices& heap = call.services();
  for_each_lane(c.mask, [&](unsigned lane) {
    call.set_result(lane, heap.heap_allocate(call.memory(), call.arg(0, lane)));
  });
}

}  // namespace gpumux::exec
