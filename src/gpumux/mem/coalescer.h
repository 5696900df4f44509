// The coalescer: from the per-lane byte addresses of one warp memory
// instruction to the 128 B lines it touches, each with the 32 B sectors needed
// and the lanes served. Lines come out in the order of their first lane.
#pragma once

#include <array>
#include <cstdint>

#include "gpumux/mem/request.h"

namespace gpumux::mem {

inline constexpr unsigned kWarpLanes = 32;

struct LineAccess {
  uint64_t line = 0;       // line-aligned address
  SectorMask sectors = 0;
  uint32_t lanes = 0;      // lanes with bytes in this line
};

struct CoalescedAccesses {
  // An access of up to 16 B can straddle two lines when misaligned.
  std::array<LineAccess, 2 * kWarpLanes> lines;
  unsigned count = 0;
  const LineAccess* begin() const { return lines.data(); }
  const LineAccess* end() const { return lines.data() + count; }
};

// `lane_addr[l]` is lane l's address, used for lanes set in `active`; each lane
// accesses `access_bytes` bytes (1..16).
CoalescedAccesses coalesce(const std::array<uint64_t, kWarpLanes>& lane_addr, uint32_t active, uint32_t access_bytes);

}  // namespace gpumux::mem
