#include "gpumux/ptx/ir.h"

#include "gpumux/ptx/inst_info.h"

namespace gpumux::ptx {

unsigned type_size(Type t) {
  switch (t) {
    case Type::None:
    case Type::Pred: return 0;
    case Type::B8:
    case Type::U8:
    case Type::S8: return 1;
    case Type::B16:
    case Type::U16:
    case Type::S16:
    case Type::F16:
    case Type::BF16: return 2;
    case Type::B32:
    case Type::U32:
    case Type::S32:
    case Type::F16x2:
    case Type::BF16x2:
    case Type::F32: return 4;
    case Type::B64:
    case Type::U64:
    case Type::S64:
    case Type::F64: return 8;
    case Type::B128: return 16;
  }
  return 0;
}

bool type_is_float(Type t) { return t >= Type::F16 && t <= Type::F64; }
bool type_is_signed(Type t) { return t >= Type::S8 && t <= Type::S64; }
bool type_is_unsigned(Type t) { return t >= Type::U8 && t <= Type::U64; }
bool type_is_bits(Type t) { return t >= Type::B8 && t <= Type::B128; }

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
