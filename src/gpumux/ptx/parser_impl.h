// Internal to the parser: the recursive-descent Parser over the token vector
// of lexer.h. One Parser object parses one module; function bodies are parsed
// with a stack of lexical scopes (the body and every nested `{ }` block).
// The member functions are defined by concern:
//   parser.cpp              tokens and diagnostics, end-of-module checks, parse_ptx()
//   parser_module.cpp       module directives, variables, function declarations
//   parser_body.cpp         function bodies: statements, scopes, names in operands
//   parser_instruction.cpp  opcodes and their modifiers
//   parser_operands.cpp     operands, call lists and their checks
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gpumux/ptx/ir.h"
#include "gpumux/ptx/lexer.h"

namespace gpumux::ptx::detail {

constexpr unsigned kMaxNesting = 64;  // nested { } blocks and initializer braces
constexpr uint32_t kMaxFileIndex = 1u << 16;
constexpr uint32_t kUnallocated = 0xffffffffu;

// Thrown while parsing a statement that uses something gpumux does not model;
// the statement loop records it and skips the statement.
struct UnsupportedConstruct {
  std::string what;
};

std::optional<Type> type_from_name(std::string_view s);

inline uint64_t align_up(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

struct ModState;  // parser_instruction.cpp

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
  Parser(std::string_view text, const std::string& file);

  Module run();

 private:
  // A parsed variable and its name as a view of the source text (scope maps
  // key on source text, which outlives the parse).
  struct NamedVariable {
    Variable var;
    std::string_view name;
  };

  struct SymbolRef {
    SymScope scope;
    uint32_t index;
  };

  // ---- tokens and diagnostics (parser.cpp) --------------------------------
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
  void expect(char c, const char* context);
  std::string_view expect_ident(std::string_view what);
  [[noreturn]] void fail(const Token& t, const std::string& msg) const;
  [[noreturn]] void fail_at(uint32_t line, const std::string& msg) const;
  [[noreturn]] static void unsupported(std::string what);
  void note_unsupported(uint32_t line, std::string what);
  void skip_statement();
  void skip_braces();
  void skip_rest_of_line(uint32_t line);
  uint64_t parse_uint(std::string_view what, uint64_t max);
  uint64_t parse_offset();

  // ---- module level (parser_module.cpp) -----------------------------------
  void parse_top_level();
  void parse_module_statement(const Linkage& lk);
  void add_global(Variable v, const Token& at);
  void parse_file_directive();
  std::vector<NamedVariable> parse_variables(Space space, const Linkage& lk, uint32_t line);
  void parse_init_value(Variable& v, uint64_t max, uint64_t& count, unsigned depth);
  std::vector<Param> parse_param_list();
  void parse_dims(std::array<uint32_t, 3>& dims);
  void parse_function(const Linkage& lk);

  // ---- function bodies (parser_body.cpp) ----------------------------------
  Function& fn() { return mod_.functions[fn_index_]; }
  void parse_body(uint32_t index);
  void parse_block(unsigned depth);
  void parse_statement();
  void parse_prototype(const Token& name);
  void parse_reg_decl();
  void parse_local_vars();
  void parse_loc();
  RegRef materialize(RegEntry& e, std::string_view name);
  std::optional<RegRef> find_reg(std::string_view name);
  std::optional<SymbolRef> find_function_symbol(std::string_view name) const;
  void resolve_symbol(Operand& o, std::string_view name, const Token& at, unsigned slot);
  Operand named_operand(const Token& t, unsigned slot);
  Operand special_operand(std::string_view name);

  // ---- instructions (parser_instruction.cpp) ------------------------------
  void parse_instruction();
  bool apply_modifier(Instruction& in, std::string_view m, ModState& st);
  void finish_modifiers(Instruction& in, const ModState& st, const Token& op_tok);
  void attach_carry_flag(Instruction& in);

  // ---- operands (parser_operands.cpp) -------------------------------------
  void parse_operands(Instruction& in, const Token& op_tok);
  Operand parse_operand(const Instruction& in, unsigned slot);
  Operand parse_video_operand(Instruction& in, unsigned slot);
  Operand warp_size_operand(const Instruction& in, unsigned slot);
  uint64_t parse_immediate(Type t);
  Operand parse_vector();
  Operand parse_address(unsigned slot);
  void parse_call(Instruction& in, const Token& op_tok);
  std::vector<Operand> parse_call_list();
  void validate_operands(Instruction& in, const Token& op_tok);

  // ---- end of module (parser.cpp) -----------------------------------------
  void resolve_module_refs();
  void check_extern_uses();
  void check_loc_files();

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

}  // namespace gpumux::ptx::detail
