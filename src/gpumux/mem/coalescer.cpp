#include "gpumux/mem/coalescer.h"

#include <bit>

namespace gpumux::mem {
namespace {

void add(CoalescedAccesses& out, uint64_t line, SectorMask sectors, uint32_t lane_bit) {
  for (unsigned i = 0; i < out.count; ++i) {
    if (out.lines[i].line == line) {
      out.lines[i].sectors |= sectors;
      out.lines[i].lanes |= lane_bit;
      return;
    }
  }
  out.lines[out.count++] = LineAccess{line, sectors, lane_bit};
}

// Sectors of `line` covered by bytes [first, last].
SectorMask sectors_of(uint64_t line, uint64_t first, uint64_t last) {
  uint64_t lo = first < line ? 0 : (first - line) / kSectorBytes;
  uint64_t hi = last >= line + kLineBytes ? kSectorsPerLine - 1 : (last - line) / kSectorBytes;
  return SectorMask(((1u << (hi + 1)) - 1) & ~((1u << lo) - 1));
}

}  // namespace

CoalescedAccesses coalesce(const std::array<uint64_t, kWarpLanes>& lane_addr, uint32_t active, uint32_t access_bytes) {
  CoalescedAccesses out;
  for (uint32_t m = active; m; m &= m - 1) {
    unsigned lane = unsigned(std::countr_zero(m));
    uint64_t first = lane_addr[lane];
    uint64_t last = first + (access_bytes ? access_bytes : 1) - 1;
    uint32_t bit = 1u << lane;
    for (uint64_t line = line_of(first); line <= line_of(last); line += kLineBytes)
      add(out, line, sectors_of(line, first, last), bit);
  }
  return out;
}

}  // namespace gpumux::mem
