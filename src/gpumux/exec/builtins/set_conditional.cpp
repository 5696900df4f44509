// cudaGraphSetConditional(handle, value): sets the condition of a CUDA graph's
// conditional node from device code. nvcc 13 emits it as a call to an
// `.extern .func cudaGraphSetConditional(.b64 handle, .b32 value)`. gpumux's
// runtime makes a handle the device address of the condition's 32-bit value
// (cudart/graph.h), so setting it is a store there; the graph launch reads it
// once the kernels before the conditional node are done. Lanes write in
// ascending order: with several writers the highest lane's value wins.
#include <cstring>

#include <fmt/format.h>

#include "gpumux/exec/address_space.h"
#include "gpumux/exec/builtins/call.h"
#include "gpumux/exec/builtins/handlers.h"

namespace gpumux::exec {

void set_conditional_builtin(StepContext& c, const ptx::Instruction& in) {
  BuiltinCall call(c, in);
  for_each_lane(c.mask, [&](unsigned lane) {
    const uint64_t handle = call.arg(0, lane);
    const uint32_t value = uint32_t(call.arg(1, lane));
    uint8_t* p = call.memory().translate(handle, sizeof value);
    if (!p)
      call.fault(fmt::format("cudaGraphSetConditional with handle 0x{:x}, which is not a conditional handle of the "
                             "application's graphs",
                             handle),
                 lane);
    std::memcpy(p, &value, sizeof value);
  });
}

}  // namespace gpumux::exec
