// Shared-memory bank conflicts: 32 banks of 4 B words. Lanes reading the same
// word share one access (broadcast); distinct words in one bank serialize.
#pragma once

#include <array>
#include <cstdint>

namespace gpumux::sm {

inline constexpr unsigned kSharedBanks = 32;
inline constexpr unsigned kBankBytes = 4;

// Accesses the banks need for the lanes in `mask`, each touching `bytes` bytes
// at `addr[lane]` (wide accesses touch consecutive banks): the conflict
// degree, 1 for a conflict-free access, 0 for no lanes.
uint32_t bank_conflict_degree(const std::array<uint64_t, 32>& addr, uint32_t mask, uint32_t bytes);

}  // namespace gpumux::sm
