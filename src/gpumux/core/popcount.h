// Set bits of a lane or sector mask, and power-of-two tests, inline on any
// x86-64.
//
// The build targets baseline x86-64 (the binary must run on any x86-64), which
// has no POPCNT instruction, so std::popcount compiles to a call into libgcc's
// table-driven __popcountdi2. The timing model counts active lanes once per
// warp instruction and sectors once per memory request; the branch-free bit
// sum below is a few ALU instructions, inlined, with no call. GCC implements
// std::has_single_bit with the same call.
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>

namespace gpumux {

template <std::unsigned_integral T>
constexpr uint32_t popcount(T x) {
#ifdef __POPCNT__
  return uint32_t(std::popcount(x));
#else
  static_assert(sizeof(T) <= sizeof(uint64_t));
  uint64_t v = x;
  v -= (v >> 1) & 0x5555555555555555u;                            // 2-bit sums
  v = (v & 0x3333333333333333u) + ((v >> 2) & 0x3333333333333333u);  // 4-bit sums
  v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0fu;                        // byte sums
  return uint32_t((v * 0x0101010101010101u) >> 56);                 // their total in the top byte
#endif
}

template <std::unsigned_integral T>
constexpr bool has_single_bit(T x) {
  return x != 0 && (x & (x - 1)) == 0;
}

}  // namespace gpumux
