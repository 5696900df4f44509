// Device-side launch (exec/device_launch.h): the two device-runtime calls
// nvcc 13 emits for `child<<<grid, block, shmem, stream>>>(args)` in a kernel,
// and the streams a kernel creates for them.
//   __cudaCDP2GetParameterBufferV2(kernel, grid, block, shmem) -> buffer
//   __cudaCDP2LaunchDeviceV2(buffer, stream) -> cudaError_t
//   __cudaCDP2StreamCreateWithFlags(&stream, flags) -> cudaError_t
//   __cudaCDP2StreamDestroy(stream) -> cudaError_t
// Every error is a device fault naming the kernel, TB, warp and PC: a real
// GPU returns an error code that nvcc's code ignores, so the child would
// silently not run.
#include <fmt/format.h>

#include "gpumux/exec/address_space.h"
#include "gpumux/exec/builtins/call.h"
#include "gpumux/exec/builtins/handlers.h"
#include "gpumux/exec/builtins/services.h"
#include "gpumux/exec/device_launch.h"
#include "gpumux/exec/loaded_module.h"

namespace gpumux::exec {

const char* device_stream_name(DeviceStream s) {
  switch (s) {
    case DeviceStream::Block: return "the NULL stream";
    case DeviceStream::TailLaunch: return "cudaStreamTailLaunch";
    case DeviceStream::FireAndForget: return "cudaStreamFireAndForget";
  }
  return "?";
}

namespace {

// cudaStream_t values a kernel can pass without creating a stream (cuda_device_runtime_api.h).
constexpr uint64_t kStreamTailLaunch = 3, kStreamFireAndForget = 4;
// The handle of every stream a kernel creates. Its launches are ordered as
// those of the block's NULL stream: one after another, which a stream permits
// (it allows concurrency with the block's other launches, it does not require
// it), and the parent still completes after them.
constexpr uint64_t kDeviceCreatedStream = 0x6d78'7374'7265'616dull;
constexpr uint64_t kStreamNonBlocking = 1;  // the only flag device-side streams take
constexpr uint64_t kErrorInvalidValue = 1;  // cudaErrorInvalidValue

}  // namespace

void get_parameter_buffer_builtin(StepContext& c, const ptx::Instruction& in) {
  BuiltinCall call(c, in);
  BuiltinServices& services = call.services();
  const LoadedModule& mod = *c.warp->tb().launch().module;
  for_each_lane(c.mask, [&](unsigned lane) {
    const uint64_t target = call.arg(0, lane);
    const uint64_t index = target - kFunctionAddressBase;
    if (target < kFunctionAddressBase || index >= mod.ir().functions.size() || !mod.ir().functions[index].is_entry)
      call.fault(fmt::format("device-side launch of 0x{:x}, which is not the address of a kernel", target), lane);
    BuiltinServices::ParameterBuffer b;
    b.module = &mod;
    b.kernel = uint32_t(index);
    call.arg_bytes(1, lane, b.grid.data(), sizeof(b.grid));
    call.arg_bytes(2, lane, b.block.data(), sizeof(b.block));
    b.dyn_smem = call.arg(3, lane);
    call.set_result(lane, services.new_parameter_buffer(call.memory(), b, mod.ir().functions[index].param_bytes));
  });
}

void launch_device_builtin(StepContext& c, const ptx::Instruction& in) {
  BuiltinCall call(c, in);
  BuiltinServices& services = call.services();
  const ThreadBlock& tb = c.warp->tb();
  const GridLaunch& parent = tb.launch();
  for_each_lane(c.mask, [&](unsigned lane) {
    const uint64_t buffer = call.arg(0, lane), stream = call.arg(1, lane);
    DeviceLaunchRequest r;
    r.stream = stream == 0 || stream == kDeviceCreatedStream ? DeviceStream::Block
               : stream == kStreamTailLaunch    ? DeviceStream::TailLaunch
               : stream == kStreamFireAndForget ? DeviceStream::FireAndForget
                                                : DeviceStream(0xff);
    if (r.stream == DeviceStream(0xff))
      call.fault(fmt::format("device-side launch into stream 0x{:x}: only the NULL stream, cudaStreamTailLaunch, "
                             "cudaStreamFireAndForget and streams the kernel created are supported",
                             stream),
                 lane);
    BuiltinServices::ParameterBuffer b;
    if (!services.take_parameter_buffer(call.memory(), buffer, b, r.params))
      call.fault(fmt::format("device-side launch of parameter buffer 0x{:x}, which is not a buffer from "
                             "cudaGetParameterBuffer or was already launched",
                             buffer),
                 lane);
    const std::string& child = b.module->ir().functions[b.kernel].name;
    if (parent.depth + 1 > BuiltinServices::kMaxNestingDepth)
      call.fault(fmt::format("device-side launch of {} at nesting depth {}: the limit is {}", child,
                             parent.depth + 1, BuiltinServices::kMaxNestingDepth),
                 lane);
    if (services.pending_launches >= services.pending_launch_limit)
      call.fault(fmt::format("device-side launch of {}: {} launches are pending, the limit "
                             "(cudaLimitDevRuntimePendingLaunchCount) is {}",
                             child, services.pending_launches, services.pending_launch_limit),
                 lane);
    if (!services.launcher) call.fault(fmt::format("device-side launch of {}: the launch has no runtime", child), lane);
    const Dim ct = tb.ctaid();
    r.parent = &parent;
    r.parent_tb = ct[0] + uint64_t(parent.grid[0]) * (ct[1] + uint64_t(parent.grid[1]) * ct[2]);
    r.kernel = b.kernel;
    r.grid = b.grid;
    r.block = b.block;
    r.dyn_smem = b.dyn_smem;
    if (std::string why = services.launcher->launch(std::move(r)); !why.empty())
      call.fault(fmt::format("device-side launch: {}", why), lane);
    ++services.pending_launches;
    call.set_result(lane, 0);  // cudaSuccess
  });
}

// cudaStreamCreateWithFlags in a kernel: cudaStreamNonBlocking is required,
// as on a GPU (cudaErrorInvalidValue otherwise, which the program sees).
void stream_create_builtin(StepContext& c, const ptx::Instruction& in) {
  BuiltinCall call(c, in);
  for_each_lane(c.mask, [&](unsigned lane) {
    if (call.arg(1, lane) != kStreamNonBlocking) {
      call.set_result(lane, kErrorInvalidValue);
      return;
    }
    call.write(lane, call.arg(0, lane), &kDeviceCreatedStream, sizeof kDeviceCreatedStream,
               "cudaStreamCreateWithFlags");
    call.set_result(lane, 0);
  });
}

void stream_destroy_builtin(StepContext& c, const ptx::Instruction& in) {
  BuiltinCall call(c, in);
  for_each_lane(c.mask, [&](unsigned lane) {
    call.set_result(lane, call.arg(0, lane) == kDeviceCreatedStream ? 0 : kErrorInvalidValue);
  });
}

}  // namespace gpumux::exec
