#include "gpumux/exec/builtins/registry.h"

#include <array>

#include "gpumux/exec/builtins/handlers.h"

namespace gpumux::exec {

namespace {

// One line per built-in: name as nvcc calls it, handler, argument count, return value.
constexpr std::array kBuiltins = {
    Builtin{"vprintf", &vprintf_builtin, 2, true},        // (format, args) -> int
    Builtin{"__assertfail", &assertfail_builtin, 5, false},  // (msg, file, line, func, charSize)
    Builtin{"malloc", &malloc_builtin, 1, true},          // (size) -> pointer
    Builtin{"free", &free_builtin, 1, false},             // (pointer)
    // Device-side launch (device_launch.cpp): (kernel, grid, block, shmem) -> buffer; (buffer, stream) -> error
    Builtin{"__cudaCDP2GetParameterBufferV2", &get_parameter_buffer_builtin, 4, true},
    Builtin{"__cudaCDP2LaunchDeviceV2", &launch_device_builtin, 2, true},
    Builtin{"__cudaCDP2StreamCreateWithFlags", &stream_create_builtin, 2, true},  // (&stream, flags) -> error
    Builtin{"__cudaCDP2StreamDestroy", &stream_destroy_builtin, 1, true},         // (stream) -> error
    Builtin{"cudaGraphSetConditional", &set_conditional_builtin, 2, false},  // (handle, value), cudart/graph.h
};

}  // namespace

const Builtin* find_builtin(std::string_view name) {
  for (const Builtin& b : kBuiltins)
    if (b.name == name) return &b;
  return nullptr;
}

std::span<const Builtin> all_builtins() { return kBuiltins; }

}  // namespace gpumux::exec
