#include "gpumux/trace/sass_classes.h"

#include <algorithm>
#include <array>
#include <cctype>

#include <fmt/format.h>

namespace gpumux::trace {

namespace {

using C = SassClass;
using ptx::Space;
using F = IsaFamily;

struct Entry {
  std::string_view name;
  F since;  // the first family whose instruction set has it
  C cls;
  Space space = Space::None;
};

// The SASS opcodes of Volta and later GPUs by the family that introduced
// them. gpumux's own grouping into timing classes: an opcode that the
// public lists name as integer, floating-point, conversion, movement,
// predicate, memory, texture, control or miscellaneous work goes to the class
// whose PTX representative runs on the same unit.
constexpr Entry kOpcodes[] = {
    // Floating point, single precision.
    {"FADD", F::Volta, C::Fp32}, {"FADD32I", F::Volta, C::Fp32}, {"FCHK", F::Volta, C::Fp32},
    {"FFMA", F::Volta, C::Fp32Mad}, {"FFMA32I", F::Volta, C::Fp32Mad}, {"FMNMX", F::Volta, C::Fp32MinMax},
    {"FMUL", F::Volta, C::Fp32Mul}, {"FMUL32I", F::Volta, C::Fp32Mul}, {"FSEL", F::Volta, C::Fp32},
    {"FSET", F::Volta, C::Fp32Compare}, {"FSETP", F::Volta, C::Fp32Compare}, {"FSWZADD", F::Volta, C::Fp32},
    {"IPA", F::Volta, C::Fp32}, {"MUFU", F::Volta, C::Sfu},
    // Half precision.
    {"HADD2", F::Volta, C::Fp16}, {"HADD2_32I", F::Volta, C::Fp16}, {"HFMA2", F::Volta, C::Fp16Mad},
    {"HFMA2_32I", F::Volta, C::Fp16Mad}, {"HMUL2", F::Volta, C::Fp16}, {"HMUL2_32I", F::Volta, C::Fp16},
    {"HSET2", F::Volta, C::Fp16}, {"HSETP2", F::Volta, C::Fp16}, {"HMNMX2", F::Ampere, C::Fp16},
    // Double precision.
    {"DADD", F::Volta, C::Fp64}, {"DFMA", F::Volta, C::Fp64Mad}, {"DMUL", F::Volta, C::Fp64Mul},
    {"DSETP", F::Volta, C::Fp64Compare},
    // Tensor cores.
    {"HMMA", F::Volta, C::Tensor}, {"IMMA", F::Turing, C::Tensor}, {"BMMA", F::Turing, C::Tensor},
    {"DMMA", F::Ampere, C::Tensor}, {"HGMMA", F::Hopper, C::Tensor}, {"IGMMA", F::Hopper, C::Tensor},
    {"BGMMA", F::Hopper, C::Tensor}, {"QGMMA", F::Hopper, C::Tensor},
    // Integer.
    {"BMSK", F::Volta, C::Int}, {"BREV", F::Volta, C::Int}, {"FLO", F::Volta, C::Int}, {"IABS", F::Volta, C::Int},
    {"IADD", F::Volta, C::Int}, {"IADD3", F::Volta, C::Int}, {"IADD32I", F::Volta, C::Int},
    {"IDP", F::Volta, C::IntMad}, {"IDP4A", F::Volta, C::IntMad}, {"IMAD", F::Volta, C::IntMad},
    {"IMNMX", F::Volta, C::IntMinMax}, {"IMUL", F::Volta, C::IntMul}, {"IMUL32I", F::Volta, C::IntMul},
    {"ISCADD", F::Volta, C::Int}, {"ISCADD32I", F::Volta, C::Int}, {"ISETP", F::Volta, C::IntCompare},
    {"LEA", F::Volta, C::Int}, {"LOP", F::Volta, C::Int}, {"LOP3", F::Volta, C::Int}, {"LOP32I", F::Volta, C::Int},
    {"POPC", F::Volta, C::Int}, {"SHF", F::Volta, C::Int}, {"SHL", F::Volta, C::Int}, {"SHR", F::Volta, C::Int},
    {"VABSDIFF", F::Volta, C::Int}, {"VABSDIFF4", F::Volta, C::Int},
    // Conversion.
    {"F2F", F::Volta, C::Convert}, {"F2I", F::Volta, C::Convert}, {"I2F", F::Volta, C::Convert},
    {"I2I", F::Volta, C::Int}, {"I2IP", F::Volta, C::Int}, {"FRND", F::Volta, C::Convert},
    {"F2FP", F::Ampere, C::Convert}, {"I2FP", F::Ampere, C::Convert}, {"F2IP", F::Ampere, C::Convert},
    // Movement and predicates.
    {"MOV", F::Volta, C::Move}, {"MOV32I", F::Volta, C::Move}, {"PRMT", F::Volta, C::Move},
    {"SEL", F::Volta, C::Move}, {"SGXT", F::Volta, C::Move}, {"SHFL", F::Volta, C::WarpOp},
    {"MOVM", F::Turing, C::Move}, {"PLOP3", F::Volta, C::Move}, {"PSETP", F::Volta, C::Move},
    {"P2R", F::Volta, C::Move}, {"R2P", F::Volta, C::Move}, {"S2R", F::Volta, C::Move}, {"CS2R", F::Volta, C::Move},
    {"B2R", F::Volta, C::Move}, {"R2B", F::Volta, C::Move}, {"BMOV", F::Volta, C::Move},
    {"GETLMEMBASE", F::Volta, C::Move}, {"SETLMEMBASE", F::Volta, C::Move}, {"LEPC", F::Volta, C::Move},
    {"VOTE", F::Volta, C::WarpOp}, {"MATCH", F::Volta, C::WarpOp}, {"REDUX", F::Ampere, C::WarpOp},
    {"QSPC", F::Volta, C::Move}, {"TXQ", F::Volta, C::Move}, {"S2UR", F::Turing, C::Move},
    {"R2UR", F::Turing, C::Move}, {"VOTEU", F::Turing, C::WarpOp},
    // Uniform datapath (Turing and later): integer work on uniform registers.
    {"UBMSK", F::Turing, C::Int}, {"UBREV", F::Turing, C::Int}, {"UCLEA", F::Turing, C::Int},
    {"UFLO", F::Turing, C::Int}, {"UIADD3", F::Turing, C::Int}, {"UIMAD", F::Turing, C::IntMad},
    {"UISETP", F::Turing, C::IntCompare}, {"ULEA", F::Turing, C::Int}, {"ULOP", F::Turing, C::Int},
    {"ULOP3", F::Turing, C::Int}, {"ULOP32I", F::Turing, C::Int}, {"UMOV", F::Turing, C::Move},
    {"UP2UR", F::Turing, C::Move}, {"UPLOP3", F::Turing, C::Move}, {"UPOPC", F::Turing, C::Int},
    {"UPRMT", F::Turing, C::Move}, {"UPSETP", F::Turing, C::Move}, {"UR2UP", F::Turing, C::Move},
    {"USEL", F::Turing, C::Move}, {"USGXT", F::Turing, C::Move}, {"USHF", F::Turing, C::Int},
    {"USHL", F::Turing, C::Int}, {"USHR", F::Turing, C::Int},
    // Memory.
    {"LD", F::Volta, C::Load, Space::Global}, {"LDG", F::Volta, C::Load, Space::Global},
    {"LDL", F::Volta, C::Load, Space::Local}, {"LDS", F::Volta, C::Load, Space::Shared},
    {"LDSM", F::Turing, C::Load, Space::Shared}, {"LDC", F::Volta, C::Load, Space::Const},
    {"ULDC", F::Turing, C::Load, Space::Const}, {"LDGSTS", F::Ampere, C::Load, Space::Global},
    {"ST", F::Volta, C::Store, Space::Global}, {"STG", F::Volta, C::Store, Space::Global},
    {"STL", F::Volta, C::Store, Space::Local}, {"STS", F::Volta, C::Store, Space::Shared},
    {"ATOM", F::Volta, C::Atomic, Space::Global}, {"ATOMG", F::Volta, C::Atomic, Space::Global},
    {"ATOMS", F::Volta, C::Atomic, Space::Shared}, {"RED", F::Volta, C::Reduction, Space::Global},
    {"STAS", F::Hopper, C::Store, Space::Shared}, {"REDAS", F::Hopper, C::Reduction, Space::Shared},
    {"UTMALDG", F::Hopper, C::Load, Space::Global}, {"UTMASTG", F::Hopper, C::Store, Space::Global},
    {"UBLKCP", F::Hopper, C::Load, Space::Global}, {"UBLKRED", F::Hopper, C::Reduction, Space::Global},
    {"CCTL", F::Volta, C::Nop}, {"CCTLL", F::Volta, C::Nop}, {"CCTLT", F::Volta, C::Nop},
    {"UTMAPF", F::Hopper, C::Nop}, {"UBLKPF", F::Hopper, C::Nop}, {"UTMACCTL", F::Hopper, C::Nop},
    {"MEMBAR", F::Volta, C::Fence}, {"FENCE", F::Volta, C::Fence}, {"ERRBAR", F::Volta, C::Fence},
    {"CGAERRBAR", F::Hopper, C::Fence},
    // Texture and surface.
    {"TEX", F::Volta, C::Texture}, {"TLD", F::Volta, C::Texture}, {"TLD4", F::Volta, C::Texture},
    {"TMML", F::Volta, C::Texture}, {"TXD", F::Volta, C::Texture}, {"SUATOM", F::Volta, C::Texture},
    {"SULD", F::Volta, C::Texture}, {"SURED", F::Volta, C::Texture}, {"SUST", F::Volta, C::Texture},
    // Control.
    {"BPT", F::Volta, C::Control}, {"BRA", F::Volta, C::Control}, {"BREAK", F::Volta, C::Control},
    {"BRX", F::Volta, C::Control}, {"BSSY", F::Volta, C::Control}, {"BSYNC", F::Volta, C::Control},
    {"CALL", F::Volta, C::Control}, {"JMP", F::Volta, C::Control}, {"JMX", F::Volta, C::Control},
    {"KILL", F::Volta, C::Exit}, {"NANOSLEEP", F::Volta, C::Control}, {"RET", F::Volta, C::Control},
    {"RPCMOV", F::Volta, C::Control}, {"RTT", F::Volta, C::Control}, {"YIELD", F::Volta, C::Control},
    {"BRXU", F::Turing, C::Control}, {"JMXU", F::Turing, C::Control}, {"EXIT", F::Volta, C::Exit},
    {"WARPSYNC", F::Volta, C::WarpSync}, {"ELECT", F::Hopper, C::WarpOp}, {"ACQBULK", F::Hopper, C::Control},
    // Miscellaneous.
    {"BAR", F::Volta, C::Barrier}, {"DEPBAR", F::Volta, C::Nop}, {"LDGDEPBAR", F::Ampere, C::Nop},
    {"NOP", F::Volta, C::Nop}, {"PMTRIG", F::Volta, C::Nop}, {"SETCTAID", F::Volta, C::Move},
    {"SYNCS", F::Hopper, C::Nop}, {"UCGABAR_ARV", F::Hopper, C::Nop}, {"UCGABAR_WAIT", F::Hopper, C::Nop},
    {"USETMAXREG", F::Hopper, C::Nop},
};

const Entry* find_entry(std::string_view name) {
  for (const Entry& e : kOpcodes)
    if (e.name == name) return &e;
  return nullptr;
}

bool has_modifier(std::string_view opcode, std::string_view m) {
  size_t at = 0;
  while ((at = opcode.find('.', at)) != std::string_view::npos) {
    ++at;
    std::string_view rest = opcode.substr(at);
    if (rest.substr(0, rest.find('.')) == m) return true;
  }
  return false;
}

// The shape of HMMA-style modifiers: "884" (m8n8k4), "1688", "16816",
// "8816", "16832"; Hopper's "64x128x16". Unknown forms give m16n8k16.
void tensor_shape(std::string_view opcode, ptx::TensorOp& t) {
  t.m = 16, t.n = 8, t.k = 16;
  size_t dot = opcode.find('.');
  if (dot == std::string_view::npos) return;
  std::string_view mod = opcode.substr(dot + 1);
  mod = mod.substr(0, mod.find('.'));
  auto digits = [](std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(uint8_t(c)); });
  };
  auto number = [](std::string_view s) {
    uint32_t v = 0;
    for (char c : s) v = std::min<uint32_t>(v * 10 + uint32_t(c - '0'), 1024);
    return uint16_t(std::max<uint32_t>(v, 1));
  };
  if (size_t x = mod.find('x'); x != std::string_view::npos) {  // MxNxK
    size_t y = mod.find('x', x + 1);
    if (y == std::string_view::npos) return;
    std::string_view a = mod.substr(0, x), b = mod.substr(x + 1, y - x - 1), c = mod.substr(y + 1);
    if (digits(a) && digits(b) && digits(c)) t.m = number(a), t.n = number(b), t.k = number(c);
    return;
  }
  if (!digits(mod) || mod.size() < 3) return;
  const bool m16 = mod.substr(0, 2) == "16";
  std::string_view rest = mod.substr(m16 ? 2 : 1);  // n is 8, k the rest
  if (rest.size() < 2 || rest[0] != '8') return;
  t.m = m16 ? 16 : 8;
  t.n = 8;
  t.k = number(rest.substr(1));
}

}  // namespace

