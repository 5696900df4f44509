#include "gpumux/sm/opcode_latency.h"

namespace gpumux::sm {

uint32_t opcode_latency(const ptx::Instruction& in, const SmOpcodeLatencyParams& p) {
  using ptx::Opcode;
  bool f64 = in.type == ptx::Type::F64 || in.type2 == ptx::Type::F64;
  bool flt = ptx::type_is_float(in.type) || ptx::type_is_float(in.type2);
  auto by_type = [&](uint32_t i, uint32_t f32, uint32_t d) { return f64 ? d : flt ? f32 : i; };
  switch (in.op) {
    case Opcode::Shfl: case Opcode::Vote: case Opcode::Match: case Opcode::Redux:
      return p.shfl;
    case Opcode::Min: case Opcode::Max:
      return by_type(p.int_max, p.fp32_max, p.fp64_max);
    case Opcode::Mul: case Opcode::Mul24:
      return by_type(p.int_mul, p.fp32_mul, p.fp64_mul);
    case Opcode::Mad: case Opcode::Mad24: case Opcode::Madc: case Opcode::Fma:
      return by_type(p.int_mad, p.fp32_mad, p.fp64_mad);
    case Opcode::Div:
      return by_type(p.int_div, p.fp32_div, p.fp64_div);
    case Opcode::Rem:
      return p.int_div;
    default:
      return 0;
  }
}

}  // namespace gpumux::sm
