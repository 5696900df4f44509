// What an instruction handler sees while executing one warp instruction.
//
// Handlers (ptx::ExecHandler) are chosen once per instruction by exec::bind()
// and called by Warp::step() with the lanes that execute (active and guard
// true). Registers are stored lane-major per register: regs[r * 32 + lane],
// 64 bits each; a narrower value occupies the low bits, zero-extended.
// Predicates are one 32-bit lane mask each.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>

#include "gpumux/ptx/ir.h"

namespace gpumux::exec {

inline constexpr unsigned kWarpSize = 32;
inline constexpr uint32_t kFullMask = 0xffffffffu;

class Warp;

struct StepContext {
  Warp* warp = nullptr;     // null only in unit tests of pure compute handlers
  uint32_t mask = 0;        // lanes executing this instruction
  uint64_t* regs = nullptr; // current frame's registers: regs[r * kWarpSize + lane]
  uint32_t* preds = nullptr;// current frame's predicates: lane masks

  uint64_t* lanes(uint16_t r) const { return regs + size_t(r) * kWarpSize; }

  // Raw bits of a source operand (Reg, Imm, Special, Symbol) for one lane.
  uint64_t src(const ptx::Operand& o, unsigned lane) const {
    if (o.kind == ptx::OperandKind::Reg) return regs[size_t(o.reg) * kWarpSize + lane];
    if (o.kind == ptx::OperandKind::Imm) return o.imm;
    return src_slow(o, lane);
  }
  // Value of a predicate operand (Pred, honouring '!'; Imm 0/1 also accepted).
  bool pred(const ptx::Operand& o, unsigned lane) const {
    if (o.kind == ptx::OperandKind::Pred) return ((preds[o.reg] >> lane) & 1u) != o.neg;
    return src(o, lane) != 0;
  }
  void set_pred(uint16_t p, unsigned lane, bool v) const {
    if (v) preds[p] |= 1u << lane; else preds[p] &= ~(1u << lane);
  }
  // Special registers and symbol addresses need the warp; defined in warp.cpp.
  uint64_t src_slow(const ptx::Operand& o, unsigned lane) const;
  // src_slow of every executing lane into out[lane]: a value the same in every
  // lane (a symbol, %ctaid, %clock...) read once, %tid stepped lane by lane.
  void src_lanes_slow(const ptx::Operand& o, uint64_t* out) const;

  // Ends the kernel with a DeviceFault naming this instruction (and lane if given).
  [[noreturn]] void fault(const std::string& reason, std::optional<unsigned> lane = {}) const;
};

// Bit-level conversions between register slots and C++ values.
template <class T>
inline T from_bits(uint64_t b) {
  if constexpr (std::is_same_v<T, bool>) {
    return b != 0;
  } else {
    static_assert(sizeof(T) <= 8);
    T v;
    std::memcpy(&v, &b, sizeof(T));  // little-endian: low bytes
    return v;
  }
}
template <class T>
inline uint64_t to_bits(T v) {
  static_assert(sizeof(T) <= 8);
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}

// Iterates the set lanes of a mask in ascending order.
template <class F>
inline void for_each_lane(uint32_t mask, F&& f) {
  while (mask) {
    unsigned lane = unsigned(std::countr_zero(mask));
    f(lane);
    mask &= mask - 1;
  }
}

// The same, with a full warp as a counted loop (unrolled and vectorised by
// the compiler) instead of a walk over the mask's bits.
template <class F>
inline void for_lanes(uint32_t mask, F&& f) {
  if (mask == kFullMask) {
    for (unsigned lane = 0; lane < kWarpSize; ++lane) f(lane);
  } else {
    for_each_lane(mask, f);
  }
}

// The pure compute handlers (arithmetic, logic, conversion, comparison, mov):
// returns the handler for `in`, or nullptr with `why` set if the opcode/type
// combination is not supported. Defined in exec/compute/.
ptx::ExecHandler bind_compute(const ptx::Instruction& in, std::string& why);

}  // namespace gpumux::exec
