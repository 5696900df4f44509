// What the engine's built-in device functions need from the application
// that launched the kernel: where device printf output goes and the device
// heap behind malloc/free, and the device-side launch of child grids
// (exec/device_launch.h). One per runtime Context; a launch points at it
// through GridLaunch::builtins.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "gpumux/exec/thread_block.h"
#include <string_view>

namespace gpumux::exec {

class AddressSpace;
class DeviceLauncher;

class BuiltinServices {
 public:
  // CUDA's default cudaLimitMallocHeapSize.
  static constexpr uint64_t kDefaultHeapLimit = 8ull << 20;

  // Receives the text of each printf call of each thread; empty: standard output.
  std::function<void(std::string_view)> printf_sink;
  uint64_t heap_limit = kDefaultHeapLimit;  // bytes of live device-malloc blocks

  void print(std::string_view text) const;

  // Device malloc: a fresh zeroed allocation in `mem`, or 0 when it would take
  // the heap past heap_limit (or `bytes` is 0).
  uint64_t heap_allocate(AddressSpace& mem, uint64_t bytes);
  // Device free; false if `addr` is not a live block of heap_allocate.
  bool heap_release(AddressSpace& mem, uint64_t addr);
  uint64_t heap_used() const { return used_; }

  // Device-side launch. CUDA's limits: the nesting depth of device launches
  // (a child of a host launch is at depth 1) and cudaLimitDevRuntimePendingLaunchCount,
  // here the child grids launched and not yet complete.
  static constexpr uint32_t kMaxNestingDepth = 24;
  static constexpr uint32_t kDefaultPendingLaunchLimit = 2048;
  DeviceLauncher* launcher = nullptr;  // null: device-side launch faults
  uint32_t pending_launch_limit = kDefaultPendingLaunchLimit;
  uint32_t pending_launches = 0;  // raised at a device launch, lowered by the backend at the child's end
  // What __cudaCDP2GetParameterBufferV2 was asked for: the parameter buffer
  // at `addr`, which __cudaCDP2LaunchDeviceV2 launches (and releases).
  struct ParameterBuffer {
    const LoadedModule* module = nullptr;
    uint32_t kernel = 0;
    Dim grid{}, block{};
    uint64_t dyn_smem = 0;
  };
  uint64_t new_parameter_buffer(AddressSpace& mem, const ParameterBuffer& b, uint64_t bytes);
  // The buffer at `addr`, removed from the live ones (and released); false if there is none.
  bool take_parameter_buffer(AddressSpace& mem, uint64_t addr, ParameterBuffer& b, std::vector<uint8_t>& bytes);

 private:
  std::map<uint64_t, uint64_t> blocks_;  // live blocks: address -> accounted bytes
  uint64_t used_ = 0;
  std::map<uint64_t, std::pair<ParameterBuffer, uint64_t>> parameter_buffers_;  // address -> (launch, bytes)
};

}  // namespace gpumux::exec
