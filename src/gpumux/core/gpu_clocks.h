// The clock domains of a GPU, created in a fixed order (core, icnt, l2, dram)
// so that edges at the same tick run in that order.
#pragma once

#include "gpumux/core/config.h"
#include "gpumux/core/engine.h"

namespace gpumux {

struct GpuClocks {
  DomainId core, icnt, l2, dram;
};

inline GpuClocks add_gpu_clocks(Engine& engine, const ClockParams& c) {
  GpuClocks clocks;
  clocks.core = engine.add_domain("core", c.core_mhz);
  clocks.icnt = engine.add_domain("icnt", c.icnt_mhz);
  clocks.l2 = engine.add_domain("l2", c.l2_mhz);
  clocks.dram = engine.add_domain("dram", c.dram_mhz);
  return clocks;
}

}  // namespace gpumux
