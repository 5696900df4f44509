// Instructions (parser_impl.h): the guard, the opcode and its modifiers, the
// checks that an opcode's required modifiers are there, and the carry flag.
// Operands are parser_operands.cpp's.
#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "gpumux/ptx/parse_async_tensor.h"
#include "gpumux/ptx/parse_video.h"
#include "gpumux/ptx/parser_impl.h"
#include "gpumux/ptx/parser_texture.h"

namespace gpumux::ptx::detail {

// Modifier parsing state of one instruction.
struct ModState {
  std::string_view base;  // "bar" / "barrier", "membar" / "fence", ...
  std::string_view word;  // the whole opcode word, for messages
  Type types[3]{};
  unsigned ntypes = 0;
  bool warp = false;  // bar.warp
};

namespace {

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

}  // namespace

void Parser::parse_instruction() {
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

bool Parser::apply_modifier(Instruction& in, std::string_view m, ModState& st) {
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
void Parser::finish_modifiers(Instruction& in, const ModState& st, const Token& op_tok) {
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
void Parser::attach_carry_flag(Instruction& in) {
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

}  // namespace gpumux::ptx::detail
