// What the engine's built-in device functions need from the application
// that launched the kernel: where device printf output goes and the device
// heap behind malloc/free. One per runtime Context; a launch points at it
// through GridLaunch::builtins.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string_view>

namespace gpumux::exec {

class AddressSpace;

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

 private:
  std::map<uint64_t, uint64_t> blocks_;  // live blocks: address -> accounted bytes
  uint64_t used_ = 0;
};

}  // namespace gpumux::exec
