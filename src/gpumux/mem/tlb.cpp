#include "gpumux/mem/tlb.h"

namespace gpumux::mem {

TlbArray::TlbArray(uint32_t entries, uint32_t ways) : sets_(entries / ways), assoc_(ways), ways_(entries) {}

bool TlbArray::contains(uint64_t page) const {
  const Way* set = set_of(page);
  for (uint32_t w = 0; w < assoc_; ++w)
    if (set[w].page == page) return true;
  return false;
}

bool TlbArray::lookup(uint64_t page) {
  Way* set = set_of(page);
  for (uint32_t w = 0; w < assoc_; ++w)
    if (set[w].page == page) {
      set[w].used = ++clock_;
      return true;
    }
  return false;
}

void TlbArray::insert(uint64_t page) {
  Way* set = set_of(page);
  Way* victim = set;
  for (uint32_t w = 0; w < assoc_; ++w) {
    if (set[w].page == page) return;  // filled by an earlier miss of the same page
    if (set[w].used < victim->used) victim = &set[w];
  }
  *victim = Way{page, ++clock_};
}

void TlbArray::invalidate(uint64_t page) {
  Way* set = set_of(page);
  for (uint32_t w = 0; w < assoc_; ++w)
    if (set[w].page == page) set[w] = Way{};
}

}  // namespace gpumux::mem
