#include "gpumux/ptx/ir.h"

#include "gpumux/ptx/inst_info.h"

namespace gpumux::ptx {

// type_size's table follows the enumerators' order: pinned at each group's ends.
static_assert(type_size(Type::Pred) == 0 && type_size(Type::B8) == 1 && type_size(Type::B128) == 16 &&
              type_size(Type::U8) == 1 && type_size(Type::U64) == 8 && type_size(Type::S8) == 1 &&
              type_size(Type::S64) == 8 && type_size(Type::F16) == 2 && type_size(Type::F16x2) == 4 &&
              type_size(Type::BF16) == 2 && type_size(Type::BF16x2) == 4 && type_size(Type::F32) == 4 &&
              type_size(Type::F64) == 8);

const char* type_name(Type t) {
  switch (t) {
    case Type::None: return "none";
    case Type::Pred: return "pred";
    case Type::B8: return "b8";
    case Type::B16: return "b16";
    case Type::B32: return "b32";
    case Type::B64: return "b64";
    case Type::B128: return "b128";
    case Type::U8: return "u8";
    case Type::U16: return "u16";
    case Type::U32: return "u32";
    case Type::U64: return "u64";
    case Type::S8: return "s8";
    case Type::S16: return "s16";
    case Type::S32: return "s32";
    case Type::S64: return "s64";
    case Type::F16: return "f16";
    case Type::F16x2: return "f16x2";
    case Type::BF16: return "bf16";
    case Type::BF16x2: return "bf16x2";
    case Type::F32: return "f32";
    case Type::F64: return "f64";
  }
  return "?";
}

const char* space_name(Space s) {
  switch (s) {
    case Space::None: return "none";
    case Space::Reg: return "reg";
    case Space::Global: return "global";
    case Space::Shared: return "shared";
    case Space::Local: return "local";
    case Space::Const: return "const";
    case Space::Param: return "param";
    case Space::Generic: return "generic";
  }
  return "?";
}

const char* opcode_name(Opcode op) {
  static constexpr const char* kNames[] = {
      "invalid",
      "ld", "ldu", "st", "mov", "cvt", "cvta", "prefetch", "isspacep",
      "add", "sub", "mul", "mad", "mul24", "mad24", "sad", "div", "rem", "abs", "neg", "min",
      "max", "fma", "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh", "copysign",
      "testp", "addc", "subc", "madc",
      "and", "or", "xor", "not", "cnot", "shl", "shr", "shf", "bfe", "bfi", "brev", "popc", "clz",
      "bfind", "prmt", "lop3", "dp4a", "dp2a", "bmsk", "fns",
      "setp", "set", "selp", "slct",
      "bra", "call", "ret", "exit", "trap", "brkpt", "nanosleep",
      "bar", "membar", "atom", "red", "shfl", "vote", "match", "activemask", "redux",
      "tex", "tld4", "txq", "suld", "sust", "suq",
      "cp.async", "mbarrier", "mma", "ldmatrix", "wmma", "video",
  };
  static_assert(std::size(kNames) == size_t(Opcode::NumOpcodes));
  auto i = size_t(op);
  return i < std::size(kNames) ? kNames[i] : "?";
}

bool has_destination(const Instruction& in) {
  switch (in.op) {
    case Opcode::St:
    case Opcode::Red:
    case Opcode::Sust:
    case Opcode::Prefetch:
    case Opcode::Bra:
    case Opcode::Call:
    case Opcode::Ret:
    case Opcode::Exit:
    case Opcode::Trap:
    case Opcode::Brkpt:
    case Opcode::Nanosleep:
    case Opcode::Membar:
    case Opcode::CpAsync: return false;
    case Opcode::Wmma: return in.tensor.wmma != WmmaOp::StoreD;
    case Opcode::Mbarrier: return in.mbar != MbarOp::Init && in.mbar != MbarOp::Inval;
    case Opcode::Bar: return in.bar == BarKind::Red;
    default: return true;
  }
}

const Function* Module::find_function(const std::string& name) const {
  auto it = function_index.find(name);
  return it == function_index.end() ? nullptr : &functions[it->second];
}

const Variable* Module::find_global(const std::string& name) const {
  auto it = global_index.find(name);
  return it == global_index.end() ? nullptr : &globals[it->second];
}

}  // namespace gpumux::ptx