const char* family_name(IsaFamily f) {
  switch (f) {
    case F::Volta: return "Volta";
    case F::Turing: return "Turing";
    case F::Ampere: return "Ampere";
    case F::Hopper: return "Hopper";
  }
  return "?";
}

std::optional<IsaFamily> isa_family(uint32_t v) {
  switch (v) {
    case 70: case 72: return F::Volta;
    case 75: return F::Turing;
    case 80: case 86: case 87: case 89: return F::Ampere;
    case 90: return F::Hopper;
    default: return std::nullopt;
  }
}

std::optional<SassInfo> classify_sass(std::string_view opcode, IsaFamily family, std::string& why) {
  const std::string_view name = opcode.substr(0, opcode.find('.'));
  const Entry* e = find_entry(name);
  if (!e) {
    why = fmt::format("unknown SASS opcode '{}'", name);
    return std::nullopt;
  }
  if (e->since > family) {
    why = fmt::format("SASS opcode '{}' is not in the {} instruction set (it appears with {})", name,
                      family_name(family), family_name(e->since));
    return std::nullopt;
  }
  return SassInfo{e->cls, e->space};
}

ptx::Instruction representative(const SassInfo& info, std::string_view opcode) {
  using ptx::Opcode;
  using ptx::Type;
  ptx::Instruction in;
  auto set = [&](Opcode op, Type t) {
    in.op = op;
    in.type = t;
  };
  const bool f64 = has_modifier(opcode, "F64");
  switch (info.cls) {
    case C::Int: case C::Nop: set(Opcode::Add, Type::U32); break;
    case C::IntMul: set(Opcode::Mul, Type::U32); in.mul = ptx::MulMode::Lo; break;
    case C::IntMad: set(Opcode::Mad, Type::U32); in.mul = ptx::MulMode::Lo; break;
    case C::IntMinMax: set(Opcode::Max, Type::S32); break;
    case C::IntCompare: set(Opcode::Setp, Type::Pred); in.type2 = Type::S32; break;
    case C::Fp32: set(Opcode::Add, Type::F32); break;
    case C::Fp32Mul: set(Opcode::Mul, Type::F32); break;
    case C::Fp32Mad: set(Opcode::Fma, Type::F32); break;
    case C::Fp32MinMax: set(Opcode::Max, Type::F32); break;
    case C::Fp32Compare: set(Opcode::Setp, Type::Pred); in.type2 = Type::F32; break;
    case C::Fp16: set(Opcode::Add, Type::F16x2); break;
    case C::Fp16Mad: set(Opcode::Fma, Type::F16x2); break;
    case C::Fp64: set(Opcode::Add, Type::F64); break;
    case C::Fp64Mul: set(Opcode::Mul, Type::F64); break;
    case C::Fp64Mad: set(Opcode::Fma, Type::F64); break;
    case C::Fp64Compare: set(Opcode::Setp, Type::Pred); in.type2 = Type::F64; break;
    case C::Sfu:
      if (has_modifier(opcode, "RCP64H") || has_modifier(opcode, "RSQ64H")) set(Opcode::Rcp, Type::F64);
      else set(Opcode::Sin, Type::F32);
      break;
    case C::Convert: set(Opcode::Cvt, f64 ? Type::F64 : Type::F32); in.type2 = Type::S32; break;
    case C::Move: set(Opcode::Mov, Type::U32); break;
    case C::WarpOp: set(Opcode::Shfl, Type::B32); in.shfl = ptx::ShflMode::Idx; break;
    case C::Control: set(Opcode::Bra, Type::None); break;
    case C::Exit: set(Opcode::Exit, Type::None); break;
    case C::Barrier:
      set(Opcode::Bar, Type::None);
      in.bar = has_modifier(opcode, "ARV") ? ptx::BarKind::Arrive : ptx::BarKind::Sync;
      break;
    case C::WarpSync: set(Opcode::Bar, Type::None); in.bar = ptx::BarKind::Warp; break;
    case C::Fence: set(Opcode::Membar, Type::None); break;
    case C::Load: set(Opcode::Ld, Type::B32); break;
    case C::Store: set(Opcode::St, Type::B32); break;
    case C::Atomic: set(Opcode::Atom, Type::B32); in.aop = ptx::AtomOp::Add; break;
    case C::Reduction: set(Opcode::Red, Type::B32); in.aop = ptx::AtomOp::Add; break;
    case C::Texture: set(Opcode::Tex, Type::F32); break;
    case C::Tensor: {
      set(Opcode::Mma, Type::None);
      tensor_shape(opcode, in.tensor);
      const std::string_view name = opcode.substr(0, opcode.find('.'));
      ptx::MmaType t = ptx::MmaType::F16;
      if (name == "DMMA") t = ptx::MmaType::F64;
      else if (name == "BMMA" || name == "BGMMA") t = ptx::MmaType::B1;
      else if (name == "IMMA" || name == "IGMMA") t = has_modifier(opcode, "S4") || has_modifier(opcode, "U4")
                                                          ? ptx::MmaType::S4 : ptx::MmaType::S8;
      else if (has_modifier(opcode, "TF32")) t = ptx::MmaType::Tf32;
      in.tensor.a = in.tensor.b = t;
      break;
    }
  }
  in.space = info.space;
  return in;
}

}  // namespace gpumux::trace
