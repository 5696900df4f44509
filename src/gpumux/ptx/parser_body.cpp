// Function bodies (parser_impl.h): blocks and their scopes, statements
// (labels, call prototypes, register and variable declarations, .loc), and
// what a name in an operand is: a register, a special register or a symbol.
#include <fmt/format.h>

#include "gpumux/ptx/parser_impl.h"

namespace gpumux::ptx::detail {

namespace {

constexpr uint64_t kMaxRegRange = uint64_t(1) << 30;

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

}  // namespace

void Parser::parse_body(uint32_t index) {
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
void Parser::parse_block(unsigned depth) {
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

void Parser::parse_statement() {
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

void Parser::parse_prototype(const Token& name) {
  take();  // .callprototype
  Prototype p{0, 0, false};
  if (is_punct(peek(), '(')) p.nrets = parse_param_list().size();
  if (expect_ident("'_' in .callprototype") != "_") fail(name, "expected '_' in .callprototype");
  if (is_punct(peek(), '(')) p.nargs = parse_param_list().size();
  while (peek().kind == TokKind::Directive && peek().text == ".noreturn") take();
  expect(';', "after .callprototype");
  prototypes_[name.text] = p;
}

void Parser::parse_reg_decl() {
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

void Parser::parse_local_vars() {
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

void Parser::parse_loc() {
  const Token& d = take();
  uint64_t file = parse_uint("a file index", kMaxFileIndex);
  uint64_t line = parse_uint("a line number", UINT32_MAX);
  parse_uint("a column", UINT32_MAX);
  loc_file_ = uint32_t(file);
  loc_line_ = uint32_t(line);
  if (is_punct(peek(), ',')) skip_rest_of_line(d.line);  // function_name ..., inlined_at ...
}

// ---- registers and names -----------------------------------------------
RegRef Parser::materialize(RegEntry& e, std::string_view name) {
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

std::optional<RegRef> Parser::find_reg(std::string_view name) {
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

// A variable or parameter visible in the function body (not module symbols).
std::optional<Parser::SymbolRef> Parser::find_function_symbol(std::string_view name) const {
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
void Parser::resolve_symbol(Operand& o, std::string_view name, const Token& at, unsigned slot) {
  if (auto s = find_function_symbol(name)) {
    o.scope = s->scope;
    o.sym = s->index;
    return;
  }
  o.scope = SymScope::Module;
  pending_module_refs_.push_back(ModuleRef{fn_index_, 0, uint8_t(slot), name, at.line});
}

Operand Parser::named_operand(const Token& t, unsigned slot) {
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

Operand Parser::special_operand(std::string_view name) {
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

}  // namespace gpumux::ptx::detail
