#include "gpumux/sm/range_allocator.h"

#include <algorithm>
#include <cassert>

namespace gpumux::sm {

uint32_t RangeAllocator::first_fit(uint32_t size, size_t& insert_at) const {
  uint32_t pos = 0;
  for (size_t i = 0; i < allocated_.size(); ++i) {
    if (allocated_[i].begin - pos >= size) {
      insert_at = i;
      return pos;
    }
    pos = allocated_[i].end();
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
  allocated_.insert(allocated_.begin() + ptrdiff_t(at), r);
  used_ += size;
  return r;
}

void RangeAllocator::release(Range r) {
  if (r.size == 0) return;
  auto it = std::find_if(allocated_.begin(), allocated_.end(),
                         [&](const Range& a) { return a.begin == r.begin; });
  assert(it != allocated_.end() && it->size == r.size);
  used_ -= it->size;
  allocated_.erase(it);
}

uint32_t RangeAllocator::largest_free() const {
  uint32_t pos = 0, best = 0;
  for (const Range& a : allocated_) {
    best = std::max(best, a.begin - pos);
    pos = a.end();
  }
  return std::max(best, capacity_ - pos);
}

}  // namespace gpumux::sm
