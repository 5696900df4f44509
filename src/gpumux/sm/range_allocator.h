// First-fit allocator of contiguous ranges in a pool of `capacity` units (the
// register file in registers, shared memory in bytes). Each TB holds one
// range per pool; freeing can leave holes, which is why a TB may not fit
// although enough units are free in total.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace gpumux::sm {

struct Range {
  uint32_t begin = 0;
  uint32_t size = 0;
  uint32_t end() const { return begin + size; }
};

class RangeAllocator {
 public:
  explicit RangeAllocator(uint32_t capacity) : capacity_(capacity) {}

  // Lowest free range of `size` units; nullopt if none fits. size 0 always fits.
  std::optional<Range> allocate(uint32_t size);
  bool fits(uint32_t size) const;
  // Returns a range obtained from allocate().
  void release(Range r);

  uint32_t capacity() const { return capacity_; }
  uint32_t used() const { return used_; }
  uint32_t largest_free() const;

 private:
  // Start of the first hole of at least `size` units, or capacity_ if none.
  uint32_t first_fit(uint32_t size, size_t& insert_at) const;

  uint32_t capacity_;
  uint32_t used_ = 0;
  std::vector<Range> allocated_;  // sorted by begin, non-overlapping
};

}  // namespace gpumux::sm
