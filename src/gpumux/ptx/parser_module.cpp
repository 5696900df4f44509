// Module-level parsing: directives (.version, .target, .file, ...), module
// and function-scope variable declarations with their initializers, and
// function declarations and definitions (parser_impl.h).
#include <algorithm>

#include <fmt/format.h>

#include "gpumux/ptx/literal.h"
#include "gpumux/ptx/parser_impl.h"

namespace gpumux::ptx::detail {

namespace {

constexpr uint64_t kMaxVariableBytes = uint64_t(1) << 40;

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

}  // namespace

void Parser::parse_top_level() {
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

void Parser::parse_module_statement(const Linkage& lk) {
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

void Parser::add_global(Variable v, const Token& at) {
  if (v.is_extern && v.space != Space::Shared) unsupported(fmt::format("external variable {}", v.name));
  if (mod_.global_index.count(v.name)) fail(at, fmt::format("redefinition of '{}'", v.name));
  mod_.global_index.emplace(v.name, uint32_t(mod_.globals.size()));
  mod_.globals.push_back(std::move(v));
}

void Parser::parse_file_directive() {
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
std::vector<Parser::NamedVariable> Parser::parse_variables(Space space, const Linkage& lk,
                                                           uint32_t line) {
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
void Parser::parse_init_value(Variable& v, uint64_t max, uint64_t& count, unsigned depth) {
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
std::vector<Param> Parser::parse_param_list() {
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

void Parser::parse_dims(std::array<uint32_t, 3>& dims) {
  for (unsigned i = 0; i < 3; ++i) {
    dims[i] = uint32_t(parse_uint("a thread count", UINT32_MAX));
    if (!accept(',')) break;
  }
}

void Parser::parse_function(const Linkage& lk) {
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

}  // namespace gpumux::ptx::detail
