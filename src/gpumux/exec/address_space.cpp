#include "gpumux/exec/address_space.h"

#include <cstring>

#include <fmt/format.h>

#include "gpumux/core/error.h"

namespace gpumux::exec {

uint64_t AddressSpace::allocate(uint64_t bytes, std::string tag, uint64_t align, uint64_t gap) {
  uint64_t size = bytes ? bytes : 1;
  uint64_t base = (next_ + align - 1) & ~(align - 1);
  if (base + size + gap > kGlobalLimit) throw ApiError("device address space exhausted");
  next_ = base + size + gap;
  Allocation a;
  a.base = base;
  a.size = size;
  a.data = std::make_unique<uint8_t[]>(size);  // value-initialised: zero
  a.tag = std::move(tag);
  allocs_.emplace(base, std::move(a));
  bytes_ += size;
  return base;
}

void AddressSpace::release(uint64_t addr) {
  auto it = allocs_.find(addr);
  if (it == allocs_.end())
    throw ApiError(fmt::format("free of 0x{:x}, which is not the start of an allocation", addr));
  if (last_ == &it->second) last_ = nullptr;
  bytes_ -= it->second.size;
  allocs_.erase(it);
}

const AddressSpace::Allocation* AddressSpace::find(uint64_t addr) const {
  auto it = allocs_.upper_bound(addr);
  if (it == allocs_.begin()) return nullptr;
  --it;
  return addr - it->second.base < it->second.size ? &it->second : nullptr;
}

const AddressSpace::Allocation* AddressSpace::containing(uint64_t addr, uint64_t bytes) const {
  const Allocation* a = find(addr);
  if (!a || addr + bytes - a->base > a->size || addr + bytes < addr) return nullptr;
  return a;
}

uint8_t* AddressSpace::translate_slow(uint64_t addr, uint64_t bytes) {
  auto* a = const_cast<Allocation*>(containing(addr, bytes));
  if (!a) return nullptr;
  last_ = a;
  return a->data.get() + (addr - a->base);
}

std::string AddressSpace::explain(uint64_t addr, uint64_t bytes) const {
  if (const Allocation* a = find(addr))
    return fmt::format("{}-byte access at 0x{:x} runs past the end of allocation 0x{:x} ({} bytes, {})",
                       bytes, addr, a->base, a->size, a->tag);
  auto it = allocs_.upper_bound(addr);
  if (it != allocs_.begin()) {
    --it;
    return fmt::format("{}-byte access at 0x{:x} is unallocated ({} bytes past allocation 0x{:x} of "
                       "{} bytes, {})",
                       bytes, addr, addr - it->second.base - it->second.size, it->second.base,
                       it->second.size, it->second.tag);
  }
  return fmt::format("{}-byte access at 0x{:x} is unallocated", bytes, addr);
}

void AddressSpace::write(uint64_t addr, const void* src, uint64_t bytes) {
  if (!bytes) return;
  uint8_t* p = translate(addr, bytes);
  if (!p) throw ApiError("memcpy to device: " + explain(addr, bytes));
  std::memcpy(p, src, bytes);
}

void AddressSpace::read(uint64_t addr, void* dst, uint64_t bytes) const {
  if (!bytes) return;
  const Allocation* a = containing(addr, bytes);
  if (!a) throw ApiError("memcpy from device: " + explain(addr, bytes));
  std::memcpy(dst, a->data.get() + (addr - a->base), bytes);
}

void AddressSpace::fill(uint64_t addr, uint8_t value, uint64_t bytes) {
  if (!bytes) return;
  uint8_t* p = translate(addr, bytes);
  if (!p) throw ApiError("memset: " + explain(addr, bytes));
  std::memset(p, value, bytes);
}

}  // namespace gpumux::exec
