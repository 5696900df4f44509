#include "gpumux/sm/operand_collector.h"

namespace gpumux::sm {

OperandCollector::OperandCollector(const SmOperandCollectorParams& p)
    : read_ports_(p.read_ports), units_(p.collector_units, 0), bank_free_(p.banks, 0), reads_(p.banks, 0) {}

Cycle OperandCollector::collect(std::span<const RegRef> srcs, uint32_t reg_base, uint16_t slot, Cycle now) {
  // The warp slot skews the mapping so that the same register of the warps
  // running one kernel falls in different banks: warps issuing the same code
  // back to back then conflict no more than one warp does alone.
  auto bank = [&](RegRef r) { return (reg_base + r.index + slot) % bank_free_.size(); };
  for (size_t i = 0; i < srcs.size(); ++i) {
    bool repeat = std::any_of(srcs.begin(), srcs.begin() + ptrdiff_t(i),
                              [&](RegRef o) { return !o.pred && o.index == srcs[i].index; });
    if (!srcs[i].pred && !repeat) ++reads_[bank(srcs[i])];  // a register named twice is read once
  }
  Cycle done = now + 1;
  for (RegRef r : srcs) {
    if (r.pred) continue;
    uint32_t& n = reads_[bank(r)];
    if (n == 0) continue;  // this bank is done
    Cycle& free = bank_free_[bank(r)];
    free = std::max(free, now) + (n + read_ports_ - 1) / read_ports_;
    done = std::max(done, free);
    n = 0;
  }
  *std::min_element(units_.begin(), units_.end()) = done;
  return done - (now + 1);
}

}  // namespace gpumux::sm
