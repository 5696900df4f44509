#include "gpumux/trace/sass_opcode.h"

namespace gpumux::trace {

namespace {

using ptx::Opcode;
using ptx::Space;
using ptx::Type;

enum class Kind { Int, F32, F64, F16 };

Kind kind_of(Type t) {
  switch (t) {
    case Type::F32: return Kind::F32;
    case Type::F64: return Kind::F64;
    case Type::F16:
    case Type::F16x2:
    case Type::BF16:
    case Type::BF16x2: return Kind::F16;
    default: return Kind::Int;
  }
}

// One name per value kind: integer, f32, f64, f16/bf16.
const char* by_kind(Type t, const char* i, const char* f32, const char* f64, const char* f16) {
  switch (kind_of(t)) {
    case Kind::Int: return i;
    case Kind::F32: return f32;
    case Kind::F64: return f64;
    case Kind::F16: return f16;
  }
  return i;
}

// Width modifier of a per-lane access of `bytes` (Accel-Sim reads the width
// from a numeric token or U<bits>; no modifier means 4 bytes).
const char* width_suffix(unsigned bytes) {
  switch (bytes) {
    case 1: return ".U8";
    case 2: return ".U16";
    case 8: return ".64";
    case 16: return ".128";
    default: return "";
  }
}

const char* cmp_name(ptx::CmpOp c) {
  using C = ptx::CmpOp;
  switch (c) {
    case C::Eq: return "EQ";
    case C::Ne: return "NE";
    case C::Lt: case C::Lo: return "LT";
    case C::Le: case C::Ls: return "LE";
    case C::Gt: case C::Hi: return "GT";
    case C::Ge: case C::Hs: return "GE";
    case C::Equ: return "EQU";
    case C::Neu: return "NEU";
    case C::Ltu: return "LTU";
    case C::Leu: return "LEU";
    case C::Gtu: return "GTU";
    case C::Geu: return "GEU";
    case C::Num: return "NUM";
    case C::Nan: return "NAN";
    case C::None: break;
  }
  return "EQ";
}

const char* bool_name(ptx::BoolOp b) {
  return b == ptx::BoolOp::Or ? "OR" : b == ptx::BoolOp::Xor ? "XOR" : "AND";
}

const char* atom_name(ptx::AtomOp a) {
  using A = ptx::AtomOp;
  switch (a) {
    case A::Add: return "ADD";
    case A::Min: return "MIN";
    case A::Max: return "MAX";
    case A::Inc: return "INC";
    case A::Dec: return "DEC";
    case A::Cas: return "CAS";
    case A::Exch: return "EXCH";
    case A::And: return "AND";
    case A::Or: return "OR";
    case A::Xor: return "XOR";
    case A::None: break;
  }
  return "ADD";
}

SassForm memory_form(const ptx::Instruction& in, Space space) {
  const unsigned bytes = ptx::type_size(in.type) * in.vec;
  const bool load = in.op == Opcode::Ld || in.op == Opcode::Ldu || in.op == Opcode::Suld;
  // Parameters are constant-bank operands in SASS and .const loads go
  // through the constant cache, which Accel-Sim's trace mode treats as ALU work.
  if (space == Space::Param) return {"MOV", false};
  if (space == Space::Const) return {"LDC", false};
  std::string op;
  if (in.op == Opcode::Atom || in.op == Opcode::Red) {
    const bool red = in.op == Opcode::Red;
    op = space == Space::Shared   ? "ATOMS"
         : space == Space::Global ? (red ? "RED.E" : "ATOMG.E")
                                  : (red ? "RED.E" : "ATOM.E");
    op += std::string(".") + atom_name(in.aop);
    if (ptx::type_is_float(in.type)) op += std::string(".") + (in.type == Type::F64 ? "F64" : "F32");
    if (ptx::type_size(in.type) == 8) op += ".64";
    return {op, true};
  }
  switch (space) {
    case Space::Global:
      op = load ? "LDG.E" : "STG.E";
      if (load && (in.nc || in.op == Opcode::Ldu)) op += ".CONSTANT";
      if (in.is_volatile) op += ".STRONG.GPU";  // not served from L1
      break;
    case Space::Shared: op = load ? "LDS" : "STS"; break;
    case Space::Local: op = load ? "LDL" : "STL"; break;
    default: op = load ? "LD.E" : "ST.E"; break;  // generic, no lane accessed
  }
  return {op + width_suffix(bytes), true};
}

std::string setp_name(const ptx::Instruction& in) {
  const char* unit = by_kind(in.type2, "ISETP", "FSETP", "DSETP", "HSETP2");
  if (in.op == Opcode::Set && kind_of(in.type2) == Kind::F32) unit = "FSET";
  std::string s = std::string(unit) + "." + cmp_name(in.cmp);
  using C = ptx::CmpOp;
  if (in.cmp == C::Lo || in.cmp == C::Ls || in.cmp == C::Hi || in.cmp == C::Hs ||
      (kind_of(in.type2) == Kind::Int && ptx::type_is_unsigned(in.type2)))
    s += ".U32";
  return s + "." + bool_name(in.bop);
}

std::string cvt_name(const ptx::Instruction& in) {
  const bool to_f = ptx::type_is_float(in.type), from_f = ptx::type_is_float(in.type2);
  if (to_f && from_f) return in.type == in.type2 ? "FRND" : "F2F";
  if (to_f) return "I2F";
  if (from_f) return "F2I";
  return in.sat ? "I2I" : "MOV";
}

std::string int_mul_name(const ptx::Instruction& in) {
  std::string s = "IMAD";
  if (in.mul == ptx::MulMode::Wide) s += ".WIDE";
  if (in.mul == ptx::MulMode::Hi) s += ".HI";
  if (in.mul != ptx::MulMode::None && ptx::type_is_unsigned(in.type)) s += ".U32";
  return s;
}

bool reads_clock(const ptx::Instruction& in) {
  const ptx::Operand& o = in.ops[1];
  return o.kind == ptx::OperandKind::Special &&
         (o.sreg == ptx::SpecialReg::Clock || o.sreg == ptx::SpecialReg::Clock64 ||
          o.sreg == ptx::SpecialReg::ClockHi || o.sreg == ptx::SpecialReg::Globaltimer ||
          o.sreg == ptx::SpecialReg::GlobaltimerLo || o.sreg == ptx::SpecialReg::GlobaltimerHi);
}

}  // namespace

SassForm sass_form(const ptx::Instruction& in, Space space, bool in_kernel) {
  const Type t = in.type;
  switch (in.op) {
    case Opcode::Ld:
    case Opcode::Ldu:
    case Opcode::St:
    case Opcode::Atom:
    case Opcode::Red: return memory_form(in, space);
    case Opcode::Mov:
      if (in.ops[1].kind == ptx::OperandKind::Special) return {reads_clock(in) ? "CS2R" : "S2R"};
      return {"MOV"};
    case Opcode::Cvt: return {cvt_name(in)};
    case Opcode::Cvta: return {"MOV"};
    case Opcode::Prefetch: return {"CCTL.E.PF2"};
    case Opcode::Isspacep: return {"QSPC"};
    case Opcode::Add:
    case Opcode::Sub: return {by_kind(t, "IADD3", "FADD", "DADD", "HADD2")};
    case Opcode::Mul:
      if (kind_of(t) == Kind::Int) return {int_mul_name(in)};
      return {by_kind(t, "IMAD", "FMUL", "DMUL", "HMUL2")};
    case Opcode::Mad:
      if (kind_of(t) == Kind::Int) return {int_mul_name(in)};
      return {by_kind(t, "IMAD", "FFMA", "DFMA", "HFMA2")};
    case Opcode::Fma: return {by_kind(t, "IMAD", "FFMA", "DFMA", "HFMA2")};
    case Opcode::Mul24:
    case Opcode::Mad24: return {"IMAD"};
    case Opcode::Addc:
    case Opcode::Subc: return {"IADD3.X"};
    case Opcode::Madc: return {"IMAD.X"};
    case Opcode::Sad: return {"VABSDIFF"};
    // SASS expands these into multi-instruction sequences; the trace keeps
    // one line per PTX instruction, on the unit of the sequence's core step.
    case Opcode::Div:
    case Opcode::Rem: return {by_kind(t, "IMAD", "MUFU.RCP", "MUFU.RCP64H", "MUFU.RCP")};
    case Opcode::Abs: return {by_kind(t, "IABS", "FADD", "DADD", "HADD2")};
    case Opcode::Neg: return {by_kind(t, "IADD3", "FADD", "DADD", "HADD2")};
    case Opcode::Min:
    case Opcode::Max: return {by_kind(t, "IMNMX", "FMNMX", "DSETP", "HSETP2")};
    case Opcode::Rcp: return {t == Type::F64 ? "MUFU.RCP64H" : "MUFU.RCP"};
    case Opcode::Sqrt: return {t == Type::F64 ? "MUFU.RSQ64H" : "MUFU.SQRT"};
    case Opcode::Rsqrt: return {t == Type::F64 ? "MUFU.RSQ64H" : "MUFU.RSQ"};
    case Opcode::Sin: return {"MUFU.SIN"};
    case Opcode::Cos: return {"MUFU.COS"};
    case Opcode::Lg2: return {"MUFU.LG2"};
    case Opcode::Ex2: return {"MUFU.EX2"};
    case Opcode::Tanh: return {"MUFU.TANH"};
    case Opcode::Copysign: return {"LOP3.LUT"};
    case Opcode::Testp: return {t == Type::F64 ? "DSETP" : "FSETP"};
    case Opcode::And:
    case Opcode::Or:
    case Opcode::Xor:
    case Opcode::Not:
    case Opcode::Cnot:
    case Opcode::Lop3: return {t == Type::Pred ? "PLOP3.LUT" : "LOP3.LUT"};
    case Opcode::Shl: return {ptx::type_size(t) == 8 ? "SHF.L.U64.HI" : "SHF.L.U32"};
    case Opcode::Shr:
      if (ptx::type_is_signed(t)) return {ptx::type_size(t) == 8 ? "SHF.R.S64.HI" : "SHF.R.S32.HI"};
      return {ptx::type_size(t) == 8 ? "SHF.R.U64.HI" : "SHF.R.U32.HI"};
    case Opcode::Shf: return {in.sdir == ptx::ShiftDir::Left ? "SHF.L.W.U32" : "SHF.R.W.U32"};
    case Opcode::Bfe: return {ptx::type_is_signed(t) ? "SGXT" : "SGXT.U32"};
    case Opcode::Bfi:
    case Opcode::Bmsk: return {"BMSK"};
    case Opcode::Brev: return {"BREV"};
    case Opcode::Popc:
    case Opcode::Fns: return {"POPC"};  // no SASS opcode: ptxas expands fns into POPC/FLO sequences
    case Opcode::Clz:
    case Opcode::Bfind: return {ptx::type_is_signed(t) ? "FLO" : "FLO.U32"};
    case Opcode::Prmt: return {"PRMT"};
    case Opcode::Dp4a: return {"IDP.4A"};
    case Opcode::Dp2a: return {"IDP.2A"};
    case Opcode::Setp:
    case Opcode::Set: return {setp_name(in)};
    case Opcode::Selp: return {"SEL"};
    case Opcode::Slct: return {kind_of(in.type2) == Kind::F32 ? "FSEL" : "SEL"};
    case Opcode::Bra: return {"BRA"};
    case Opcode::Call: return {"CALL.REL"};
    case Opcode::Ret: return {in_kernel ? "EXIT" : "RET.REL.NODEC"};
    case Opcode::Exit: return {"EXIT"};
    case Opcode::Trap: return {"BPT.TRAP"};
    case Opcode::Brkpt: return {"BPT.INT"};
    case Opcode::Nanosleep: return {"NANOSLEEP"};
    case Opcode::Bar:
      switch (in.bar) {
        case ptx::BarKind::Arrive: return {"BAR.ARV"};
        case ptx::BarKind::Red:
          return {in.bred == ptx::RedOp::Popc ? "BAR.RED.POPC"
                  : in.bred == ptx::RedOp::And ? "BAR.RED.AND"
                                               : "BAR.RED.OR"};
        case ptx::BarKind::Warp: return {"WARPSYNC"};
        default: return {"BAR.SYNC"};
      }
    case Opcode::Membar: return {"MEMBAR.SC.GPU"};
    case Opcode::Shfl:
      switch (in.shfl) {
        case ptx::ShflMode::Up: return {"SHFL.UP"};
        case ptx::ShflMode::Down: return {"SHFL.DOWN"};
        case ptx::ShflMode::Bfly: return {"SHFL.BFLY"};
        default: return {"SHFL.IDX"};
      }
    case Opcode::Vote:
      switch (in.vote) {
        case ptx::VoteMode::All: return {"VOTE.ALL"};
        case ptx::VoteMode::Uni: return {"VOTE.EQ"};
        default: return {"VOTE.ANY"};  // .any and .ballot
      }
    case Opcode::Match: return {in.vote == ptx::VoteMode::All ? "MATCH.ALL" : "MATCH.ANY"};
    case Opcode::Activemask: return {"VOTE.ANY"};
    // Volta has no REDUX (Accel-Sim's map is Volta's): a butterfly shuffle is its core step.
    case Opcode::Redux: return {"SHFL.BFLY"};
    // Texture fetches keep their SASS names (no traced addresses); surface
    // accesses, global accesses in gpumux's model, are traced as such.
    case Opcode::Tex: return {"TEX"};
    case Opcode::Tld4: return {"TLD4"};
    case Opcode::Txq:
    case Opcode::Suq: return {"TXQ"};
    case Opcode::Suld:
    case Opcode::Sust: return memory_form(in, Space::Global);
    // Volta's map has no LDGSTS, LDSM, SYNCS or IMMA/DMMA: the nearest Volta
    // instruction of each (a global load, a shared load, a shared atomic, HMMA).
    case Opcode::CpAsync:
      if (in.async == ptx::AsyncOp::Copy) return {"LDG.E", true};
      return {"DEPBAR"};
    case Opcode::Mbarrier: return {"ATOMS.ADD", true};
    case Opcode::Ldmatrix: return {"LDS.128", true};
    case Opcode::Mma: return {"HMMA.884.F32.F32"};
    case Opcode::Wmma:
      if (in.tensor.wmma == ptx::WmmaOp::Mma) return {"HMMA.884.F32.F32"};
      if (in.tensor.wmma == ptx::WmmaOp::StoreD) return {space == Space::Shared ? "STS.128" : "STG.E.128", true};
      return {space == Space::Shared ? "LDS.128" : "LDG.E.128", true};
    case Opcode::Video:  // sm_80 has VABSDIFF/VABSDIFF4; ptxas expands the others into integer code
      if (in.video.op == ptx::VideoOp::Absdiff) return {in.video.lanes == 4 ? "VABSDIFF4" : "VABSDIFF"};
      return {"IADD3"};
    case Opcode::Invalid:
    case Opcode::NumOpcodes: break;
  }
  return {"NOP"};
}

}  // namespace gpumux::trace
