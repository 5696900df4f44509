// PTX text -> Module (parser.h): the public entry points, and the Parser's
// run over a module, its token and diagnostic helpers and the checks at the
// end of the module. parser_impl.h names the files holding the rest.
#include "gpumux/ptx/parser.h"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "gpumux/ptx/builtins.h"
#include "gpumux/ptx/literal.h"
#include "gpumux/ptx/parser_impl.h"

namespace gpumux::ptx {

namespace detail {

namespace {

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

}  // namespace

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

Parser::Parser(std::string_view text, const std::string& file)
    : file_(file), toks_(tokenize(text, file)) {}

Module Parser::run() {
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

// ---- tokens and diagnostics -------------------------------------------
void Parser::expect(char c, const char* context) {
  if (!accept(c))
    fail(peek(), fmt::format("expected '{}' {} but found {}", c, context, describe(peek())));
}

std::string_view Parser::expect_ident(std::string_view what) {
  if (peek().kind != TokKind::Ident)
    fail(peek(), fmt::format("expected {} but found {}", what, describe(peek())));
  return take().text;
}

void Parser::fail(const Token& t, const std::string& msg) const { fail_at(t.line, msg); }

void Parser::fail_at(uint32_t line, const std::string& msg) const {
  throw LoadError(fmt::format("{}:{}: {}", file_, line, msg));
}

void Parser::unsupported(std::string what) {
  throw UnsupportedConstruct{std::move(what)};
}

void Parser::note_unsupported(uint32_t line, std::string what) {
  mod_.unsupported.push_back(Unsupported{line, std::move(what)});
}

// Skips a statement from its first token: to the ';' that ends it (nested
// braces included) or up to a '}' that closes the enclosing block.
void Parser::skip_statement() {
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
void Parser::skip_braces() {
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
void Parser::skip_rest_of_line(uint32_t line) {
  while (peek().kind != TokKind::End && peek().line == line) take();
}

uint64_t Parser::parse_uint(std::string_view what, uint64_t max) {
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
uint64_t Parser::parse_offset() {
  bool neg = false;
  if (accept('-')) neg = true;
  else if (accept('+')) neg = accept('-');
  uint64_t v = parse_uint("an offset", UINT64_MAX);
  return neg ? uint64_t(0) - v : v;
}

// ---- end of module -----------------------------------------------------
void Parser::resolve_module_refs() {
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

void Parser::check_extern_uses() {
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

void Parser::check_loc_files() {
  for (const Function& f : mod_.functions)
    for (const Instruction& in : f.insts)
      if (in.src_file >= mod_.files.size())
        fail_at(in.line, fmt::format(".loc refers to undeclared file {}", in.src_file));
}

}  // namespace detail

Module parse_ptx(std::string_view text, const std::string& file_name) {
  try {
    return detail::Parser(text, file_name).run();
  } catch (const detail::UnsupportedConstruct& u) {
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
