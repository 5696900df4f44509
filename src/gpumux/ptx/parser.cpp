// Recursive-descent parser over the token vector of lexer.h. One Parser
// object parses one module; function bodies are parsed with a stack of
// lexical scopes (the body and every nested `{ }` block).
#include "gpumux/ptx/parser.h"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "gpumux/ptx/builtins.h"
#include "gpumux/ptx/inst_info.h"
#include "gpumux/ptx/lexer.h"
#include "gpumux/ptx/literal.h"
#include "gpumux/ptx/parse_video.h"
#include "gpumux/ptx/parser_texture.h"
#include "gpumux/ptx/parse_async_tensor.h"

namespace gpumux::ptx {

namespace {

constexpr unsigned kMaxNesting = 64;             // nested { } blocks and initializer braces
constexpr uint64_t kMaxVariableBytes = uint64_t(1) << 40;
constexpr uint64_t kMaxRegRange = uint64_t(1) << 30;
constexpr uint32_t kMaxFileIndex = 1u << 16;
constexpr uint32_t kUnallocated = 0xffffffffu;

// Thrown while parsing a statement that uses something gpumux does not model;
// the statement loop records it and skips the statement.
struct UnsupportedConstruct {
  std::string what;
};

std::optional<Type> type_from_name(std::string_view s) {
  static const std::unordered_map<std::string_view, Type> kTypes = {
      {"pred", Type::Pred}, {"b8", Type::B8},     {"b16", Type::B16},     {"b32", Type::B32},
      {"b64", Type::B64},   {"b128", Type::B128}, {"u8", Type::U8},       {"u16", Type::U16},
      {"u32", Type::U32},   {"u64", Type::U64},   {"s8", Type::S8},       {"s16", Type::S16},
      {"s32", Type::S32},   {"s64", Type::S64},   {"f16", Type::F16},     {"f16x2", Type::F16x2},
      {"bf16", Type::BF16}, {"bf16x2", Type::BF16x2}, {"f32", Type::F32}, {"f64", Type::F64},
  };
  auto it = kTypes.find(s);
  if (it == kTypes.end()) return std::nullopt;
  return it->second;
}

std::optional<Space> space_from_name(std::string_view s) {
  if (s == "global") return Space::Global;
  if (s == "shared" || s == "shared::cta") return Space::Shared;
  if (s == "local") return Space::Local;
  if (s == "const") return Space::Const;
  if (s == "param" || s == "param::entry" || s == "param::func") return Space::Param;
  return std::nullopt;
}

std::optional<Rounding> rounding_from_name(std::string_view s) {
  static const std::unordered_map<std::string_view, Rounding> kModes = {
      {"rn", Rounding::Rn},   {"rz", Rounding::Rz},   {"rm", Rounding::Rm},
      {"rp", Rounding::Rp},   {"rna", Rounding::Rna}, {"rni", Rounding::Rni},
      {"rzi", Rounding::Rzi}, {"rmi", Rounding::Rmi}, {"rpi", Rounding::Rpi},
  };
  auto it = kModes.find(s);
  if (it == kModes.end()) return std::nullopt;
  return it->second;
}

std::optional<CmpOp> cmp_from_name(std::string_view s) {
  static const std::unordered_map<std::string_view, CmpOp> kOps = {
      {"eq", CmpOp::Eq},   {"ne", CmpOp::Ne},   {"lt", CmpOp::Lt},   {"le", CmpOp::Le},
      {"gt", CmpOp::Gt},   {"ge", CmpOp::Ge},   {"lo", CmpOp::Lo},   {"ls", CmpOp::Ls},
      {"hi", CmpOp::Hi},   {"hs", CmpOp::Hs},   {"equ", CmpOp::Equ}, {"neu", CmpOp::Neu},
      {"ltu", CmpOp::Ltu}, {"leu", CmpOp::Leu}, {"gtu", CmpOp::Gtu}, {"geu", CmpOp::Geu},
      {"num", CmpOp::Num}, {"nan", CmpOp::Nan},
  };
  auto it = kOps.find(s);
  if (it == kOps.end()) return std::nullopt;
  return it->second;
}

std::optional<AtomOp> atom_op_from_name(std::string_view s) {
  static const std::unordered_map<std::string_view, AtomOp> kOps = {
      {"add", AtomOp::Add}, {"min", AtomOp::Min},   {"max", AtomOp::Max}, {"inc", AtomOp::Inc},
      {"dec", AtomOp::Dec}, {"cas", AtomOp::Cas},   {"exch", AtomOp::Exch}, {"and", AtomOp::And},
      {"or", AtomOp::Or},   {"xor", AtomOp::Xor},
  };
  auto it = kOps.find(s);
  if (it == kOps.end()) return std::nullopt;
  return it->second;
}

std::optional<BoolOp> bool_op_from_name(std::string_view s) {
  if (s == "and") return BoolOp::And;
  if (s == "or") return BoolOp::Or;
  if (s == "xor") return BoolOp::Xor;
  return std::nullopt;
}

bool is_scope(std::string_view s) { return s == "cta" || s == "gpu" || s == "sys"; }

bool is_memory_order(std::string_view s) {
  return s == "relaxed" || s == "acquire" || s == "release" || s == "acq_rel" || s == "weak";
}

// Cache and eviction hints: they only steer caching, which the simulator's
// memory model decides by itself.
bool is_cache_hint(std::string_view s) {
  static constexpr std::string_view kHints[] = {
      "ca", "cg", "cs", "lu", "cv", "wb", "wt", "L1::evict_normal", "L1::evict_unchanged",
      "L1::evict_first", "L1::evict_last", "L1::no_allocate", "L2::evict_normal",
      "L2::evict_first", "L2::evict_last", "L2::64B", "L2::128B", "L2::256B", "L1", "L2",
  };
  return std::find(std::begin(kHints), std::end(kHints), s) != std::end(kHints);
}

std::optional<Opcode> opcode_from_name(std::string_view s) {
  static const std::unordered_map<std::string_view, Opcode> kOps = {
      {"ld", Opcode::Ld},         {"ldu", Opcode::Ldu},       {"st", Opcode::St},
      {"mov", Opcode::Mov},       {"cvt", Opcode::Cvt},       {"cvta", Opcode::Cvta},
      {"prefetch", Opcode::Prefetch}, {"prefetchu", Opcode::Prefetch},
      {"isspacep", Opcode::Isspacep}, {"add", Opcode::Add},   {"sub", Opcode::Sub},
      {"mul", Opcode::Mul},       {"mad", Opcode::Mad},       {"mul24", Opcode::Mul24},
      {"mad24", Opcode::Mad24},   {"sad", Opcode::Sad},       {"div", Opcode::Div},
      {"rem", Opcode::Rem},       {"abs", Opcode::Abs},       {"neg", Opcode::Neg},
      {"min", Opcode::Min},       {"max", Opcode::Max},       {"fma", Opcode::Fma},
      {"rcp", Opcode::Rcp},       {"sqrt", Opcode::Sqrt},     {"rsqrt", Opcode::Rsqrt},
      {"sin", Opcode::Sin},       {"cos", Opcode::Cos},       {"lg2", Opcode::Lg2},
      {"ex2", Opcode::Ex2},       {"tanh", Opcode::Tanh},     {"copysign", Opcode::Copysign},
      {"testp", Opcode::Testp},   {"and", Opcode::And},       {"or", Opcode::Or},
      {"xor", Opcode::Xor},       {"not", Opcode::Not},       {"cnot", Opcode::Cnot},
      {"shl", Opcode::Shl},       {"shr", Opcode::Shr},       {"shf", Opcode::Shf},
      {"bfe", Opcode::Bfe},       {"bfi", Opcode::Bfi},       {"brev", Opcode::Brev},
      {"popc", Opcode::Popc},     {"clz", Opcode::Clz},       {"bfind", Opcode::Bfind},
      {"prmt", Opcode::Prmt},     {"lop3", Opcode::Lop3},     {"dp4a", Opcode::Dp4a},
      {"dp2a", Opcode::Dp2a},     {"setp", Opcode::Setp},     {"set", Opcode::Set},
      {"selp", Opcode::Selp},     {"slct", Opcode::Slct},     {"bra", Opcode::Bra},
      {"call", Opcode::Call},     {"ret", Opcode::Ret},       {"exit", Opcode::Exit},
      {"trap", Opcode::Trap},     {"brkpt", Opcode::Brkpt},   {"nanosleep", Opcode::Nanosleep},
      {"bar", Opcode::Bar},       {"barrier", Opcode::Bar},   {"membar", Opcode::Membar},
      {"fence", Opcode::Membar},  {"atom", Opcode::Atom},     {"red", Opcode::Red},
      {"shfl", Opcode::Shfl},     {"vote", Opcode::Vote},     {"match", Opcode::Match},
      {"activemask", Opcode::Activemask}, {"bmsk", Opcode::Bmsk}, {"fns", Opcode::Fns}, {"addc", Opcode::Addc},
      {"subc", Opcode::Subc},     {"madc", Opcode::Madc},     {"redux", Opcode::Redux},
      {"tex", Opcode::Tex},       {"tld4", Opcode::Tld4},     {"txq", Opcode::Txq},
      {"suld", Opcode::Suld},     {"sust", Opcode::Sust},     {"suq", Opcode::Suq},
      {"cp", Opcode::CpAsync},    {"mbarrier", Opcode::Mbarrier}, {"mma", Opcode::Mma},
      {"ldmatrix", Opcode::Ldmatrix}, {"wmma", Opcode::Wmma},
  };
  auto it = kOps.find(s);
  if (it == kOps.end()) return std::nullopt;
  return it->second;
}

// What to call an instruction whose opcode gpumux does not know.
std::string unknown_opcode(std::string_view base, std::string_view word) {
  static const std::unordered_map<std::string_view, const char*> kKinds = {
      {"istypep", "texture"},    {"sured", "surface"},      {"wmma", "tensor core"},
      {"mma", "tensor core"},    {"wgmma", "tensor core"},  {"ldmatrix", "tensor core"},
      {"stmatrix", "tensor core"}, {"movmatrix", "tensor core"}, {"cp", "async copy"},
      {"mbarrier", "async barrier"}, {"brx", "indirect branch"},
      {"alloca", "dynamic stack allocation"}, {"stacksave", "dynamic stack allocation"},
      {"stackrestore", "dynamic stack allocation"}, {"vmad", "video"},
  };
  auto it = kKinds.find(base);
  if (it != kKinds.end()) return fmt::format("{} ({})", word, it->second);
  return fmt::format("unknown instruction {}", word);
}

// Extern functions nvcc calls for CUDA features gpumux does not model.
std::string extern_call(std::string_view name) {
  static const std::unordered_map<std::string_view, const char*> kKinds = {
      {"vprintf", "printf"},
      {"malloc", "device malloc"},
      {"free", "device free"},
      {"__assertfail", "assert"},
      {"cudaLaunchDeviceV2", "dynamic parallelism"},
      {"cudaGetParameterBufferV2", "dynamic parallelism"},
      {"cudaLaunchDevice", "dynamic parallelism"},
      {"cudaGetParameterBuffer", "dynamic parallelism"},
  };
  auto it = kKinds.find(name);
  if (it != kKinds.end()) return fmt::format("call to external function {} ({})", name, it->second);
  return fmt::format("call to external function {}", name);
}

struct SpecialInfo {
  SpecialReg reg;
  bool has_component;  // %tid.x etc.
};

std::optional<SpecialInfo> special_from_name(std::string_view s) {
  static const std::unordered_map<std::string_view, SpecialInfo> kRegs = {
      {"%tid", {SpecialReg::Tid, true}},
      {"%ntid", {SpecialReg::Ntid, true}},
      {"%ctaid", {SpecialReg::Ctaid, true}},
      {"%nctaid", {SpecialReg::Nctaid, true}},
      {"%laneid", {SpecialReg::Laneid, false}},
      {"%warpid", {SpecialReg::Warpid, false}},
      {"%nwarpid", {SpecialReg::Nwarpid, false}},
      {"%smid", {SpecialReg::Smid, false}},
      {"%nsmid", {SpecialReg::Nsmid, false}},
      {"%gridid", {SpecialReg::Gridid, false}},
      {"%clock", {SpecialReg::Clock, false}},
      {"%clock64", {SpecialReg::Clock64, false}},
      {"%globaltimer", {SpecialReg::Globaltimer, false}},
      {"%lanemask_eq", {SpecialReg::LanemaskEq, false}},
      {"%lanemask_lt", {SpecialReg::LanemaskLt, false}},
      {"%lanemask_le", {SpecialReg::LanemaskLe, false}},
      {"%lanemask_gt", {SpecialReg::LanemaskGt, false}},
      {"%lanemask_ge", {SpecialReg::LanemaskGe, false}},
      {"%dynamic_smem_size", {SpecialReg::DynamicSmemSize, false}},
      {"%total_smem_size", {SpecialReg::TotalSmemSize, false}},
      {"%clock_hi", {SpecialReg::ClockHi, false}},
      {"%globaltimer_lo", {SpecialReg::GlobaltimerLo, false}},
      {"%globaltimer_hi", {SpecialReg::GlobaltimerHi, false}},
      {"%current_graph_exec", {SpecialReg::CurrentGraphExec, false}},
      {"%reserved_smem_offset_begin", {SpecialReg::ReservedSmemBegin, false}},
      {"%reserved_smem_offset_end", {SpecialReg::ReservedSmemEnd, false}},
      {"%reserved_smem_offset_cap", {SpecialReg::ReservedSmemCap, false}},
  };
  auto it = kRegs.find(s);
  if (it == kRegs.end()) return std::nullopt;
  return it->second;
}

// Special registers of the PTX ISA that gpumux does not model.
bool is_unmodeled_special(std::string_view s) {
  static constexpr std::string_view kPrefixes[] = {
      "%aggr_smem", "%cluster", "%is_explicit_cluster", "%nclusterid",
  };
  for (std::string_view p : kPrefixes)
    if (s.substr(0, p.size()) == p) return true;
  return false;
}

uint64_t align_up(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

// Assigns aligned offsets to parameters; returns the end offset.
uint64_t assign_param_offsets(std::vector<Param>& ps) {
  uint64_t off = 0;
  for (Param& p : ps) {
    off = align_up(off, p.align);
    p.offset = off;
    off += p.size;
  }
  return off;
}

bool destination_is_pred(const Instruction& in) {
  return in.op == Opcode::Setp || in.op == Opcode::Testp || in.op == Opcode::Isspacep ||
         in.type == Type::Pred;
}

// Operand slot holding the memory address, or -1.
int address_slot(Opcode op) {
  switch (op) {
    case Opcode::Ld:
    case Opcode::Ldu:
    case Opcode::Atom: return 1;
    case Opcode::St:
    case Opcode::Red:
    case Opcode::Prefetch: return 0;
    default: return -1;
  }
}

Type double_width(Type t) {
  switch (t) {
    case Type::U16: return Type::U32;
    case Type::U32: return Type::U64;
    case Type::S16: return Type::S32;
    case Type::S32: return Type::S64;
    case Type::B16: return Type::B32;
    case Type::B32: return Type::B64;
    default: return t;
  }
}

// The type in which an immediate in operand `slot` is stored (see parser.h).
Type slot_type(const Instruction& in, unsigned slot, uint32_t address_size) {
  switch (in.op) {
    case Opcode::Cvt: return slot == 0 ? in.type : in.type2;
    case Opcode::Shl:
    case Opcode::Shr: return slot == 2 ? Type::U32 : in.type;
    case Opcode::Shf: return slot == 3 ? Type::U32 : in.type;
    case Opcode::Bfe: return slot >= 2 ? Type::U32 : in.type;
    case Opcode::Bfi: return slot >= 3 ? Type::U32 : in.type;
    case Opcode::Fns: return slot == 3 ? Type::S32 : Type::B32;
    case Opcode::Prmt:
    case Opcode::Lop3: return Type::B32;
    case Opcode::Dp4a:
    case Opcode::Dp2a:
      if (slot == 1) return in.type;
      if (slot == 2) return in.type2;
      return type_is_signed(in.type) || type_is_signed(in.type2) ? Type::S32 : Type::U32;
    case Opcode::Setp: return slot == 0 || slot == 3 ? Type::Pred : in.type2;
    case Opcode::Set: return slot == 0 ? in.type : slot == 3 ? Type::Pred : in.type2;
    case Opcode::Selp: return slot == 3 ? Type::Pred : in.type;
    case Opcode::Slct: return slot == 3 ? in.type2 : in.type;
    case Opcode::Mul: return in.mul == MulMode::Wide && slot == 0 ? double_width(in.type) : in.type;
    case Opcode::Mad:
      return in.mul == MulMode::Wide && (slot == 0 || slot == 3) ? double_width(in.type) : in.type;
    case Opcode::Popc:
    case Opcode::Clz:
    case Opcode::Bfind: return slot == 0 ? Type::U32 : in.type;
    case Opcode::Testp: return slot == 0 ? Type::Pred : in.type;
    case Opcode::Isspacep: return slot == 0 ? Type::Pred : address_size == 32 ? Type::U32 : Type::U64;
    case Opcode::Shfl: return slot >= 2 ? Type::U32 : in.type;
    case Opcode::Vote: return slot == 1 ? Type::Pred : slot == 2 ? Type::B32 : in.type;
    case Opcode::Match:
    case Opcode::Redux: return slot == 2 ? Type::B32 : in.type;
    case Opcode::Bar:
      if (in.bar == BarKind::Red) return slot == 0 ? in.type : slot == 3 ? Type::Pred : Type::U32;
      return Type::U32;
    case Opcode::Nanosleep: return Type::U32;
    case Opcode::Call: return Type::None;
    case Opcode::Tex: return slot == 3 ? Type::F32 : in.type;  // tex.level's level of detail
    case Opcode::Txq: return slot == 2 ? Type::S32 : in.type;  // txq.level's level
    default: return in.type;
  }
}

struct OperandCount {
  unsigned min, max;
};

OperandCount operand_count(const Instruction& in) {
  switch (in.op) {
    case Opcode::Ld:
    case Opcode::Ldu:
    case Opcode::St:
    case Opcode::Mov:
    case Opcode::Cvta:
    case Opcode::Isspacep:
    case Opcode::Testp:
    case Opcode::Abs:
    case Opcode::Neg:
    case Opcode::Not:
    case Opcode::Cnot:
    case Opcode::Rcp:
    case Opcode::Sqrt:
    case Opcode::Rsqrt:
    case Opcode::Sin:
    case Opcode::Cos:
    case Opcode::Lg2:
    case Opcode::Ex2:
    case Opcode::Tanh:
    case Opcode::Brev:
    case Opcode::Popc:
    case Opcode::Clz:
    case Opcode::Bfind:
    case Opcode::Red: return {2, 2};
    case Opcode::Cvt: return {2, 3};  // cvt.rn.f16x2.f32 d, a, b packs two values
    case Opcode::Prefetch:
    case Opcode::Bra:
    case Opcode::Call:
    case Opcode::Nanosleep:
    case Opcode::Activemask: return {1, 1};
    case Opcode::Add:
    case Opcode::Sub:
    case Opcode::Mul:
    case Opcode::Mul24:
    case Opcode::Div:
    case Opcode::Rem:
    case Opcode::Min:
    case Opcode::Max:
    case Opcode::Copysign:
    case Opcode::And:
    case Opcode::Or:
    case Opcode::Xor:
    case Opcode::Shl:
    case Opcode::Shr:
    case Opcode::Match:
    case Opcode::Addc:
    case Opcode::Subc:
    case Opcode::Bmsk:
    case Opcode::Redux: return {3, 3};
    case Opcode::Mad:
    case Opcode::Madc:
    case Opcode::Mad24:
    case Opcode::Sad:
    case Opcode::Fma:
    case Opcode::Shf:
    case Opcode::Bfe:
    case Opcode::Prmt:
    case Opcode::Dp4a:
    case Opcode::Dp2a:
    case Opcode::Fns:
    case Opcode::Selp:
    case Opcode::Slct: return {4, 4};
    case Opcode::Bfi:
    case Opcode::Lop3: return {5, 5};
    case Opcode::Setp:
    case Opcode::Set: return in.bop != BoolOp::None ? OperandCount{4, 4} : OperandCount{3, 3};
    case Opcode::Ret:
    case Opcode::Exit:
    case Opcode::Trap:
    case Opcode::Brkpt:
    case Opcode::Membar: return {0, 0};
    case Opcode::Bar:
      switch (in.bar) {
        case BarKind::Arrive: return {2, 2};
        case BarKind::Red: return {3, 4};
        case BarKind::Warp: return {1, 1};
        default: return {1, 2};
      }
    case Opcode::Atom: return in.aop == AtomOp::Cas ? OperandCount{4, 4} : OperandCount{3, 3};
    case Opcode::Shfl: return in.sync ? OperandCount{5, 5} : OperandCount{4, 4};
    case Opcode::Vote: return in.sync ? OperandCount{3, 3} : OperandCount{2, 2};
    default: return {0, 6};
  }
}

// Number of type suffixes an opcode takes.
unsigned type_count(const Instruction& in) {
  if (is_texture_op(in.op)) return texture_type_count(in);
  if (in.op == Opcode::Video) return video_type_count(in);
  switch (in.op) {
    case Opcode::Cvt:
    case Opcode::Set:
    case Opcode::Slct:
    case Opcode::Dp4a:
    case Opcode::Dp2a: return 2;
    case Opcode::Bra:
    case Opcode::Call:
    case Opcode::Ret:
    case Opcode::Exit:
    case Opcode::Trap:
    case Opcode::Brkpt:
    case Opcode::Membar:
    case Opcode::Isspacep:
    case Opcode::Prefetch: return 0;
    case Opcode::Bar: return in.bar == BarKind::Red ? 1 : 0;
    case Opcode::CpAsync:
    case Opcode::Mbarrier:
    case Opcode::Mma:
    case Opcode::Ldmatrix:
    case Opcode::Wmma: return 0;  // parse_async_tensor.cpp reads their types
    default: return 1;
  }
}

// Modifier parsing state of one instruction.
struct ModState {
  std::string_view base;  // "bar" / "barrier", "membar" / "fence", ...
  std::string_view word;  // the whole opcode word, for messages
  Type types[3]{};
  unsigned ntypes = 0;
  bool warp = false;  // bar.warp
};

struct RegEntry {
  Type type = Type::None;
  uint32_t index = kUnallocated;  // allocated on first use
};

struct RegRange {
  uint64_t count = 0;
  Type type = Type::None;
};

struct Scope {
  int parent = -1;
  std::unordered_map<std::string_view, RegEntry> regs;   // plain names and used %r<N> members
  std::unordered_map<std::string_view, RegRange> ranges; // prefix of %r<N> declarations
  std::unordered_map<std::string_view, uint32_t> vars;   // Function::locals index
  std::unordered_map<std::string_view, uint32_t> labels; // instruction index
};

struct RegRef {
  uint16_t index;
  bool pred;
};

struct LabelRef {
  uint32_t inst;
  int scope;
  std::string_view name;
  uint32_t line;
};

// A name that may be a module symbol declared later: resolved after parsing.
struct ModuleRef {
  uint32_t fn;
  uint32_t inst;
  uint8_t slot;
  std::string_view name;
  uint32_t line;
};

struct Prototype {
  size_t nrets, nargs;
  bool any_arity;  // a .calltargets list
};

struct Linkage {
  bool visible = false, is_extern = false;
};

class Parser {
 public:
  Parser(std::string_view text, const std::string& file)
      : file_(file), toks_(tokenize(text, file)) {}

  Module run() {
    mod_.file = file_;
    mod_.files.resize(1);
    while (peek().kind != TokKind::End) parse_top_level();
    resolve_module_refs();
    check_extern_uses();
    check_loc_files();
    std::stable_sort(mod_.unsupported.begin(), mod_.unsupported.end(),
                     [](const Unsupported& a, const Unsupported& b) { return a.line < b.line; });
    return std::move(mod_);
  }

 private:
  // ---- tokens and diagnostics -------------------------------------------
  const Token& peek(size_t k = 0) const {
    size_t i = pos_ + k;
    return i < toks_.size() ? toks_[i] : toks_.back();
  }
  const Token& take() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  static bool is_punct(const Token& t, char c) {
    return t.kind == TokKind::Punct && t.text[0] == c;
  }
  bool accept(char c) {
    if (!is_punct(peek(), c)) return false;
    take();
    return true;
  }
  void expect(char c, const char* context) {
    if (!accept(c))
      fail(peek(), fmt::format("expected '{}' {} but found {}", c, context, describe(peek())));
  }
  bool accept_directive(std::string_view d) {
    if (peek().kind != TokKind::Directive || peek().text != d) return false;
    take();
    return true;
  }
  std::string_view expect_ident(std::string_view what) {
    if (peek().kind != TokKind::Ident)
      fail(peek(), fmt::format("expected {} but found {}", what, describe(peek())));
    return take().text;
  }
  [[noreturn]] void fail(const Token& t, const std::string& msg) const { fail_at(t.line, msg); }
  [[noreturn]] void fail_at(uint32_t line, const std::string& msg) const {
    throw LoadError(fmt::format("{}:{}: {}", file_, line, msg));
  }
  [[noreturn]] static void unsupported(std::string what) {
    throw UnsupportedConstruct{std::move(what)};
  }
  void note_unsupported(uint32_t line, std::string what) {
    mod_.unsupported.push_back(Unsupported{line, std::move(what)});
  }

  // Skips a statement from its first token: to the ';' that ends it (nested
  // braces included) or up to a '}' that closes the enclosing block.
  void skip_statement() {
    int depth = 0;
    for (;;) {
      const Token& t = peek();
      if (t.kind == TokKind::End) return;
      if (is_punct(t, '{')) {
        ++depth;
      } else if (is_punct(t, '}')) {
        if (depth == 0) return;
        --depth;
      } else if (is_punct(t, ';') && depth == 0) {
        take();
        return;
      }
      take();
    }
  }

  // Skips a brace-balanced group starting at '{'.
  void skip_braces() {
    const Token& open = peek();
    expect('{', "to open the section");
    int depth = 1;
    while (depth > 0) {
      const Token& t = take();
      if (t.kind == TokKind::End) fail(open, "unterminated '{'");
      if (is_punct(t, '{')) ++depth;
      if (is_punct(t, '}')) --depth;
    }
  }

  // Skips the rest of the source line of `line` (directives without ';').
  void skip_rest_of_line(uint32_t line) {
    while (peek().kind != TokKind::End && peek().line == line) take();
  }

  uint64_t parse_uint(std::string_view what, uint64_t max) {
    const Token& t = peek();
    if (t.kind != TokKind::Number)
      fail(t, fmt::format("expected {} but found {}", what, describe(t)));
    take();
    std::string err;
    auto lit = parse_literal(t.text, false, err);
    if (!lit) fail(t, err);
    if (lit->kind != Literal::Kind::Int)
      fail(t, fmt::format("expected an integer {} but found {}", what, describe(t)));
    if (lit->bits > max) fail(t, fmt::format("{} {} is out of range (max {})", what, t.text, max));
    return lit->bits;
  }

  // Signed integer offset after '+'/'-' (accepts "+-4").
  uint64_t parse_offset() {
    bool neg = false;
    if (accept('-')) neg = true;
    else if (accept('+')) neg = accept('-');
    uint64_t v = parse_uint("an offset", UINT64_MAX);
    return neg ? uint64_t(0) - v : v;
  }

  // ---- module level -----------------------------------------------------
  void parse_top_level() {
    const Token& t = peek();
    if (t.kind != TokKind::Directive)
      fail(t, fmt::format("expected a directive but found {}", describe(t)));
    std::string_view d = t.text;
    if (d == ".version") {
      take();
      const Token& v = peek();
      if (v.kind != TokKind::Number) fail(v, "expected a version number after .version");
      mod_.version = std::string(take().text);
      return;
    }
    if (d == ".target") {
      take();
      mod_.target = std::string(expect_ident("a target after .target"));
      while (accept(',')) expect_ident("a target option");
      return;
    }
    if (d == ".address_size") {
      take();
      const Token& n = peek();
      uint64_t size = parse_uint("an address size", 64);
      if (size != 32 && size != 64) fail(n, "address size must be 32 or 64");
      mod_.address_size = uint32_t(size);
      return;
    }
    if (d == ".file") {
      parse_file_directive();
      return;
    }
    if (d == ".section") {
      take();
      while (peek().kind != TokKind::End && !is_punct(peek(), '{')) take();
      skip_braces();
      return;
    }
    if (d == ".pragma") {
      take();
      skip_statement();
      return;
    }
    Linkage lk;
    for (;;) {
      std::string_view l = peek().text;
      if (peek().kind != TokKind::Directive) break;
      if (l == ".visible" || l == ".weak" || l == ".common") lk.visible = true;
      else if (l == ".extern") lk.is_extern = true;
      else break;
      take();
    }
    const Token& k = peek();
    if (k.kind == TokKind::Directive && (k.text == ".entry" || k.text == ".func")) {
      parse_function(lk);
      return;
    }
    size_t start = pos_;
    try {
      parse_module_statement(lk);
    } catch (const UnsupportedConstruct& u) {
      note_unsupported(toks_[start].line, u.what);
      pos_ = start;
      skip_statement();
    }
  }

  void parse_module_statement(const Linkage& lk) {
    const Token& t = peek();
    std::string_view d = t.text;
    if (t.kind == TokKind::Directive) {
      if (d == ".global" || d == ".const" || d == ".shared") {
        take();
        Space space = d == ".global" ? Space::Global : d == ".const" ? Space::Const : Space::Shared;
        for (NamedVariable& nv : parse_variables(space, lk, t.line)) add_global(std::move(nv.var), t);
        return;
      }
      if (d == ".local") unsupported("module-scope .local variable");
      if (d == ".texref" || d == ".samplerref" || d == ".surfref")
        unsupported(fmt::format("{} declaration (texture)", d));
      if (d == ".alias") unsupported(".alias");
    }
    fail(t, fmt::format("unexpected {} at module scope", describe(t)));
  }

  void add_global(Variable v, const Token& at) {
    if (v.is_extern && v.space != Space::Shared) unsupported(fmt::format("external variable {}", v.name));
    if (mod_.global_index.count(v.name)) fail(at, fmt::format("redefinition of '{}'", v.name));
    mod_.global_index.emplace(v.name, uint32_t(mod_.globals.size()));
    mod_.globals.push_back(std::move(v));
  }

  void parse_file_directive() {
    const Token& d = take();
    uint64_t index = parse_uint("a file index", kMaxFileIndex);
    const Token& s = peek();
    if (s.kind != TokKind::String) fail(s, fmt::format("expected a file name but found {}", describe(s)));
    take();
    std::string name;
    std::string_view body = s.text.substr(1, s.text.size() - 2);
    for (size_t i = 0; i < body.size(); ++i) {
      if (body[i] == '\\' && i + 1 < body.size()) ++i;
      name += body[i];
    }
    if (mod_.files.size() <= index) mod_.files.resize(index + 1);
    mod_.files[index] = std::move(name);
    if (is_punct(peek(), ',')) skip_rest_of_line(d.line);  // timestamp, size
  }

  // ---- variables ---------------------------------------------------------
  // Parses "[.align N] [.vN] .type name[dims] [= init], ... ;" after the
  // state-space directive.
  // A parsed variable and its name as a view of the source text (scope maps
  // key on source text, which outlives the parse).
  struct NamedVariable {
    Variable var;
    std::string_view name;
  };

  std::vector<NamedVariable> parse_variables(Space space, const Linkage& lk, uint32_t line) {
    uint32_t align = 0;
    unsigned vec = 1;
    Type type = Type::None;
    for (;;) {
      const Token& t = peek();
      if (t.kind != TokKind::Directive) break;
      if (t.text == ".align") {
        take();
        align = uint32_t(parse_uint("an alignment", 1u << 16));
        if (align == 0 || (align & (align - 1))) fail(t, "alignment must be a power of two");
      } else if (t.text == ".v2" || t.text == ".v4") {
        take();
        vec = t.text == ".v2" ? 2 : 4;
      } else if (t.text == ".attribute") {
        // .attribute(.managed): a __managed__ variable, an ordinary global to
        // the device; a CUDA runtime (cudart/managed.h) gives the host its copy.
        take();
        expect('(', "after .attribute");
        const Token& a = take();
        if (a.text != ".managed") fail(a, fmt::format("unsupported variable attribute {}", a.text));
        expect(')', "to close .attribute");
      } else if (t.text == ".texref" || t.text == ".samplerref" || t.text == ".surfref") {
        unsupported(fmt::format("{} declaration (texture)", t.text));
      } else if (auto ty = type_from_name(t.text.substr(1))) {
        take();
        if (type != Type::None) fail(t, "variable declaration with two types");
        type = *ty;
      } else {
        break;
      }
    }
    if (type == Type::None || type == Type::Pred)
      fail(peek(), fmt::format("expected a variable type but found {}", describe(peek())));
    std::vector<NamedVariable> vars;
    do {
      Variable v;
      std::string_view name = expect_ident("a variable name");
      v.name = std::string(name);
      v.space = space;
      v.type = type;
      v.is_extern = lk.is_extern;
      v.visible = lk.visible;
      v.line = line;
      const uint64_t tsize = type_size(type);
      v.align = align ? align : uint32_t(tsize * vec);
      uint64_t elems = vec;  // elements of `type` in all dimensions but an unsized first one
      bool unsized = false;
      for (bool first = true; accept('['); first = false) {
        if (accept(']')) {
          if (!first) fail(peek(), "only the first array dimension may be empty");
          unsized = true;
          continue;
        }
        uint64_t n = parse_uint("an array size", kMaxVariableBytes);
        expect(']', "to close the array size");
        if (n != 0 && elems > kMaxVariableBytes / tsize / n)
          fail(peek(), fmt::format("variable '{}' is too large", v.name));
        elems *= n;
      }
      uint64_t count = 0;
      if (accept('=')) {
        if (space == Space::Shared || space == Space::Local || space == Space::Param)
          fail(peek(), fmt::format(".{} variables cannot be initialised", space_name(space)));
        parse_init_value(v, unsized ? 0 : elems, count, 0);
      }
      if (unsized) elems = count == 0 ? 0 : align_up(count, elems);
      v.size = elems * tsize;
      vars.push_back(NamedVariable{std::move(v), name});
    } while (accept(','));
    expect(';', "after the variable declaration");
    return vars;
  }

  // One initializer value or brace list; `max` elements (0: unbounded).
  void parse_init_value(Variable& v, uint64_t max, uint64_t& count, unsigned depth) {
    const Token& t = peek();
    if (accept('{')) {
      if (depth >= kMaxNesting) fail(t, "initializer nested too deeply");
      if (accept('}')) return;
      do parse_init_value(v, max, count, depth + 1);
      while (accept(','));
      expect('}', "to close the initializer");
      return;
    }
    if (max && count >= max) fail(t, fmt::format("too many initializers for '{}'", v.name));
    const uint64_t tsize = type_size(v.type), offset = count * tsize;
    uint64_t bits = 0;
    if (t.kind == TokKind::Ident) {
      take();
      std::string_view name = t.text;
      bool generic = name == "generic" && is_punct(peek(), '(');
      if (generic) {
        take();
        name = expect_ident("a symbol in generic()");
        expect(')', "to close generic(");
      }
      if (tsize != 4 && tsize != 8)
        fail(t, fmt::format("address of '{}' does not fit a .{} element", name, type_name(v.type)));
      if (is_punct(peek(), '+') || is_punct(peek(), '-')) bits = parse_offset();
      v.init_addrs.emplace_back(offset, std::string(name));
    } else {
      bool neg = accept('-');
      const Token& n = peek();
      if (n.kind != TokKind::Number)
        fail(n, fmt::format("expected an initializer value but found {}", describe(n)));
      take();
      std::string err;
      auto lit = parse_literal(n.text, neg, err);
      if (!lit) fail(n, err);
      auto b = literal_bits(*lit, v.type, err);
      if (!b) fail(n, err);
      bits = *b;
    }
    v.init.resize(offset + tsize, 0);
    for (uint64_t i = 0; i < tsize && i < 8; ++i) v.init[offset + i] = uint8_t(bits >> (8 * i));
    ++count;
  }

  // ---- functions ---------------------------------------------------------
  std::vector<Param> parse_param_list() {
    expect('(', "to open the parameter list");
    std::vector<Param> ps;
    if (accept(')')) return ps;
    do {
      const Token& kw = peek();
      if (kw.kind == TokKind::Directive && kw.text == ".reg") {
        note_unsupported(kw.line, "register (.reg) function parameter");
      } else if (!(kw.kind == TokKind::Directive && kw.text == ".param")) {
        fail(kw, fmt::format("expected .param but found {}", describe(kw)));
      }
      take();
      Param p;
      for (;;) {
        const Token& t = peek();
        if (t.kind != TokKind::Directive) break;
        take();
        if (t.text == ".align") {
          p.align = uint32_t(parse_uint("an alignment", 1u << 16));
          if (p.align == 0 || (p.align & (p.align - 1))) fail(t, "alignment must be a power of two");
        } else if (t.text == ".ptr") {
          p.is_ptr = true;
        } else if (t.text == ".global" || t.text == ".shared" || t.text == ".const" ||
                   t.text == ".local") {
          if (!p.is_ptr) fail(t, fmt::format("{} in a parameter needs .ptr", t.text));
        } else if (auto ty = type_from_name(t.text.substr(1)); ty && *ty != Type::Pred) {
          if (p.type != Type::None) fail(t, "parameter with two types");
          p.type = *ty;
        } else {
          fail(t, fmt::format("unexpected {} in a parameter", describe(t)));
        }
      }
      if (p.type == Type::None) fail(peek(), "parameter without a type");
      p.name = std::string(expect_ident("a parameter name"));
      uint64_t n = 1;
      if (accept('[')) {
        n = parse_uint("an array size", kMaxVariableBytes / 16);
        expect(']', "to close the array size");
      }
      p.size = n * type_size(p.type);
      if (p.align == 0) p.align = std::max(1u, type_size(p.type));
      ps.push_back(std::move(p));
    } while (accept(','));
    expect(')', "to close the parameter list");
    return ps;
  }

  void parse_dims(std::array<uint32_t, 3>& dims) {
    for (unsigned i = 0; i < 3; ++i) {
      dims[i] = uint32_t(parse_uint("a thread count", UINT32_MAX));
      if (!accept(',')) break;
    }
  }

  void parse_function(const Linkage& lk) {
    const Token& kw = take();
    const bool is_entry = kw.text == ".entry";
    std::vector<Param> rets;
    if (!is_entry && is_punct(peek(), '(')) rets = parse_param_list();
    const Token& name_tok = peek();
    std::string_view name = expect_ident("a function name");
    std::vector<Param> params;
    if (is_punct(peek(), '(')) params = parse_param_list();

    Function header;
    header.name = std::string(name);
    header.is_entry = is_entry;
    header.visible = lk.visible;
    header.line = name_tok.line;
    for (;;) {
      const Token& t = peek();
      if (t.kind != TokKind::Directive) break;
      take();
      std::string_view d = t.text;
      if (d == ".maxntid") parse_dims(header.maxntid);
      else if (d == ".reqntid") parse_dims(header.reqntid);
      else if (d == ".minnctapersm") header.minnctapersm = uint32_t(parse_uint("a CTA count", UINT32_MAX));
      else if (d == ".maxnctapersm") parse_uint("a CTA count", UINT32_MAX);
      else if (d == ".maxnreg") header.maxnreg = uint32_t(parse_uint("a register count", UINT32_MAX));
      else if (d == ".noreturn") continue;
      else if (d == ".abi_preserve" || d == ".abi_preserve_control") parse_uint("a register count", UINT32_MAX);
      else if (d == ".pragma") skip_statement();
      else if (d == ".explicitcluster" || d == ".reqnctapercluster" || d == ".maxclusterrank") {
        note_unsupported(t.line, fmt::format("{} (thread block clusters)", d));
        while (peek().kind == TokKind::Number || is_punct(peek(), ',')) take();
      } else {
        fail(t, fmt::format("unexpected {} in the declaration of '{}'", describe(t), name));
      }
    }
    const bool has_body = is_punct(peek(), '{');
    if (!has_body && !accept(';'))
      fail(peek(), fmt::format("expected ';' or a body after the declaration of '{}' but found {}",
                               name, describe(peek())));

    uint32_t index;
    auto it = mod_.function_index.find(header.name);
    if (it == mod_.function_index.end()) {
      index = uint32_t(mod_.functions.size());
      mod_.function_index.emplace(header.name, index);
      mod_.functions.emplace_back();
      has_body_.push_back(false);
    } else {
      index = it->second;
      if (!has_body) return;  // a redeclaration
      if (has_body_[index]) fail(name_tok, fmt::format("redefinition of function '{}'", name));
    }
    Function& fn = mod_.functions[index];
    header.is_extern = !has_body;
    header.param_bytes = assign_param_offsets(params);
    header.ret_bytes = assign_param_offsets(rets);
    header.params = std::move(params);
    header.rets = std::move(rets);
    fn = std::move(header);
    if (has_body) {
      has_body_[index] = true;
      take();
      parse_body(index);
    }
  }

  // ---- function bodies ---------------------------------------------------
  Function& fn() { return mod_.functions[fn_index_]; }

  void parse_body(uint32_t index) {
    fn_index_ = index;
    scopes_.clear();
    carry_flag_ = RegEntry{Type::Pred, kUnallocated};
    scopes_.emplace_back();
    cur_scope_ = 0;
    label_refs_.clear();
    prototypes_.clear();
    param_names_.clear();
    ret_names_.clear();
    loc_file_ = loc_line_ = 0;
    Function& f = fn();
    for (uint32_t i = 0; i < f.params.size(); ++i) param_names_.emplace(f.params[i].name, i);
    for (uint32_t i = 0; i < f.rets.size(); ++i) ret_names_.emplace(f.rets[i].name, i);
    parse_block(0);
    for (const LabelRef& r : label_refs_) {
      std::optional<uint32_t> target;
      for (int s = r.scope; s >= 0 && !target; s = scopes_[size_t(s)].parent) {
        auto it = scopes_[size_t(s)].labels.find(r.name);
        if (it != scopes_[size_t(s)].labels.end()) target = it->second;
      }
      if (!target) fail_at(r.line, fmt::format("undefined label '{}'", r.name));
      f.insts[r.inst].ops[0].imm = *target;
    }
  }

  // Statements up to the closing '}' (the '{' has been consumed).
  void parse_block(unsigned depth) {
    if (depth >= kMaxNesting) fail(peek(), "blocks nested too deeply");
    for (;;) {
      const Token& t = peek();
      if (is_punct(t, '}')) {
        take();
        return;
      }
      if (t.kind == TokKind::End) fail(t, "expected '}' to close the function body");
      if (is_punct(t, '{')) {
        take();
        Scope s;
        s.parent = cur_scope_;
        scopes_.push_back(std::move(s));
        int saved = cur_scope_;
        cur_scope_ = int(scopes_.size() - 1);
        parse_block(depth + 1);
        cur_scope_ = saved;
        continue;
      }
      size_t start = pos_;
      try {
        parse_statement();
      } catch (const UnsupportedConstruct& u) {
        note_unsupported(toks_[start].line, u.what);
        pos_ = start;
        skip_statement();
      }
    }
  }

  void parse_statement() {
    const Token& t = peek();
    if (t.kind == TokKind::Directive) {
      std::string_view d = t.text;
      if (d == ".reg") return parse_reg_decl();
      if (d == ".local" || d == ".shared" || d == ".param") return parse_local_vars();
      if (d == ".global" || d == ".const") unsupported(fmt::format("function-scope {} variable", d));
      if (d == ".loc") return parse_loc();
      if (d == ".pragma") {
        take();
        return skip_statement();
      }
      fail(t, fmt::format("unexpected {} in a function body", describe(t)));
    }
    if (t.kind == TokKind::Ident && is_punct(peek(1), ':')) {
      take();
      take();
      const Token& next = peek();
      if (next.kind == TokKind::Directive && next.text == ".callprototype") return parse_prototype(t);
      if (next.kind == TokKind::Directive && next.text == ".calltargets") {
        take();
        do expect_ident("a call target");
        while (accept(','));
        expect(';', "after .calltargets");
        prototypes_[t.text] = Prototype{0, 0, true};
        return;
      }
      if (next.kind == TokKind::Directive && next.text == ".branchtargets")
        unsupported(".branchtargets (indirect branch)");
      auto [it, fresh] = scopes_[size_t(cur_scope_)].labels.emplace(t.text, uint32_t(fn().insts.size()));
      if (!fresh) fail(t, fmt::format("duplicate label '{}'", t.text));
      std::string name(t.text);
      if (fn().labels.count(name)) name += fmt::format("#{}", cur_scope_);
      fn().labels.emplace(std::move(name), it->second);
      return;
    }
    parse_instruction();
  }

  void parse_prototype(const Token& name) {
    take();  // .callprototype
    Prototype p{0, 0, false};
    if (is_punct(peek(), '(')) p.nrets = parse_param_list().size();
    if (expect_ident("'_' in .callprototype") != "_") fail(name, "expected '_' in .callprototype");
    if (is_punct(peek(), '(')) p.nargs = parse_param_list().size();
    while (peek().kind == TokKind::Directive && peek().text == ".noreturn") take();
    expect(';', "after .callprototype");
    prototypes_[name.text] = p;
  }

  void parse_reg_decl() {
    take();
    Type type = Type::None;
    while (peek().kind == TokKind::Directive) {
      const Token& t = take();
      if (t.text == ".v2" || t.text == ".v4") unsupported("vector register declaration");
      auto ty = type_from_name(t.text.substr(1));
      if (!ty || type != Type::None) fail(t, fmt::format("unexpected {} in a register declaration", describe(t)));
      type = *ty;
    }
    if (type == Type::None) fail(peek(), "register declaration without a type");
    if (type == Type::B128) unsupported("128-bit register");
    Scope& s = scopes_[size_t(cur_scope_)];
    do {
      const Token& n = peek();
      std::string_view name = expect_ident("a register name");
      bool fresh;
      if (accept('<')) {
        uint64_t count = parse_uint("a register count", kMaxRegRange);
        expect('>', "after the register count");
        fresh = s.ranges.emplace(name, RegRange{count, type}).second;
      } else {
        fresh = s.regs.emplace(name, RegEntry{type, kUnallocated}).second;
      }
      if (!fresh) fail(n, fmt::format("redeclaration of register '{}'", name));
    } while (accept(','));
    expect(';', "after the register declaration");
  }

  void parse_local_vars() {
    const Token& t = take();
    Space space = t.text == ".local" ? Space::Local : t.text == ".shared" ? Space::Shared : Space::Param;
    for (NamedVariable& nv : parse_variables(space, Linkage{}, t.line)) {
      Function& f = fn();
      if (!scopes_[size_t(cur_scope_)].vars.emplace(nv.name, uint32_t(f.locals.size())).second)
        fail(t, fmt::format("redeclaration of '{}'", nv.name));
      if (space == Space::Local) f.local_bytes = align_up(f.local_bytes, nv.var.align) + nv.var.size;
      f.locals.push_back(std::move(nv.var));
    }
  }

  void parse_loc() {
    const Token& d = take();
    uint64_t file = parse_uint("a file index", kMaxFileIndex);
    uint64_t line = parse_uint("a line number", UINT32_MAX);
    parse_uint("a column", UINT32_MAX);
    loc_file_ = uint32_t(file);
    loc_line_ = uint32_t(line);
    if (is_punct(peek(), ',')) skip_rest_of_line(d.line);  // function_name ..., inlined_at ...
  }

  // ---- registers and names -----------------------------------------------
  RegRef materialize(RegEntry& e, std::string_view name) {
    Function& f = fn();
    const bool pred = e.type == Type::Pred;
    if (e.index == kUnallocated) {
      size_t n = pred ? f.pred_names.size() : f.reg_names.size();
      if (n >= kNoReg) fail(peek(), fmt::format("too many registers in function '{}'", f.name));
      e.index = uint32_t(n);
      if (pred) {
        f.pred_names.emplace_back(name);
        f.num_preds = uint32_t(n + 1);
      } else {
        f.reg_names.emplace_back(name);
        f.reg_types.push_back(e.type);
        f.num_regs = uint32_t(n + 1);
      }
    }
    return RegRef{uint16_t(e.index), pred};
  }

  std::optional<RegRef> find_reg(std::string_view name) {
    for (int s = cur_scope_; s >= 0; s = scopes_[size_t(s)].parent) {
      Scope& sc = scopes_[size_t(s)];
      auto it = sc.regs.find(name);
      if (it != sc.regs.end()) return materialize(it->second, name);
      if (sc.ranges.empty()) continue;
      size_t d = name.size();
      while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9') --d;
      std::string_view digits = name.substr(d);
      if (digits.empty() || digits.size() > 10 || (digits.size() > 1 && digits[0] == '0')) continue;
      auto r = sc.ranges.find(name.substr(0, d));
      if (r == sc.ranges.end()) continue;
      uint64_t num = 0;
      for (char c : digits) num = num * 10 + uint64_t(c - '0');
      if (num >= r->second.count) continue;
      auto ins = sc.regs.emplace(name, RegEntry{r->second.type, kUnallocated}).first;
      return materialize(ins->second, name);
    }
    return std::nullopt;
  }

  struct SymbolRef {
    SymScope scope;
    uint32_t index;
  };

  // A variable or parameter visible in the function body (not module symbols).
  std::optional<SymbolRef> find_function_symbol(std::string_view name) const {
    for (int s = cur_scope_; s >= 0; s = scopes_[size_t(s)].parent) {
      auto it = scopes_[size_t(s)].vars.find(name);
      if (it != scopes_[size_t(s)].vars.end()) return SymbolRef{SymScope::Local, it->second};
    }
    if (auto it = param_names_.find(name); it != param_names_.end())
      return SymbolRef{SymScope::Param, it->second};
    if (auto it = ret_names_.find(name); it != ret_names_.end())
      return SymbolRef{SymScope::Ret, it->second};
    return std::nullopt;
  }

  // Fills o as a Symbol (kind already set by the caller for Addr) naming `name`.
  void resolve_symbol(Operand& o, std::string_view name, const Token& at, unsigned slot) {
    if (auto s = find_function_symbol(name)) {
      o.scope = s->scope;
      o.sym = s->index;
      return;
    }
    o.scope = SymScope::Module;
    pending_module_refs_.push_back(ModuleRef{fn_index_, 0, uint8_t(slot), name, at.line});
  }

  Operand special_operand(std::string_view name) {
    Operand o;
    o.kind = OperandKind::Special;
    std::string_view base = name.substr(0, name.find('.'));
    if (base.substr(0, 7) == "%envreg" && base.size() > 7 && base == name) {
      std::string_view num = base.substr(7);
      unsigned v = 0;
      for (char c : num) {
        if (c < '0' || c > '9' || v > 31) return Operand{};
        v = v * 10 + unsigned(c - '0');
      }
      if (v > 31 || (num.size() > 1 && num[0] == '0')) return Operand{};
      o.sreg = SpecialReg::Envreg;
      o.comp = uint8_t(v);
      return o;
    }
    // %pm0..%pm7 and %pm0_64..%pm7_64: one digit, then an optional _64.
    if (base == name && base.size() >= 4 && base.substr(0, 3) == "%pm" && base[3] >= '0' && base[3] <= '7' &&
        (base.size() == 4 || base.substr(4) == "_64")) {
      o.sreg = base.size() == 4 ? SpecialReg::Pm : SpecialReg::Pm64;
      o.comp = uint8_t(base[3] - '0');
      return o;
    }
    if (base == name && (base == "%reserved_smem_offset_0" || base == "%reserved_smem_offset_1")) {
      o.sreg = SpecialReg::ReservedSmemOffset;
      o.comp = uint8_t(base.back() - '0');
      return o;
    }
    auto info = special_from_name(base);
    if (!info) return Operand{};
    o.sreg = info->reg;
    if (info->has_component) {
      std::string_view comp = base.size() < name.size() ? name.substr(base.size() + 1) : "";
      if (comp == "x") o.comp = 0;
      else if (comp == "y") o.comp = 1;
      else if (comp == "z") o.comp = 2;
      else if (comp.empty()) unsupported(fmt::format("vector special register {}", name));
      else return Operand{};
    } else if (base != name) {
      return Operand{};
    }
    return o;
  }

  // ---- instructions ------------------------------------------------------
  void parse_instruction() {
    pending_labels_.clear();
    pending_module_refs_.clear();
    Instruction in;
    in.line = peek().line;
    in.src_file = loc_file_;
    in.src_line = loc_line_;
    if (accept('@')) {
      in.guard_neg = accept('!');
      const Token& g = peek();
      std::string_view name = expect_ident("a guard predicate");
      auto r = find_reg(name);
      if (!r || !r->pred) fail(g, fmt::format("guard '{}' is not a predicate register", name));
      in.guard = r->index;
    }
    const Token& op_tok = peek();
    if (op_tok.kind != TokKind::Ident)
      fail(op_tok, fmt::format("expected an instruction but found {}", describe(op_tok)));
    take();
    // "ld.global.L1::evict_last.f32": the opcode, then one modifier per dot.
    const std::string_view word = op_tok.text;
    size_t dot = std::min(word.find('.'), word.size());
    ModState st;
    st.base = word.substr(0, dot);
    st.word = word;
    auto op = opcode_from_name(st.base);
    if (!op && video_opcode(st.base, in)) op = Opcode::Video;
    if (!op) unsupported(unknown_opcode(st.base, word));
    in.op = *op;
    while (dot < word.size()) {
      size_t next = std::min(word.find('.', dot + 1), word.size());
      std::string_view mod = word.substr(dot + 1, next - dot - 1);
      if (!apply_modifier(in, mod, st)) unsupported(fmt::format("{} (modifier .{})", word, mod));
      dot = next;
    }
    finish_modifiers(in, st, op_tok);

    if (in.op == Opcode::Call) parse_call(in, op_tok);
    else parse_operands(in, op_tok);
    attach_carry_flag(in);
    if (!accept(';'))
      fail(peek(), fmt::format("expected ';' after '{}' but found {}", op_tok.text, describe(peek())));

    const uint32_t index = uint32_t(fn().insts.size());
    for (LabelRef r : pending_labels_) {
      r.inst = index;
      label_refs_.push_back(r);
    }
    for (ModuleRef r : pending_module_refs_) {
      r.inst = index;
      module_refs_.push_back(r);
    }
    fn().insts.push_back(std::move(in));
  }

  bool apply_modifier(Instruction& in, std::string_view m, ModState& st) {
    if (is_async_or_tensor(in.op)) return apply_async_tensor_modifier(in, m);
    if (in.op == Opcode::Cvt && m == "tf32" && st.ntypes == 0) {  // cvt.rna.tf32.f32: a .b32 result
      in.tensor.d = MmaType::Tf32;
      st.types[st.ntypes++] = Type::B32;
      return true;
    }
    if (auto t = type_from_name(m)) {
      if (st.ntypes == 3) return false;
      st.types[st.ntypes++] = *t;
      return true;
    }
    if (m == "cc") {
      in.cc = in.op == Opcode::Add || in.op == Opcode::Sub || in.op == Opcode::Mad || in.op == Opcode::Addc ||
              in.op == Opcode::Subc || in.op == Opcode::Madc;
      return in.cc;
    }
    auto round = [&]() {
      auto r = rounding_from_name(m);
      if (r) in.rnd = *r;
      return r.has_value();
    };
    if (is_texture_op(in.op)) return apply_texture_modifier(in, m);
    if (in.op == Opcode::Video) return apply_video_modifier(in, m);
    switch (in.op) {
      case Opcode::Ld:
      case Opcode::Ldu:
      case Opcode::St:
        if (auto s = space_from_name(m)) in.space = *s;
        else if (m == "volatile" || m == "relaxed" || m == "acquire" || m == "release") in.is_volatile = true;
        else if (m == "nc" && in.op == Opcode::Ld) in.nc = true;
        else if (m == "v2" || m == "v4") in.vec = m == "v2" ? 2 : 4;
        else return m == "weak" || is_scope(m) || is_cache_hint(m);
        return true;
      case Opcode::Atom:
      case Opcode::Red:
        if (auto s = space_from_name(m)) in.space = *s;
        else if (auto a = atom_op_from_name(m)) in.aop = *a;
        else return m == "noftz" || is_memory_order(m) || is_scope(m) || is_cache_hint(m);
        return true;
      case Opcode::Cvt:
        if (m == "ftz") in.ftz = true;
        else if (m == "sat") in.sat = true;
        else return round();
        return true;
      case Opcode::Cvta:
      case Opcode::Isspacep:
        if (m == "to" && in.op == Opcode::Cvta) in.cvta_to = true;
        else if (auto s = space_from_name(m)) in.space = *s;
        else return false;
        return true;
      case Opcode::Prefetch:
        if (auto s = space_from_name(m)) in.space = *s;
        else return is_cache_hint(m);
        return true;
      case Opcode::Add:
      case Opcode::Sub:
      case Opcode::Mul:
      case Opcode::Mad:
      case Opcode::Mul24:
      case Opcode::Mad24:
      case Opcode::Div:
      case Opcode::Fma:
      case Opcode::Rcp:
      case Opcode::Sqrt:
      case Opcode::Rsqrt:
      case Opcode::Sin:
      case Opcode::Cos:
      case Opcode::Lg2:
      case Opcode::Ex2:
      case Opcode::Tanh:
      case Opcode::Abs:
      case Opcode::Neg:
      case Opcode::Min:
      case Opcode::Max:
        if (m == "lo" || m == "hi" || m == "wide") {
          if (in.op != Opcode::Mul && in.op != Opcode::Mad && in.op != Opcode::Mul24 &&
              in.op != Opcode::Mad24)
            return false;
          in.mul = m == "lo" ? MulMode::Lo : m == "hi" ? MulMode::Hi : MulMode::Wide;
        } else if (m == "ftz") in.ftz = true;
        else if (m == "sat") in.sat = true;
        else if (m == "approx") in.approx = true;
        else if (m == "full") in.full = true;
        else return round();
        return true;
      case Opcode::Testp:
        if (m == "finite") in.testp = TestpMode::Finite;
        else if (m == "infinite") in.testp = TestpMode::Infinite;
        else if (m == "number") in.testp = TestpMode::Number;
        else if (m == "notanumber") in.testp = TestpMode::NotANumber;
        else if (m == "normal") in.testp = TestpMode::Normal;
        else if (m == "subnormal") in.testp = TestpMode::Subnormal;
        else return false;
        return true;
      case Opcode::Shf:
      case Opcode::Bmsk:
        if ((m == "l" || m == "r") && in.op == Opcode::Shf) in.sdir = m == "l" ? ShiftDir::Left : ShiftDir::Right;
        else if (m == "clamp" || m == "wrap") in.shf = m == "clamp" ? ShfMode::Clamp : ShfMode::Wrap;
        else return false;
        return true;
      case Opcode::Madc:
        if (m != "lo" && m != "hi") return false;
        in.mul = m == "lo" ? MulMode::Lo : MulMode::Hi;
        return true;
      case Opcode::Redux: {
        auto a = atom_op_from_name(m);
        if (m == "sync") in.sync = true;
        else if (a && (*a == AtomOp::Add || *a == AtomOp::Min || *a == AtomOp::Max || *a == AtomOp::And ||
                       *a == AtomOp::Or || *a == AtomOp::Xor))
          in.aop = *a;
        else return false;
        return true;
      }
      case Opcode::Bfind:
        in.shiftamt = m == "shiftamt";
        return in.shiftamt;
      case Opcode::Prmt: {
        static const std::unordered_map<std::string_view, PrmtMode> kModes = {
            {"f4e", PrmtMode::F4e}, {"b4e", PrmtMode::B4e}, {"rc8", PrmtMode::Rc8},
            {"ecl", PrmtMode::Ecl}, {"ecr", PrmtMode::Ecr}, {"rc16", PrmtMode::Rc16}};
        auto it = kModes.find(m);
        if (it == kModes.end()) return false;
        in.prmt = it->second;
        return true;
      }
      case Opcode::Dp2a:
        if (m != "lo" && m != "hi") return false;
        in.mul = m == "lo" ? MulMode::Lo : MulMode::Hi;
        return true;
      case Opcode::Setp:
      case Opcode::Set:
        if (auto c = cmp_from_name(m)) in.cmp = *c;
        else if (auto b = bool_op_from_name(m)) in.bop = *b;
        else if (m == "ftz") in.ftz = true;
        else return false;
        return true;
      case Opcode::Slct:
        in.ftz = m == "ftz";
        return in.ftz;
      case Opcode::Bra:
      case Opcode::Call:
      case Opcode::Ret:
        in.uni = m == "uni";
        return in.uni;
      case Opcode::Bar:
        if (m == "sync") in.bar = st.warp ? BarKind::Warp : BarKind::Sync;
        else if (m == "arrive") in.bar = BarKind::Arrive;
        else if (m == "red") in.bar = BarKind::Red;
        else if (m == "warp" && st.base == "bar") st.warp = true;
        else if (m == "aligned") in.aligned = true;
        else if (m == "popc") in.bred = RedOp::Popc;
        else if (m == "and") in.bred = RedOp::And;
        else if (m == "or") in.bred = RedOp::Or;
        else return m == "cta";
        return true;
      case Opcode::Membar:
        if (st.base == "membar") return m == "gl" || m == "cta" || m == "sys";
        return m == "sc" || m == "acq_rel" || m == "acquire" || m == "release" || is_scope(m);
      case Opcode::Shfl:
        if (m == "sync") in.sync = true;
        else if (m == "up") in.shfl = ShflMode::Up;
        else if (m == "down") in.shfl = ShflMode::Down;
        else if (m == "bfly") in.shfl = ShflMode::Bfly;
        else if (m == "idx") in.shfl = ShflMode::Idx;
        else return false;
        return true;
      case Opcode::Vote:
      case Opcode::Match:
        if (m == "sync") in.sync = true;
        else if (m == "all") in.vote = VoteMode::All;
        else if (m == "any") in.vote = VoteMode::Any;
        else if (m == "uni" && in.op == Opcode::Vote) in.vote = VoteMode::Uni;
        else if (m == "ballot" && in.op == Opcode::Vote) in.vote = VoteMode::Ballot;
        else return false;
        return true;
      default: return false;
    }
  }

  // Assigns the type suffixes and checks that the required modifiers are there.
  void finish_modifiers(Instruction& in, const ModState& st, const Token& op_tok) {
    const unsigned want = type_count(in);
    if (st.ntypes != want)
      fail(op_tok, fmt::format("'{}' needs {} type suffix{}", op_tok.text, want, want == 1 ? "" : "es"));
    if (want >= 1) in.type = st.types[0];
    in.type2 = want == 2 ? st.types[1] : in.op == Opcode::Setp ? in.type : Type::None;
    for (unsigned i = 0; i < st.ntypes; ++i)
      if (st.types[i] == Type::B128) unsupported(fmt::format("{} (128-bit type)", op_tok.text));
    if (st.base == "bar" && in.bar != BarKind::Warp) in.aligned = true;
    if (is_async_or_tensor(in.op)) {
      std::string missing = finish_async_tensor(in);
      if (!missing.empty()) unsupported(fmt::format("{} (needs {})", op_tok.text, missing));
    }
    auto require = [&](bool ok, std::string_view what) {
      if (!ok) fail(op_tok, fmt::format("'{}' needs {}", op_tok.text, what));
    };
    if (is_texture_op(in.op)) {
      const std::string missing = texture_modifiers_missing(in);
      require(missing.empty(), missing);
    }
    if (in.op == Opcode::Video) {
      const std::string wrong = finish_video_types(in, st.types, st.ntypes);
      require(wrong.empty(), wrong);
    }
    switch (in.op) {
      case Opcode::Ld:
      case Opcode::Ldu:
      case Opcode::St:
      case Opcode::Prefetch:
        if (in.space == Space::None) in.space = Space::Generic;
        break;
      case Opcode::Atom:
      case Opcode::Red:
        if (in.space == Space::None) in.space = Space::Generic;
        require(in.aop != AtomOp::None, "an operation (.add, .cas, ...)");
        break;
      case Opcode::Cvta:
      case Opcode::Isspacep: require(in.space != Space::None, "a state space"); break;
      case Opcode::Mul:
      case Opcode::Mad:
        if (!type_is_float(in.type)) require(in.mul != MulMode::None, ".lo, .hi or .wide");
        break;
      case Opcode::Mul24:
      case Opcode::Mad24: require(in.mul == MulMode::Lo || in.mul == MulMode::Hi, ".lo or .hi"); break;
      case Opcode::Dp2a: require(in.mul != MulMode::None, ".lo or .hi"); break;
      case Opcode::Setp:
      case Opcode::Set: require(in.cmp != CmpOp::None, "a comparison"); break;
      case Opcode::Testp: require(in.testp != TestpMode::None, "a test (.finite, ...)"); break;
      case Opcode::Shf:
        require(in.sdir != ShiftDir::None && in.shf != ShfMode::None, ".l/.r and .clamp/.wrap");
        break;
      case Opcode::Bmsk: require(in.shf != ShfMode::None, ".clamp or .wrap"); break;
      case Opcode::Madc: require(in.mul != MulMode::None, ".lo or .hi"); break;
      case Opcode::Redux:
        require(in.aop != AtomOp::None, "an operation (.add, .min, .max, .and, .or, .xor)");
        require(in.sync, ".sync");
        break;
      case Opcode::Shfl: require(in.shfl != ShflMode::None, "a mode (.up, .down, .bfly, .idx)"); break;
      case Opcode::Vote: require(in.vote != VoteMode::None, "a mode (.all, .any, .uni, .ballot)"); break;
      case Opcode::Match:
        require(in.vote == VoteMode::Any || in.vote == VoteMode::All, ".any or .all");
        require(in.sync, ".sync");
        break;
      case Opcode::Bar:
        require(in.bar != BarKind::None, ".sync, .arrive or .red");
        if (in.bar == BarKind::Red) require(in.bred != RedOp::None, ".popc, .and or .or");
        break;
      default: break;
    }
  }

  // The carry flag (CC.CF) is per-thread state: a predicate of the function
  // that no PTX name can reach, written by .cc (pred_dst2) and read by
  // addc/subc/madc as an extra last operand, so that analyses and the timing
  // model see the dependency like any other register's.
  void attach_carry_flag(Instruction& in) {
    const bool carry_in = in.op == Opcode::Addc || in.op == Opcode::Subc || in.op == Opcode::Madc;
    if (!in.cc && !carry_in) return;
    const uint16_t flag = materialize(carry_flag_, "%cc.cf").index;
    if (in.cc) in.pred_dst2 = flag;
    if (carry_in) {
      Operand& o = in.ops[in.nops++];
      o.kind = OperandKind::Pred;
      o.reg = flag;
    }
  }

  void parse_operands(Instruction& in, const Token& op_tok) {
    unsigned n = 0;
    if (!is_punct(peek(), ';')) {
      do {
        if (n == in.ops.size()) fail(peek(), fmt::format("too many operands for '{}'", op_tok.text));
        if (is_texture_op(in.op) && accept('[')) {  // [object, coordinates]: two operands (parser.h)
          in.ops[n] = parse_operand(in, n);
          if (accept(',')) {
            if (++n == in.ops.size()) fail(peek(), fmt::format("too many operands for '{}'", op_tok.text));
            in.ops[n] = parse_operand(in, n);
          }
          expect(']', "to close the texture or surface operand");
          ++n;
          continue;
        }
        if (in.op == Opcode::Video) {
          in.ops[n] = parse_video_operand(in, n);
          ++n;
          continue;
        }
        in.ops[n] = parse_operand(in, n);
        if (n == 0 && accept('|')) {
          const Token& p = peek();
          std::string_view name = expect_ident("a predicate after '|'");
          auto r = find_reg(name);
          if (!r || !r->pred) fail(p, fmt::format("'{}' is not a predicate register", name));
          in.pred_dst2 = r->index;
        }
        ++n;
      } while (accept(','));
    }
    in.nops = uint8_t(n);
    validate_operands(in, op_tok);
  }

  Operand parse_operand(const Instruction& in, unsigned slot) {
    Operand o;
    const Token& t = peek();
    if (in.op == Opcode::Bra) {
      std::string_view name = expect_ident("a branch target label");
      o.kind = OperandKind::Label;
      pending_labels_.push_back(LabelRef{0, cur_scope_, name, t.line});
      return o;
    }
    if (accept('!')) {
      const Token& p = peek();
      std::string_view name = expect_ident("a predicate after '!'");
      auto r = find_reg(name);
      if (!r || !r->pred) fail(p, fmt::format("'{}' is not a predicate register", name));
      o.kind = OperandKind::Pred;
      o.reg = r->index;
      o.neg = true;
      return o;
    }
    if (t.kind == TokKind::Number || is_punct(t, '-') || is_punct(t, '+')) {
      o.kind = OperandKind::Imm;
      o.imm = parse_immediate(slot_type(in, slot, mod_.address_size));
      return o;
    }
    if (accept('{')) return parse_vector();
    if (accept('[')) return parse_address(slot);
    if (t.kind != TokKind::Ident) fail(t, fmt::format("expected an operand but found {}", describe(t)));
    take();
    // WARP_SZ: the PTX ISA's predefined constant, the warp size, an immediate.
    if (t.text == "WARP_SZ") return warp_size_operand(in, slot);
    return named_operand(t, slot);
  }

  // A register with an optional selector ("%r1.b0", "%r2.b3210": parse_video.h), or an immediate.
  Operand parse_video_operand(Instruction& in, unsigned slot) {
    const Token& t = peek();
    if (t.kind != TokKind::Ident) return parse_operand(in, slot);
    take();
    const size_t dot = t.text.find('.');
    auto r = find_reg(t.text.substr(0, dot));
    if (!r || r->pred) fail(t, fmt::format("'{}' is not a register", t.text.substr(0, dot)));
    if (dot != std::string_view::npos)
      if (std::string e = apply_video_selector(in, slot, t.text.substr(dot + 1)); !e.empty())
        fail(t, fmt::format("'{}': {}", t.text, e));
    Operand o;
    o.kind = OperandKind::Reg;
    o.reg = r->index;
    return o;
  }

  Operand warp_size_operand(const Instruction& in, unsigned slot) {
    Operand o;
    o.kind = OperandKind::Imm;
    std::string err;
    Literal warp_size;
    warp_size.bits = 32;
    auto bits = literal_bits(warp_size, slot_type(in, slot, mod_.address_size), err);
    if (!bits) fail(peek(), fmt::format("WARP_SZ: {}", err));
    o.imm = *bits;
    return o;
  }

  uint64_t parse_immediate(Type t) {
    bool neg = false;
    if (accept('-')) neg = true;
    else accept('+');
    const Token& n = peek();
    if (n.kind != TokKind::Number) fail(n, fmt::format("expected a number but found {}", describe(n)));
    take();
    std::string err;
    auto lit = parse_literal(n.text, neg, err);
    if (!lit) fail(n, err);
    auto bits = literal_bits(*lit, t, err);
    if (!bits) fail(n, err);
    return *bits;
  }

  Operand named_operand(const Token& t, unsigned slot) {
    std::string_view name = t.text;
    Operand o;
    if (name == "_") {
      o.kind = OperandKind::Sink;
      return o;
    }
    if (auto r = find_reg(name)) {
      o.kind = r->pred ? OperandKind::Pred : OperandKind::Reg;
      o.reg = r->index;
      return o;
    }
    if (name[0] == '%') {
      o = special_operand(name);
      if (o.kind == OperandKind::Special) return o;
      if (is_unmodeled_special(name)) unsupported(fmt::format("special register {}", name));
      fail(t, fmt::format("undefined register '{}'", name));
    }
    o.kind = OperandKind::Symbol;
    resolve_symbol(o, name, t, slot);
    if (is_punct(peek(), '+') || is_punct(peek(), '-')) o.imm = parse_offset();
    return o;
  }

  Operand parse_vector() {
    Operand o;
    o.kind = OperandKind::Vec;
    unsigned n = 0;
    do {
      const Token& e = peek();
      if (n == o.vec.size()) unsupported("vector operand with more than 8 elements");
      if (e.kind == TokKind::Number || is_punct(e, '-')) unsupported("immediate in a vector operand");
      std::string_view name = expect_ident("a register in the vector");
      if (name == "_") {
        o.vec[n++] = kNoReg;
        continue;
      }
      auto r = find_reg(name);
      if (!r) fail(e, fmt::format("undefined register '{}'", name));
      if (r->pred) unsupported("predicate in a vector operand");
      o.vec[n++] = r->index;
    } while (accept(','));
    expect('}', "to close the vector operand");
    o.vcount = uint8_t(n);
    return o;
  }

  Operand parse_address(unsigned slot) {
    Operand o;
    o.kind = OperandKind::Addr;
    const Token& b = peek();
    if (b.kind == TokKind::Ident) {
      take();
      if (auto r = find_reg(b.text)) {
        if (r->pred) fail(b, fmt::format("predicate '{}' used as an address", b.text));
        o.reg = r->index;
      } else if (b.text[0] == '%') {
        fail(b, fmt::format("undefined register '{}'", b.text));
      } else {
        resolve_symbol(o, b.text, b, slot);
      }
      if (is_punct(peek(), '+') || is_punct(peek(), '-')) o.imm = parse_offset();
    } else if (b.kind == TokKind::Number) {
      o.imm = parse_uint("an address", UINT64_MAX);
      if (is_punct(peek(), '+') || is_punct(peek(), '-')) o.imm += parse_offset();
    } else {
      fail(b, fmt::format("expected an address but found {}", describe(b)));
    }
    expect(']', "to close the address");
    return o;
  }

  // call{.uni} [(rets),] target[, (args)][, prototype];
  void parse_call(Instruction& in, const Token& op_tok) {
    if (is_punct(peek(), '(')) {
      in.call_rets = parse_call_list();
      expect(',', "after the call's return values");
    }
    const Token& target = peek();
    std::string_view name = expect_ident("a call target");
    Operand& callee = in.ops[0];
    in.nops = 1;
    if (auto r = find_reg(name)) {
      if (r->pred) fail(target, fmt::format("predicate '{}' used as a call target", name));
      callee.kind = OperandKind::Reg;
      callee.reg = r->index;
    } else {
      callee.kind = OperandKind::Func;
      pending_module_refs_.push_back(ModuleRef{fn_index_, 0, 0, name, target.line});
    }
    if (accept(',')) {
      if (is_punct(peek(), '(')) {
        in.call_args = parse_call_list();
        if (!accept(',')) return;
      }
      const Token& p = peek();
      std::string_view proto = expect_ident("a call prototype");
      auto it = prototypes_.find(proto);
      if (it == prototypes_.end()) fail(p, fmt::format("undefined call prototype '{}'", proto));
      if (!it->second.any_arity &&
          (it->second.nrets != in.call_rets.size() || it->second.nargs != in.call_args.size()))
        fail(op_tok, fmt::format("call does not match prototype '{}'", proto));
    }
  }

  std::vector<Operand> parse_call_list() {
    expect('(', "to open the call list");
    std::vector<Operand> ops;
    if (accept(')')) return ops;
    do {
      const Token& t = peek();
      Operand o;
      if (t.kind == TokKind::Number || is_punct(t, '-')) {
        o.kind = OperandKind::Imm;
        o.imm = parse_immediate(Type::None);
      } else {
        std::string_view name = expect_ident("a call argument");
        if (auto r = find_reg(name)) {
          o.kind = r->pred ? OperandKind::Pred : OperandKind::Reg;
          o.reg = r->index;
        } else if (auto s = find_function_symbol(name)) {
          o.kind = OperandKind::Symbol;
          o.scope = s->scope;
          o.sym = s->index;
        } else {
          fail(t, fmt::format("undefined call argument '{}'", name));
        }
      }
      ops.push_back(o);
    } while (accept(','));
    expect(')', "to close the call list");
    return ops;
  }

  void validate_operands(Instruction& in, const Token& op_tok) {
    if (in.op == Opcode::Video) {
      const std::string e = video_operands_error(in);
      if (!e.empty()) fail(op_tok, fmt::format("'{}' takes {}", op_tok.text, e));
      return;
    }
    if (is_texture_op(in.op)) {
      if (std::string u = texture_unsupported_form(in); !u.empty()) unsupported(fmt::format("{} ({})", op_tok.text, u));
      const std::string e = texture_operands_error(in);
      if (!e.empty()) fail(op_tok, fmt::format("'{}' takes {}", op_tok.text, e));
      return;
    }
    if (is_async_or_tensor(in.op)) {
      std::string want = check_async_tensor_operands(in);
      if (!want.empty()) fail(op_tok, fmt::format("'{}' takes {}", op_tok.text, want));
      return;
    }
    const OperandCount c = operand_count(in);
    if (in.nops < c.min || in.nops > c.max) {
      std::string want = c.min == c.max ? std::to_string(c.min) : fmt::format("{} to {}", c.min, c.max);
      fail(op_tok, fmt::format("'{}' takes {} operand{}, found {}", op_tok.text, want,
                               c.max == 1 ? "" : "s", in.nops));
    }
    if (in.pred_dst2 != kNoReg && in.op != Opcode::Setp && in.op != Opcode::Shfl &&
        !(in.op == Opcode::Match && in.vote == VoteMode::All))
      fail(op_tok, fmt::format("'{}' has no second predicate destination", op_tok.text));
    const int addr = address_slot(in.op);
    const bool dest = has_destination(in);
    for (unsigned i = 0; i < in.nops; ++i) {
      const Operand& o = in.ops[i];
      auto bad = [&](const char* what) {
        fail(op_tok, fmt::format("operand {} of '{}' must be {}", i + 1, op_tok.text, what));
      };
      if (int(i) == addr) {
        if (o.kind != OperandKind::Addr) bad("an address [...]");
        continue;
      }
      if (o.kind == OperandKind::Addr) bad("a register or value, not an address");
      if (o.kind == OperandKind::Sink) bad("a register ('_' only inside vectors)");
      const bool vec_ok = (in.op == Opcode::Mov && i < 2) ||
                          ((in.op == Opcode::Ld || in.op == Opcode::Ldu) && i == 0 && in.vec > 1) ||
                          (in.op == Opcode::St && i == 1 && in.vec > 1);
      if (o.kind == OperandKind::Vec) {
        if (!vec_ok) bad("a scalar");
        if (in.op == Opcode::Mov ? (o.vcount != 2 && o.vcount != 4) : o.vcount != in.vec)
          bad(in.op == Opcode::Mov ? "a vector of 2 or 4 registers" : "a vector as wide as the .v modifier");
      } else if (vec_ok && in.op != Opcode::Mov) {
        bad("a vector {...}");
      }
      if (o.kind == OperandKind::Func && !(in.op == Opcode::Mov && i == 1)) bad("a register or value");
      if (dest && i == 0) {
        if (destination_is_pred(in) ? o.kind != OperandKind::Pred
                                    : o.kind != OperandKind::Reg && o.kind != OperandKind::Vec)
          bad(destination_is_pred(in) ? "a predicate register" : "a register");
      }
    }
    if (in.op == Opcode::Mov && in.ops[0].kind == OperandKind::Vec && in.ops[1].kind != OperandKind::Reg)
      fail(op_tok, "mov into a vector needs a register source");
  }

  // ---- end of module -----------------------------------------------------
  void resolve_module_refs() {
    for (const ModuleRef& r : module_refs_) {
      Operand& o = mod_.functions[r.fn].insts[r.inst].ops[r.slot];
      std::string name(r.name);
      if (auto g = mod_.global_index.find(name); g != mod_.global_index.end()) {
        if (o.kind == OperandKind::Func) fail_at(r.line, fmt::format("'{}' is not a function", name));
        o.sym = g->second;
        continue;
      }
      auto f = mod_.function_index.find(name);
      if (f == mod_.function_index.end()) fail_at(r.line, fmt::format("undefined symbol '{}'", name));
      const Instruction& in = mod_.functions[r.fn].insts[r.inst];
      if (o.kind == OperandKind::Addr) fail_at(r.line, fmt::format("function '{}' used as an address", name));
      if (o.kind == OperandKind::Symbol && !(in.op == Opcode::Mov && r.slot == 1 && o.imm == 0))
        fail_at(r.line, fmt::format("function '{}' used as a value", name));
      o.kind = OperandKind::Func;
      o.sym = f->second;
    }
  }

  void check_extern_uses() {
    for (const Function& f : mod_.functions) {
      for (const Instruction& in : f.insts) {
        for (unsigned i = 0; i < in.nops; ++i) {
          const Operand& o = in.ops[i];
          if (o.kind != OperandKind::Func || !mod_.functions[o.sym].is_extern) continue;
          const std::string& callee = mod_.functions[o.sym].name;
          if (in.op == Opcode::Call && is_builtin_function(callee)) continue;  // the engine's own
          note_unsupported(in.line, in.op == Opcode::Call ? extern_call(callee)
                                                          : fmt::format("address of external function {}", callee));
        }
      }
    }
  }

  void check_loc_files() {
    for (const Function& f : mod_.functions)
      for (const Instruction& in : f.insts)
        if (in.src_file >= mod_.files.size())
          fail_at(in.line, fmt::format(".loc refers to undeclared file {}", in.src_file));
  }

  const std::string& file_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  Module mod_;
  std::vector<bool> has_body_;
  std::vector<ModuleRef> module_refs_;
  // function body state
  uint32_t fn_index_ = 0;
  RegEntry carry_flag_{Type::Pred, kUnallocated};  // attach_carry_flag()
  std::vector<Scope> scopes_;
  int cur_scope_ = 0;
  std::vector<LabelRef> label_refs_;
  std::unordered_map<std::string_view, Prototype> prototypes_;
  std::unordered_map<std::string_view, uint32_t> param_names_, ret_names_;
  uint32_t loc_file_ = 0, loc_line_ = 0;
  // references made by the instruction being parsed (committed with it)
  std::vector<LabelRef> pending_labels_;
  std::vector<ModuleRef> pending_module_refs_;
};

}  // namespace

Module parse_ptx(std::string_view text, const std::string& file_name) {
  try {
    return Parser(text, file_name).run();
  } catch (const UnsupportedConstruct& u) {
    // Unsupported constructs are caught per statement; this is a safety net.
    throw LoadError(fmt::format("{}: unsupported: {}", file_name, u.what));
  }
}

void require_supported(const Module& m) {
  if (m.unsupported.empty()) return;
  std::string msg = fmt::format("{}: unsupported PTX constructs:", m.file);
  for (const Unsupported& u : m.unsupported)
    msg += fmt::format("\n{}: unsupported: {}", m.loc(u.line).str(), u.construct);
  throw LoadError(msg);
}

}  // namespace gpumux::ptx
