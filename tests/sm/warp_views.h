// Synthetic warps for warp-scheduler tests.
#pragma once

#include <cstdint>
#include <vector>

#include "gpumux/sm/warp_scheduler/warp_scheduler.h"

namespace gpumux::sm::test {

// One ready warp per entry, of that kernel, oldest first (slot = age = index).
inline std::vector<WarpView> ready_warps(const std::vector<uint32_t>& kernels) {
  std::vector<WarpView> ws;
  for (size_t i = 0; i < kernels.size(); ++i) {
    WarpView v;
    v.slot = uint16_t(i);
    v.kernel = kernels[i];
    v.age = i;
    v.ready = true;
    ws.push_back(v);
  }
  return ws;
}

}  // namespace gpumux::sm::test
