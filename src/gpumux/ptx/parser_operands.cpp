// Operands (parser_impl.h): immediates in their slot's type, vectors,
// addresses, video selectors, texture brackets and call lists, and the check
// of each instruction's operand count and kinds. Names are parser_body.cpp's.
#include <fmt/format.h>

#include "gpumux/ptx/inst_info.h"
#include "gpumux/ptx/literal.h"
#include "gpumux/ptx/parse_async_tensor.h"
#include "gpumux/ptx/parse_video.h"
#include "gpumux/ptx/parser_impl.h"
#include "gpumux/ptx/parser_texture.h"

namespace gpumux::ptx::detail {

namespace {

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

}  // namespace

void Parser::parse_operands(Instruction& in, const Token& op_tok) {
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

Operand Parser::parse_operand(const Instruction& in, unsigned slot) {
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
Operand Parser::parse_video_operand(Instruction& in, unsigned slot) {
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

Operand Parser::warp_size_operand(const Instruction& in, unsigned slot) {
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

uint64_t Parser::parse_immediate(Type t) {
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

Operand Parser::parse_vector() {
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

Operand Parser::parse_address(unsigned slot) {
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
void Parser::parse_call(Instruction& in, const Token& op_tok) {
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

std::vector<Operand> Parser::parse_call_list() {
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

void Parser::validate_operands(Instruction& in, const Token& op_tok) {
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

}  // namespace gpumux::ptx::detail
