#include "gpumux/sm/shared_memory.h"

#include <algorithm>
#include <bit>

namespace gpumux::sm {

uint32_t bank_conflict_degree(const std::array<uint64_t, 32>& addr, uint32_t mask, uint32_t bytes) {
  if (mask == 0) return 0;
  // Fast path for word accesses: every lane in a bank of its own, or all
  // lanes on one word (broadcast), is conflict-free.
  if (bytes <= kBankBytes) {
    uint32_t banks = 0;
    bool distinct = true, same = true;
    uint64_t first = addr[unsigned(std::countr_zero(mask))] / kBankBytes;
    for (uint32_t m = mask; m; m &= m - 1) {
      uint64_t word = addr[unsigned(std::countr_zero(m))] / kBankBytes;
      uint32_t bit = 1u << (word % kSharedBanks);
      distinct &= (banks & bit) == 0;
      same &= word == first;
      banks |= bit;
    }
    if (distinct || same) return 1;
  }
  // Distinct words per bank; at most 32 lanes x 4 words each.
  constexpr unsigned kMaxWords = 32 * 4;
  std::array<uint64_t, kMaxWords> words;
  unsigned n = 0;
  uint32_t words_per_lane = std::max<uint32_t>(1, (bytes + kBankBytes - 1) / kBankBytes);
  words_per_lane = std::min<uint32_t>(words_per_lane, 4);
  for (uint32_t m = mask; m; m &= m - 1) {
    unsigned lane = unsigned(std::countr_zero(m));
    uint64_t first = addr[lane] / kBankBytes;
    for (uint32_t k = 0; k < words_per_lane; ++k) words[n++] = first + k;
  }
  std::sort(words.begin(), words.begin() + n);
  n = unsigned(std::unique(words.begin(), words.begin() + n) - words.begin());
  std::array<uint8_t, kSharedBanks> per_bank{};
  uint32_t degree = 0;
  for (unsigned i = 0; i < n; ++i) degree = std::max<uint32_t>(degree, ++per_bank[words[i] % kSharedBanks]);
  return degree;
}

}  // namespace gpumux::sm
