// GPU Maestro's 2-way resource allocation (Park et al., ASPLOS'17 4.2) and
// its 2n-way generalisation, an SM option (sm.two_way_pairs, docs/two-way-allocation.md).
//
// The register file and shared memory are split into `pairs` equal parts;
// each part has two ends, and a kernel resident on the SM owns one end (the
// first free one, bottom before top, when its first TB arrives; it keeps it
// while it holds any range there). A TB of the bottom kernel takes the lowest
// free contiguous range of its safe launch region, a TB of the top kernel the
// highest: the region runs from the kernel's end to the nearest range of the
// other kernel of the pair (or the part's other end). The boundary TBs are
// those nearest the other kernel; preemption takes them first (reverse of the
// allocation order), so a kernel always frees the space next to the free
// middle and the two kernels never interleave. A third kernel (2n+1-th)
// waits until an end is free. With one kernel per SM (spatial sharing) and
// one pair, the bottom kernel allocates exactly as the one-ended first-fit.
#pragma once

#include <cstdint>
#include <vector>

#include "gpumux/sm/occupancy.h"
#include "gpumux/sm/range_allocator.h"

namespace gpumux::sm {

class TwoWayAllocation {
 public:
  explicit TwoWayAllocation(uint32_t pairs) : owner_(2 * pairs, 0) {}

  // Whether `size` units of `pool` fit in the safe launch region of kernel
  // `kernel_id` (its end's, or a free end's if it owns none).
  bool fits(const RangeAllocator& regs, const RangeAllocator& smem, const RangeAllocator& pool, uint32_t kernel_id,
            uint32_t size) const;
  // Takes `size` units of `pool` for kernel `kernel_id`; fits() must hold.
  Range allocate(const RangeAllocator& regs, const RangeAllocator& smem, RangeAllocator& pool, uint32_t kernel_id,
                 uint32_t size);
  // Whether kernel `kernel_id` owns an end or one is free (else it waits,
  // whatever is free: not fragmentation but the limit of 2n kernels).
  bool has_end(const RangeAllocator& regs, const RangeAllocator& smem, uint32_t kernel_id) const {
    return end_of(regs, smem, kernel_id) >= 0;
  }
  // Whether kernel `kernel_id` allocates from the top of its part: its
  // preemption order (boundary TBs first) is then by ascending begin, else
  // by descending begin.
  bool from_top(const RangeAllocator& regs, const RangeAllocator& smem, uint32_t kernel_id) const;
  // Whether a TB holding registers `a` is preempted before one holding `b`
  // (same kernel, allocating from the top if `top`): the boundary TB first.
  static bool preempted_before(bool top, const Range& a, const Range& b) {
    return top ? a.begin < b.begin : a.begin > b.begin;
  }

 private:
  // The end kernel `kernel_id` owns, else the first free end; -1 if none.
  int end_of(const RangeAllocator& regs, const RangeAllocator& smem, uint32_t kernel_id) const;
  bool held(const RangeAllocator& regs, const RangeAllocator& smem, size_t end) const;
  struct Region {
    uint32_t lo, hi;
  };
  Region safe_region(const RangeAllocator& pool, size_t end) const;
  static uint8_t tag(size_t end) { return uint8_t(end + 1); }  // 0: untagged (one-ended allocation)

  std::vector<uint32_t> owner_;  // kernel id per end (bottom, top of part 0, then part 1...), valid while held
};

}  // namespace gpumux::sm
