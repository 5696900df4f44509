#include "gpumux/sm/range_allocator.h"

#include <algorithm>
#include <cassert>

namespace gpumux::sm {

uint32_t RangeAllocator::first_fit(uint32_t size, size_t& insert_at) const {
  uint32_t pos = 0;
  for (size_t i = 0; i < allocated_.size(); ++i) {
    if (allocated_[i].range.begin - pos >= size) {
      insert_at = i;
      return pos;
    }
    pos = allocated_[i].range.end();
  }
  insert_at = allocated_.size();
  return capacity_ - pos >= size ? pos : capacity_;
}

bool RangeAllocator::fits(uint32_t size) const {
  if (size == 0) return true;
  size_t at;
  return first_fit(size, at) != capacity_;
}

std::optional<Range> RangeAllocator::allocate(uint32_t size) {
  if (size == 0) return Range{0, 0};
  size_t at;
  uint32_t begin = first_fit(size, at);
  if (begin == capacity_) return std::nullopt;
  Range r{begin, size};
  allocated_.insert(allocated_.begin() + ptrdiff_t(at), Held{r, 0});
  used_ += size;
  return r;
}

void RangeAllocator::release(Range r) {
  if (r.size == 0) return;
  auto it = std::find_if(allocated_.begin(), allocated_.end(),
                         [&](const Held& a) { return a.range.begin == r.begin; });
  assert(it != allocated_.end() && it->range.size == r.size);
  used_ -= it->range.size;
  allocated_.erase(it);
}

uint32_t RangeAllocator::largest_free() const {
  uint32_t pos = 0, best = 0;
  for (const Held& a : allocated_) {
    best = std::max(best, a.range.begin - pos);
    pos = a.range.end();
  }
  return std::max(best, capacity_ - pos);
}

std::optional<uint32_t> RangeAllocator::fit_in(uint32_t size, uint32_t lo, uint32_t hi, bool from_top) const {
  std::optional<uint32_t> found;
  // Each hole between allocated ranges, clipped to [lo, hi), low to high.
  uint32_t pos = 0;
  for (size_t i = 0; i <= allocated_.size(); ++i) {
    uint32_t hole_end = i < allocated_.size() ? allocated_[i].range.begin : capacity_;
    uint32_t b = std::max(pos, lo), e = std::min(hole_end, hi);
    if (e >= b && e - b >= size) {
      if (!from_top) return b;
      found = e - size;
    }
    if (i < allocated_.size()) pos = allocated_[i].range.end();
    if (pos >= hi) break;
  }
  return found;
}

bool RangeAllocator::fits_in(uint32_t size, uint32_t lo, uint32_t hi) const {
  return size == 0 || fit_in(size, lo, hi, false).has_value();
}

std::optional<Range> RangeAllocator::allocate_in(uint32_t size, uint32_t lo, uint32_t hi, bool from_top,
                                                 uint8_t tag) {
  if (size == 0) return Range{lo, 0};
  std::optional<uint32_t> begin = fit_in(size, lo, hi, from_top);
  if (!begin) return std::nullopt;
  Range r{*begin, size};
  auto at = std::find_if(allocated_.begin(), allocated_.end(), [&](const Held& a) { return a.range.begin > r.begin; });
  allocated_.insert(at, Held{r, tag});
  used_ += size;
  return r;
}

uint32_t RangeAllocator::count(uint8_t tag) const {
  return uint32_t(std::count_if(allocated_.begin(), allocated_.end(), [&](const Held& a) { return a.tag == tag; }));
}

std::optional<uint32_t> RangeAllocator::lowest_begin(uint8_t tag) const {
  for (const Held& a : allocated_)
    if (a.tag == tag) return a.range.begin;
  return std::nullopt;
}

std::optional<uint32_t> RangeAllocator::highest_end(uint8_t tag) const {
  for (size_t i = allocated_.size(); i-- > 0;)
    if (allocated_[i].tag == tag) return allocated_[i].range.end();
  return std::nullopt;
}

}  // namespace gpumux::sm
