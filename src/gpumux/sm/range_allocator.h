// First-fit allocator of contiguous ranges in a pool of `capacity` units (the
// register file in registers, shared memory in bytes). Each TB holds one
// range per pool; freeing can leave holes, which is why a TB may not fit
// although enough units are free in total. Ranges carry a tag (0 unless
// given): 2-way allocation (two_way_allocation.h) tags each range with the
// pool end it grew from, and searches a region of the pool from either end.
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
  // Returns a range obtained from allocate() or allocate_in().
  void release(Range r);

  // The free range of `size` units within [lo, hi) closest to lo (or to hi
  // if from_top), tagged `tag`; nullopt if none fits. size 0 always fits.
  std::optional<Range> allocate_in(uint32_t size, uint32_t lo, uint32_t hi, bool from_top, uint8_t tag);
  bool fits_in(uint32_t size, uint32_t lo, uint32_t hi) const;
  // Ranges tagged `tag`, and the lowest begin / highest end among them
  // (nullopt if none).
  uint32_t count(uint8_t tag) const;
  std::optional<uint32_t> lowest_begin(uint8_t tag) const;
  std::optional<uint32_t> highest_end(uint8_t tag) const;

  uint32_t capacity() const { return capacity_; }
  uint32_t used() const { return used_; }
  uint32_t largest_free() const;

 private:
  // Start of the first hole of at least `size` units, or capacity_ if none.
  uint32_t first_fit(uint32_t size, size_t& insert_at) const;
  // Start of the free range of `size` units within [lo, hi) nearest lo (or
  // hi), or nullopt.
  std::optional<uint32_t> fit_in(uint32_t size, uint32_t lo, uint32_t hi, bool from_top) const;

  struct Held {
    Range range;
    uint8_t tag = 0;
  };

  uint32_t capacity_;
  uint32_t used_ = 0;
  std::vector<Held> allocated_;  // sorted by begin, non-overlapping
};

}  // namespace gpumux::sm
