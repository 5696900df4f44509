#include "gpumux/exec/builtins/services.h"

#include <algorithm>
#include <cstdio>

#include "gpumux/exec/address_space.h"

namespace gpumux::exec {

void BuiltinServices::print(std::string_view text) const {
  if (printf_sink) {
    printf_sink(text);
  } else {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);  // interleaves with the host program's own output as on a GPU sync
  }
}

uint64_t BuiltinServices::heap_allocate(AddressSpace& mem, uint64_t bytes) {
  // Blocks are accounted in the 16-byte granules CUDA aligns them to.
  const uint64_t accounted = (bytes + 15) / 16 * 16;
  if (bytes == 0 || accounted < bytes || accounted > heap_limit - std::min(used_, heap_limit))
    return 0;
  // Packed like a GPU heap's blocks (no guard gap), so the heap spans as many
  // pages as its data: what demand paging of the heap faults on.
  const uint64_t addr = mem.allocate(bytes, "device malloc", 16, 0);
  blocks_.emplace(addr, accounted);
  used_ += accounted;
  return addr;
}

bool BuiltinServices::heap_release(AddressSpace& mem, uint64_t addr) {
  auto it = blocks_.find(addr);
  if (it == blocks_.end()) return false;
  used_ -= it->second;
  blocks_.erase(it);
  mem.release(addr);
  return true;
}

uint64_t BuiltinServices::new_parameter_buffer(AddressSpace& mem, const ParameterBuffer& b, uint64_t bytes) {
  const uint64_t addr = mem.allocate(std::max<uint64_t>(bytes, 1), "device launch parameter buffer");
  parameter_buffers_.emplace(addr, std::make_pair(b, bytes));
  return addr;
}

bool BuiltinServices::take_parameter_buffer(AddressSpace& mem, uint64_t addr, ParameterBuffer& b,
                                            std::vector<uint8_t>& bytes) {
  auto it = parameter_buffers_.find(addr);
  if (it == parameter_buffers_.end()) return false;
  b = it->second.first;
  bytes.resize(it->second.second);
  if (!bytes.empty()) mem.read(addr, bytes.data(), bytes.size());
  parameter_buffers_.erase(it);
  mem.release(addr);
  return true;
}

}  // namespace gpumux::exec
