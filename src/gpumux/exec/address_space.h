// One application's device memory: a sparse, allocation-tracked 64-bit
// address space. Every access is checked against the allocation it falls in,
// so an out-of-bounds or unallocated access is reported, never silently
// served. Separate applications get separate AddressSpaces and cannot see
// each other's data.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gpumux/exec/texture.h"

namespace gpumux::exec {

// Generic-address windows (cvta): shared and local addresses are small
// offsets in their own spaces; in the generic space they live in two windows
// far above every global allocation.
inline constexpr uint64_t kGlobalBase = 0x0000'0001'0000'0000ull;
inline constexpr uint64_t kGlobalLimit = 0x0000'7e00'0000'0000ull;
inline constexpr uint64_t kLocalWindow = 0x0000'7e00'0000'0000ull;
inline constexpr uint64_t kSharedWindow = 0x0000'7f00'0000'0000ull;
inline constexpr uint64_t kWindowSize = 0x0000'0100'0000'0000ull;
// "Addresses" of device functions (mov %rd, func; pointer tables): distinct
// values outside every window; indirect calls are rejected at load time.
inline constexpr uint64_t kFunctionAddressBase = 0xfff0'0000'0000'0000ull;

class AddressSpace {
 public:
  struct Allocation {
    uint64_t base = 0;
    uint64_t size = 0;
    std::unique_ptr<uint8_t[]> data;
    std::string tag;  // "cudaMalloc", or the module variable it holds
  };

  // Returns an `align`-byte aligned address (a power of two); contents are
  // zero. `gap` bytes after it stay unallocated, so that small overruns fault
  // rather than land in a neighbour (device malloc packs its blocks: 0).
  uint64_t allocate(uint64_t bytes, std::string tag = "malloc", uint64_t align = 256, uint64_t gap = 256);
  // Throws ApiError for an address that is not the start of a live allocation.
  void release(uint64_t addr);

  // Host pointer for [addr, addr+bytes) if it lies inside one allocation, else nullptr.
  uint8_t* translate(uint64_t addr, uint64_t bytes) {
    if (last_ && addr - last_->base < last_->size && addr + bytes - last_->base <= last_->size)
      return last_->data.get() + (addr - last_->base);
    return translate_slow(addr, bytes);
  }
  // The allocation containing addr, or nullptr (for diagnostics).
  const Allocation* find(uint64_t addr) const;
  // Describes why [addr, addr+bytes) is not accessible ("unallocated", "past the end of ...").
  std::string explain(uint64_t addr, uint64_t bytes) const;

  // Host-side copies; throw ApiError naming the range when it is not inside one allocation.
  void write(uint64_t addr, const void* src, uint64_t bytes);
  void read(uint64_t addr, void* dst, uint64_t bytes) const;
  void fill(uint64_t addr, uint8_t value, uint64_t bytes);

  uint64_t bytes_allocated() const { return bytes_; }

  // The application's CUDA arrays and texture and surface objects (their texels live here).
  TextureObjects& textures() { return textures_; }
  const TextureObjects& textures() const { return textures_; }

 private:
  uint8_t* translate_slow(uint64_t addr, uint64_t bytes);
  const Allocation* containing(uint64_t addr, uint64_t bytes) const;
  std::map<uint64_t, Allocation> allocs_;  // by base
  Allocation* last_ = nullptr;             // most recent hit: accesses of a warp are clustered
  uint64_t next_ = kGlobalBase;
  uint64_t bytes_ = 0;
  TextureObjects textures_;
};

}  // namespace gpumux::exec
