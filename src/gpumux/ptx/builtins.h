// Extern device functions that the engine implements itself (exec/builtins/):
// CUDA's device printf, assert and heap, device-side launch and the streams it
// uses, and CUDA graphs' cudaGraphSetConditional. A call to one of them is a normal
// call in the IR; a call to any other undefined .extern function is
// unsupported. The ptx layer only needs the names; exec's registry of
// implementations is checked against this list by a test.
#pragma once

#include <algorithm>
#include <array>
#include <string_view>

namespace gpumux::ptx {

inline constexpr std::array<std::string_view, 9> kBuiltinFunctions = {
    "vprintf", "__assertfail", "malloc", "free", "__cudaCDP2GetParameterBufferV2", "__cudaCDP2LaunchDeviceV2",
    "__cudaCDP2StreamCreateWithFlags", "__cudaCDP2StreamDestroy", "cudaGraphSetConditional"};

inline bool is_builtin_function(std::string_view name) {
  return std::find(kBuiltinFunctions.begin(), kBuiltinFunctions.end(), name) !=
         kBuiltinFunctions.end();
}

}  // namespace gpumux::ptx
