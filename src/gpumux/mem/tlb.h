// The tag array of a TLB: set-associative, LRU within a set, holding page
// numbers (the translation itself is the identity, see mmu.h). Timing and
// misses in flight are the MMU's.
#pragma once

#include <cstdint>
#include <vector>

namespace gpumux::mem {

class TlbArray {
 public:
  TlbArray(uint32_t entries, uint32_t ways);
  // Whether `page` is held, without touching the LRU order.
  bool contains(uint64_t page) const;
  // A lookup: true on a hit, which becomes the set's most recently used.
  bool lookup(uint64_t page);
  // Adds `page` (a fill after a miss), evicting the set's least recently used.
  void insert(uint64_t page);
  // Drops `page` if held (a TLB shootdown).
  void invalidate(uint64_t page);

 private:
  static constexpr uint64_t kEmpty = ~uint64_t(0);
  struct Way {
    uint64_t page = kEmpty;
    uint64_t used = 0;  // LRU stamp
  };
  Way* set_of(uint64_t page) { return &ways_[(page % sets_) * assoc_]; }
  const Way* set_of(uint64_t page) const { return &ways_[(page % sets_) * assoc_]; }

  uint32_t sets_, assoc_;
  uint64_t clock_ = 0;
  std::vector<Way> ways_;
};

}  // namespace gpumux::mem
