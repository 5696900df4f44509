// bind_compute(): routes a compute instruction to its family's binder.
#include "gpumux/exec/compute/families.h"

namespace gpumux::exec {

namespace compute {
namespace {

template <class E, size_t N>
const char* name_of(E e, const char* const (&names)[N]) {
  const size_t i = size_t(e);
  return i < N ? names[i] : "?";
}

void add(std::string& s, const char* part) {
  if (*part) s.append(".").append(part);
}

}  // namespace

std::string spelling(const ptx::Instruction& in) {
  static const char* const kRnd[] = {"", "rn", "rz", "rm", "rp", "rna", "rni", "rzi", "rmi", "rpi"};
  static const char* const kCmp[] = {"",   "eq",  "ne",  "lt",  "le",  "gt",  "ge",  "lo",  "ls",  "hi",
                                     "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
  static const char* const kBop[] = {"", "and", "or", "xor"};
  static const char* const kMul[] = {"", "lo", "hi", "wide"};
  static const char* const kTestp[] = {"", "finite", "infinite", "number", "notanumber", "normal", "subnormal"};
  static const char* const kPrmt[] = {"", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
  static const char* const kDir[] = {"", "l", "r"};
  static const char* const kShf[] = {"", "clamp", "wrap"};
  std::string s = ptx::opcode_name(in.op);
  add(s, name_of(in.sdir, kDir));
  add(s, name_of(in.shf, kShf));
  add(s, name_of(in.testp, kTestp));
  add(s, name_of(in.cmp, kCmp));
  add(s, name_of(in.bop, kBop));
  add(s, name_of(in.mul, kMul));
  add(s, in.shiftamt ? "shiftamt" : "");
  add(s, in.approx ? "approx" : "");
  add(s, in.full ? "full" : "");
  add(s, name_of(in.rnd, kRnd));
  add(s, in.ftz ? "ftz" : "");
  add(s, in.sat ? "sat" : "");
  if (in.type != ptx::Type::None) add(s, ptx::type_name(in.type));
  if (in.type2 != ptx::Type::None && in.type2 != in.type) add(s, ptx::type_name(in.type2));
  add(s, name_of(in.prmt, kPrmt));
  return s;
}

ptx::ExecHandler reject(const ptx::Instruction& in, std::string& why, const std::string& detail) {
  why = spelling(in) + " not supported";
  if (!detail.empty()) why += " (" + detail + ")";
  return nullptr;
}

}  // namespace compute

ptx::ExecHandler bind_compute(const ptx::Instruction& in, std::string& why) {
  using namespace compute;
  using ptx::Opcode;
  why.clear();
  if (in.cc) return bind_carry(in, why);
  switch (in.op) {
    case Opcode::Addc: case Opcode::Subc: case Opcode::Madc: return bind_carry(in, why);
    case Opcode::Mov: return bind_move(in, why);
    case Opcode::Cvt: return bind_convert(in, why);
    case Opcode::Add: case Opcode::Sub: case Opcode::Mul: case Opcode::Mad: case Opcode::Div:
    case Opcode::Abs: case Opcode::Neg: case Opcode::Min: case Opcode::Max:
      return is_float(in.type) ? bind_float_arith(in, why) : bind_int_arith(in, why);
    case Opcode::Mul24: case Opcode::Mad24: case Opcode::Sad: case Opcode::Rem:
      return bind_int_arith(in, why);
    case Opcode::Fma: case Opcode::Rcp: case Opcode::Sqrt: case Opcode::Rsqrt: case Opcode::Sin:
    case Opcode::Cos: case Opcode::Lg2: case Opcode::Ex2: case Opcode::Tanh: case Opcode::Copysign:
    case Opcode::Testp:
      return bind_float_arith(in, why);
    case Opcode::And: case Opcode::Or: case Opcode::Xor: case Opcode::Not: case Opcode::Cnot:
    case Opcode::Shl: case Opcode::Shr: case Opcode::Shf: case Opcode::Bfe: case Opcode::Bfi:
    case Opcode::Brev: case Opcode::Popc: case Opcode::Clz: case Opcode::Bfind: case Opcode::Prmt:
    case Opcode::Lop3: case Opcode::Dp4a: case Opcode::Dp2a: case Opcode::Bmsk:
    case Opcode::Fns:
      return bind_bits(in, why);
    case Opcode::Setp: case Opcode::Set: case Opcode::Selp: case Opcode::Slct:
      return bind_compare(in, why);
    case Opcode::Video: return bind_video(in, why);
    default:
      why = std::string(ptx::opcode_name(in.op)) + " is not a compute instruction";
      return nullptr;
  }
}

}  // namespace gpumux::exec
