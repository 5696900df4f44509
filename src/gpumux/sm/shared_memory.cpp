#include "gpumux/sm/shared_memory.h"

#include <algorithm>
#include <bit>

#include "gpumux/core/popcount.h"
#include "gpumux/exec/step_context.h"

namespace gpumux::sm {

uint32_t bank_conflict_degree(const std::array<uint64_t, 32>& addr, uint32_t mask, uint32_t bytes) {
  if (mask == 0) return 0;
  uint32_t words_per_lane = std::max<uint32_t>(1, (bytes + kBankBytes - 1) / kBankBytes);
  words_per_lane = std::min<uint32_t>(words_per_lane, 4);
  // Word w sits in bank w % 32 at row w / 32: a bank's distinct words are its
  // distinct rows. When every row is within 32 of the first lane's, each
  // bank's rows fit a 64-bit mask and the degree is the largest mask's
  // popcount, without branches per lane (the usual case).
  {
    const uint64_t bias = (addr[unsigned(std::countr_zero(mask))] / kBankBytes / kSharedBanks) - 32;
    std::array<uint64_t, kSharedBanks> rows{};
    uint64_t out_of_range = 0;
    // Words per lane a constant for the usual 4 B access.
    auto add_all = [&]<uint32_t Words>() {
      const uint32_t words = Words ? Words : words_per_lane;
      auto add = [&](unsigned lane) {
        for (uint32_t k = 0; k < words; ++k) {
          uint64_t word = addr[lane] / kBankBytes + k;
          uint64_t row = word / kSharedBanks - bias;  // wraps below the bias: out of range
          out_of_range |= row >> 6;
          rows[word % kSharedBanks] |= uint64_t(1) << (row & 63);
        }
      };
      exec::for_lanes(mask, add);
    };
    if (words_per_lane == 1)
      add_all.template operator()<1>();
    else
      add_all.template operator()<0>();
    if (out_of_range == 0) {
      uint64_t several = 0;
      for (uint64_t r : rows) several |= r & (r - 1);
      if (several == 0) return 1;
      uint32_t degree = 0;
      for (uint64_t r : rows) degree = std::max<uint32_t>(degree, uint32_t(gpumux::popcount(r)));
      return degree;
    }
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
