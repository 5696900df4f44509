// The layout of the addresses SMs send to the memory system. Applications
// have separate address spaces that reuse the same virtual addresses, so each
// gets its own range, [app << 40, (app + 1) << 40) for up to 64 applications,
// and caches never hit on another application's lines. Inside it the runtime's
// allocations lie below the context save area; local memory of warp slots has
// a region of its own above every application's range.
#pragma once

#include <cstdint>

namespace gpumux::sm {

inline constexpr uint32_t kMaxApps = 64;
inline constexpr unsigned kAppShift = 40;
// Offset of the context save area inside an application's range (sm_preempt.cpp).
inline constexpr uint64_t kSaveAreaBase = 0x0000'00f0'0000'0000ull;
inline constexpr uint64_t kLocalBase = 0x0000'7c00'0000'0000ull;
// Local memory of warp slot w of SM s starts at kLocalBase + ((s x warp slots + w) << kLocalSlotShift).
inline constexpr unsigned kLocalSlotShift = 28;  // 256 MB per warp slot: 512 KB per thread x 32 lanes

inline uint64_t application_base(uint32_t app) { return uint64_t(app % kMaxApps) << kAppShift; }

// Whether `addr` holds an application's data (its global memory), as opposed
// to local memory or context save areas, which the device owns.
inline bool is_application_data(uint64_t addr) {
  return addr >> kAppShift < kMaxApps && (addr & ((uint64_t(1) << kAppShift) - 1)) < kSaveAreaBase;
}

}  // namespace gpumux::sm
