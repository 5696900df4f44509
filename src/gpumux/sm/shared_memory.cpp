#include "gpumux/sm/shared_memory.h"

#include <algorithm>
#include <bit>

namespace gpumux::sm {

uint32_t bank_conflict_degree(const std::array<uint64_t, 32>& addr, uint32_t mask, uint32_t bytes) {
  if (mask == 0) return 0;
  // Fast path: conflict-free when every bank is asked for at most one
  // distinct word (each lane in a bank of its own, broadcasts, or both).
  uint32_t words_per_lane = std::max<uint32_t>(1, (bytes + kBankBytes - 1) / kBankBytes);
  words_per_lane = std::min<uint32_t>(words_per_lane, 4);
  {
    std::array<uint64_t, kSharedBanks> bank_word{};
    uint32_t used = 0;
    bool one_word_per_bank = true;
    for (uint32_t m = mask; m && one_word_per_bank; m &= m - 1) {
      uint64_t first = addr[unsigned(std::countr_zero(m))] / kBankBytes;
      for (uint32_t k = 0; k < words_per_lane; ++k) {
        uint64_t word = first + k;
        unsigned b = unsigned(word % kSharedBanks);
        uint32_t bit = 1u << b;
        if (!(used & bit)) {
          used |= bit;
          bank_word[b] = word;
        } else if (bank_word[b] != word) {
          one_word_per_bank = false;
          break;
        }
      }
    }
    if (one_word_per_bank) return 1;
  }
  // Distinct words per bank; at most 32 lanes x 4 words each.
  constexpr unsigned kMaxWords = 32 * 4;
  std::array<uint64_t, kMaxWords> words;
  unsigned n = 0;
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
