#include "gpumux/mem/coalescer.h"

#include <algorithm>
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

// The usual case in one pass without searching: every lane's bytes inside
// one line, all lines within two of the first lane's (unit or small strides,
// either way). Lanes are bucketed by line, the lines then put in the order
// of their first lane. False when the case does not apply (out untouched).
bool coalesce_near_lines(const std::array<uint64_t, kWarpLanes>& lane_addr, uint32_t active, uint64_t span,
                         CoalescedAccesses& out) {
  constexpr unsigned kBuckets = 4;  // lines base-2 .. base+1 of the first lane's line
  const uint64_t low = line_of(lane_addr[unsigned(std::countr_zero(active))]) - 2 * kLineBytes;
  std::array<uint32_t, kBuckets> lanes{};
  std::array<SectorMask, kBuckets> sectors{};
  uint64_t far = 0;  // nonzero: a lane outside the buckets, or straddling two lines
  auto add = [&](unsigned lane) {
    const uint64_t first = lane_addr[lane], in_line = first % kLineBytes, end = in_line + span - 1;
    const uint64_t b = (first - low) / kLineBytes;
    far |= (b & ~uint64_t(kBuckets - 1)) | (end / kLineBytes);
    lanes[b % kBuckets] |= 1u << lane;
    // At most kSectorBytes per lane: its first and last sectors are all it touches.
    sectors[b % kBuckets] |= SectorMask((1u << (in_line / kSectorBytes)) | (1u << (end / kSectorBytes % 8)));
  };
  if (active == ~0u) {
    for (unsigned lane = 0; lane < kWarpLanes; ++lane) add(lane);
  } else {
    for (uint32_t m = active; m; m &= m - 1) add(unsigned(std::countr_zero(m)));
  }
  if (far) return false;
  std::array<unsigned, kBuckets> order;
  unsigned n = 0;
  for (unsigned b = 0; b < kBuckets; ++b) {
    if (!lanes[b]) continue;
    unsigned i = n++;  // insertion by first lane
    for (; i > 0 && std::countr_zero(lanes[order[i - 1]]) > std::countr_zero(lanes[b]); --i) order[i] = order[i - 1];
    order[i] = b;
  }
  for (unsigned i = 0; i < n; ++i)
    out.lines[i] = LineAccess{low + order[i] * uint64_t(kLineBytes), sectors[order[i]], lanes[order[i]]};
  out.count = n;
  return true;
}

}  // namespace

CoalescedAccesses coalesce(const std::array<uint64_t, kWarpLanes>& lane_addr, uint32_t active, uint32_t access_bytes) {
  CoalescedAccesses out;
  const uint64_t span = access_bytes ? access_bytes : 1;
  if (active && span <= kSectorBytes && coalesce_near_lines(lane_addr, active, span, out)) return out;
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
