// The compute handlers are split by family; bind_compute() routes an
// instruction to its family's binder. A binder returns the handler specialised
// for the instruction's types and modifiers, or nullptr with `why` set.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "gpumux/exec/step_context.h"

namespace gpumux::exec::compute {

ptx::ExecHandler bind_int_arith(const ptx::Instruction& in, std::string& why);
ptx::ExecHandler bind_float_arith(const ptx::Instruction& in, std::string& why);
ptx::ExecHandler bind_convert(const ptx::Instruction& in, std::string& why);
ptx::ExecHandler bind_bits(const ptx::Instruction& in, std::string& why);
ptx::ExecHandler bind_compare(const ptx::Instruction& in, std::string& why);
ptx::ExecHandler bind_move(const ptx::Instruction& in, std::string& why);
// add/sub/mad with .cc, addc, subc, madc (carry.cpp).
ptx::ExecHandler bind_carry(const ptx::Instruction& in, std::string& why);
// The scalar and SIMD video instructions (video.cpp).
ptx::ExecHandler bind_video(const ptx::Instruction& in, std::string& why);

// Sets `why` to "<instruction spelling> not supported" (plus `detail`) and
// returns nullptr, for binders to reject a combination in one statement.
ptx::ExecHandler reject(const ptx::Instruction& in, std::string& why, const std::string& detail = {});

// The PTX spelling of an instruction's opcode, modifiers and types, e.g.
// "cvt.rn.f16x2.f32" or "setp.lt.and.u32".
std::string spelling(const ptx::Instruction& in);

// A set of PTX types, for the allowed-type checks of the binders.
class TypeSet {
 public:
  constexpr TypeSet(std::initializer_list<ptx::Type> types) {
    for (ptx::Type t : types) bits_ |= uint32_t(1) << unsigned(t);
  }
  constexpr bool has(ptx::Type t) const { return (bits_ >> unsigned(t)) & 1; }

 private:
  uint32_t bits_ = 0;
};

inline constexpr TypeSet kIntTypes{ptx::Type::U16, ptx::Type::U32, ptx::Type::U64,
                                   ptx::Type::S16, ptx::Type::S32, ptx::Type::S64};
inline constexpr TypeSet kBitTypes{ptx::Type::B16, ptx::Type::B32, ptx::Type::B64};
inline constexpr TypeSet kFloatTypes{ptx::Type::F16,  ptx::Type::F16x2, ptx::Type::BF16,
                                     ptx::Type::BF16x2, ptx::Type::F32, ptx::Type::F64};

inline bool is_float(ptx::Type t) { return kFloatTypes.has(t); }

// Operand shapes, checked once at bind time so handlers can trust them.
inline bool is_value_src(const ptx::Operand& o) {
  return o.kind == ptx::OperandKind::Reg || o.kind == ptx::OperandKind::Imm ||
         o.kind == ptx::OperandKind::Special || o.kind == ptx::OperandKind::Symbol ||
         o.kind == ptx::OperandKind::Func;
}
inline bool is_reg_dst(const ptx::Operand& o) {
  return o.kind == ptx::OperandKind::Reg || o.kind == ptx::OperandKind::Sink;
}
inline bool is_pred_src(const ptx::Operand& o) {
  return o.kind == ptx::OperandKind::Pred || o.kind == ptx::OperandKind::Imm;
}
// ops[0] a register (or sink) and ops[1..nsrc] value sources, nothing more.
inline bool lanewise_shape(const ptx::Instruction& in, unsigned nsrc) {
  if (in.nops != nsrc + 1 || !is_reg_dst(in.ops[0])) return false;
  for (unsigned i = 1; i <= nsrc; ++i)
    if (!is_value_src(in.ops[i])) return false;
  return true;
}

template <class T>
struct Tag {
  using type = T;
};

// Calls f(Tag<T>{}) with the C++ type of an integer or bit-size PTX type
// (bit-size types are unsigned); nullptr for other types.
template <class F>
ptx::ExecHandler visit_int(ptx::Type t, const F& f) {
  using ptx::Type;
  switch (t) {
    case Type::B8: case Type::U8: return f(Tag<uint8_t>{});
    case Type::B16: case Type::U16: return f(Tag<uint16_t>{});
    case Type::B32: case Type::U32: return f(Tag<uint32_t>{});
    case Type::B64: case Type::U64: return f(Tag<uint64_t>{});
    case Type::S8: return f(Tag<int8_t>{});
    case Type::S16: return f(Tag<int16_t>{});
    case Type::S32: return f(Tag<int32_t>{});
    case Type::S64: return f(Tag<int64_t>{});
    default: return nullptr;
  }
}

// Calls f(Tag<T>{}) with the unsigned C++ type of the given size in bytes.
template <class F>
ptx::ExecHandler visit_width(unsigned bytes, const F& f) {
  switch (bytes) {
    case 1: return f(Tag<uint8_t>{});
    case 2: return f(Tag<uint16_t>{});
    case 4: return f(Tag<uint32_t>{});
    case 8: return f(Tag<uint64_t>{});
    default: return nullptr;
  }
}

// Size in bytes of a register value of type t (0 for pred/none/b128).
inline unsigned value_bytes(ptx::Type t) {
  using ptx::Type;
  switch (t) {
    case Type::B8: case Type::U8: case Type::S8: return 1;
    case Type::B16: case Type::U16: case Type::S16: case Type::F16: case Type::BF16: return 2;
    case Type::B32: case Type::U32: case Type::S32: case Type::F32: case Type::F16x2:
    case Type::BF16x2: return 4;
    case Type::B64: case Type::U64: case Type::S64: case Type::F64: return 8;
    default: return 0;
  }
}

}  // namespace gpumux::exec::compute
