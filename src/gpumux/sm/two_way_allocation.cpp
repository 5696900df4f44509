#include "gpumux/sm/two_way_allocation.h"

#include <algorithm>
#include <cassert>

namespace gpumux::sm {

bool TwoWayAllocation::held(const RangeAllocator& regs, const RangeAllocator& smem, size_t end) const {
  return regs.count(tag(end)) > 0 || smem.count(tag(end)) > 0;
}

int TwoWayAllocation::end_of(const RangeAllocator& regs, const RangeAllocator& smem, uint32_t kernel_id) const {
  int free_end = -1;
  for (size_t e = 0; e < owner_.size(); ++e) {
    if (!held(regs, smem, e)) {
      if (free_end < 0) free_end = int(e);
    } else if (owner_[e] == kernel_id) {
      return int(e);
    }
  }
  return free_end;
}

TwoWayAllocation::Region TwoWayAllocation::safe_region(const RangeAllocator& pool, size_t end) const {
  const uint64_t parts = owner_.size() / 2, part = end / 2, cap = pool.capacity();
  Region r{uint32_t(cap * part / parts), uint32_t(cap * (part + 1) / parts)};
  const size_t partner = end ^ 1;
  if (end % 2 == 0) {
    if (auto b = pool.lowest_begin(tag(partner))) r.hi = std::min(r.hi, *b);
  } else {
    if (auto e = pool.highest_end(tag(partner))) r.lo = std::max(r.lo, *e);
  }
  return r;
}

bool TwoWayAllocation::fits(const RangeAllocator& regs, const RangeAllocator& smem, const RangeAllocator& pool,
                            uint32_t kernel_id, uint32_t size) const {
  int e = end_of(regs, smem, kernel_id);
  if (e < 0) return false;
  Region r = safe_region(pool, size_t(e));
  return r.hi >= r.lo && pool.fits_in(size, r.lo, r.hi);
}

Range TwoWayAllocation::allocate(const RangeAllocator& regs, const RangeAllocator& smem, RangeAllocator& pool,
                                 uint32_t kernel_id, uint32_t size) {
  int e = end_of(regs, smem, kernel_id);
  assert(e >= 0);
  owner_[size_t(e)] = kernel_id;
  Region r = safe_region(pool, size_t(e));
  std::optional<Range> got = pool.allocate_in(size, r.lo, r.hi, e % 2 == 1, tag(size_t(e)));
  assert(got);
  return *got;
}

bool TwoWayAllocation::from_top(const RangeAllocator& regs, const RangeAllocator& smem, uint32_t kernel_id) const {
  return end_of(regs, smem, kernel_id) % 2 == 1;
}

}  // namespace gpumux::sm
