// Register-file banks and operand collector units of one sub-core
// (sm.operand_collector, docs/timing-sm.md). An issued instruction takes a
// collector unit, which reads its source registers from the banks; it goes
// to its functional unit once all are read, and the unit is free again then.
// Each bank serves read_ports reads per cycle to one instruction at a time,
// in issue order. Reading takes one cycle without conflicts, which the unit
// latencies already include: only the cycles beyond it delay the instruction.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "gpumux/core/clock.h"
#include "gpumux/core/sm_params.h"
#include "gpumux/sm/inst_timing.h"

namespace gpumux::sm {

class OperandCollector {
 public:
  explicit OperandCollector(const SmOperandCollectorParams& p);

  // The first cycle at which an instruction can take a collector unit.
  Cycle unit_free() const { return *std::min_element(units_.begin(), units_.end()); }

  // Reads the source registers `srcs` (predicates have no bank) of an
  // instruction of warp slot `slot` issued at `now`, whose frame starts at
  // register `reg_base`; unit_free() <= now. Returns the cycles its reads
  // take beyond one (bank conflicts, its own or with earlier instructions').
  Cycle collect(std::span<const RegRef> srcs, uint32_t reg_base, uint16_t slot, Cycle now);

 private:
  uint32_t read_ports_;
  std::vector<Cycle> units_;      // free from this cycle
  std::vector<Cycle> bank_free_;  // free from this cycle
  std::vector<uint32_t> reads_;   // scratch: reads per bank of one instruction
};

}  // namespace gpumux::sm
