// What flows through the memory hierarchy: one request per 128 B line touched
// by a warp instruction (after coalescing), with the 32 B sectors it needs.
// Every request except a Writeback gets exactly one response: the request
// itself, handed back to the sink above.
#pragma once

#include <bit>
#include <cstdint>

#include "gpumux/core/clock.h"
#include "gpumux/core/popcount.h"
#include "gpumux/core/stats.h"

namespace gpumux::mem {

inline constexpr uint32_t kLineBytes = 128;
inline constexpr uint32_t kSectorBytes = 32;
inline constexpr uint32_t kSectorsPerLine = kLineBytes / kSectorBytes;

using SectorMask = uint8_t;  // bit i: sector i of the line
inline constexpr SectorMask kAllSectors = (1u << kSectorsPerLine) - 1;

enum class MemOp : uint8_t {
  Read,
  Write,
  Atomic,     // executed at the L2; the functional result is computed at issue
  Writeback,  // dirty line evicted by a cache; no response
};

struct MemRequest {
  uint64_t addr = 0;          // line-aligned byte address
  SectorMask sectors = 0;     // sectors accessed
  MemOp op = MemOp::Read;
  bool cache_fetch = false;   // issued by a cache to fill a line: its response fills that cache
  bool check_translation = false;  // the SM hears when its translation is done (a preemptible-fault pipeline)
  uint16_t size = 0;          // bytes the instruction accesses in this line (atomics: operand bytes)
  uint16_t sm = 0;            // requesting SM (responses are routed back to it)
  uint16_t warp = 0;          // requesting warp slot in the SM
  uint16_t partition = 0;     // memory partition of addr, set by MemorySystem::send
  uint16_t app = 0;
  uint16_t kernel = 0;
  StatKey key = kNoKey;       // stats slot of (app, kernel)
  uint64_t token = 0;         // the requester's handle, returned untouched with the response
  Tick issued = 0;            // when it entered the memory system

  uint32_t sector_count() const { return uint32_t(gpumux::popcount(unsigned(sectors))); }
  uint32_t data_bytes() const { return op == MemOp::Atomic ? size : sector_count() * kSectorBytes; }
};

inline uint64_t line_of(uint64_t addr) { return addr & ~uint64_t(kLineBytes - 1); }

// Told by the MMU when a request marked check_translation has been
// translated: the last TLB check of the thesis's section 6.3. A request whose
// walk finds its page on the host is first reported faulted (the SM learns of
// the fault: what TB switching on fault needs), then translated once the fault
// is serviced.
class TranslationListener {
 public:
  virtual ~TranslationListener() = default;
  virtual void translated(const MemRequest& r) = 0;
  virtual void faulted(const MemRequest&) {}
};

// Anything that takes requests (going down) or responses (going up).
class MemSink {
 public:
  virtual ~MemSink() = default;
  virtual bool can_accept(const MemRequest& r) const = 0;
  // Only after can_accept(r) returned true in the same cycle.
  virtual void accept(const MemRequest& r) = 0;
};

}  // namespace gpumux::mem
