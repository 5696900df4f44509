// Device-side launch (CUDA dynamic parallelism, CDP2): what a kernel's
// launch of a child grid hands to the runtime. nvcc lowers `child<<<g, b, s,
// stream>>>(args)` in a kernel to two calls of the device runtime:
// __cudaCDP2GetParameterBufferV2(kernel, grid, block, shmem) returns a
// parameter buffer the thread fills with the arguments, and
// __cudaCDP2LaunchDeviceV2(buffer, stream) launches it (exec/builtins/
// device_launch.cpp). The runtime queues the child like a host launch; the
// parent grid completes only when its children have (docs/dynamic-parallelism.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpumux/exec/thread_block.h"

namespace gpumux::exec {

// The stream a child grid is launched into. CDP2 has no device-side
// synchronization; these are the streams a kernel can name without creating one.
enum class DeviceStream : uint8_t {
  Block,          // the NULL stream (0): ordered after the launching TB's earlier NULL-stream launches
  TailLaunch,     // cudaStreamTailLaunch (3): after the parent grid and all its other work
  FireAndForget,  // cudaStreamFireAndForget (4): independent of every other launch
};
const char* device_stream_name(DeviceStream s);

struct DeviceLaunchRequest {
  const GridLaunch* parent = nullptr;
  uint64_t parent_tb = 0;  // linear index of the launching TB
  uint32_t kernel = 0;     // in the parent's module
  Dim grid{1, 1, 1}, block{1, 1, 1};
  uint64_t dyn_smem = 0;
  std::vector<uint8_t> params;  // the parameter buffer's bytes
  DeviceStream stream = DeviceStream::Block;
};

// The application's side of device-side launch (the runtime Context).
class DeviceLauncher {
 public:
  virtual ~DeviceLauncher() = default;
  // Queues the child grid. Returns an empty string, or why the launch is
  // illegal (the calling thread then faults with that reason).
  virtual std::string launch(DeviceLaunchRequest r) = 0;
};

}  // namespace gpumux::exec
