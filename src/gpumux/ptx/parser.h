// PTX text -> ptx::Module (ir.h). Accepts the PTX ISA 9.x that nvcc 13 emits
// for compute_75/compute_80. Loading a module is
//   parse_ptx() -> analyze_module() (cfg.h) -> require_supported()
// (load_ptx() in check.h does all three).
//
// Errors: malformed PTX throws LoadError "file:line: message" naming the
// offending token. Constructs gpumux does not model (textures, surfaces,
// cp.async.bulk and other sm_90 forms, calls to undefined
// .extern functions other than the engine's built-ins (builtins.h: vprintf,
// malloc, ...) such as dynamic parallelism, unknown opcodes or modifiers,
// ...) are not errors: they are recorded in Module::unsupported (line and
// construct, sorted by line) and the statement is skipped (an extern call is
// kept in the IR); require_supported() then rejects the module.
//
// IR conventions (beyond ir.h):
//  * Operands are in PTX order, nops is the number written. Immediates hold
//    the raw bits of the value in the type of their slot, zero-extended:
//    `add.s32 %r1, %r2, -1` stores 0xffffffff; `add.f32 ..., 1` stores the
//    bits of 1.0f; `add.f64 ..., 0f3F800000` the bits of 1.0. Slot types:
//      cvt: ops[1] type2 | setp/set: ops[1..2] type2, ops[3] pred
//      selp: ops[3] pred | slct: ops[3] type2
//      shl/shr: ops[2] u32 | shf: ops[3] u32 | bfe: ops[2..3] u32 | bfi: ops[3..4] u32
//      prmt, lop3 (incl. the LUT ops[4]): b32
//      mul.wide: ops[0] twice the width | mad.wide: ops[0] and ops[3] twice the width
//      dp4a/dp2a.atype.btype: ops[1] type, ops[2] type2, ops[0]/ops[3] s32 if
//        either is signed else u32
//      popc/clz/bfind: ops[0] u32 | testp/isspacep: ops[0] pred
//      shfl: ops[2..4] (lane, clamp, membermask) u32
//      vote: ops[1] pred, ops[2] membermask b32 | match, redux: ops[2] membermask b32
//      bar/barrier: barrier id, thread count u32; bar.red: ops[0] type, last pred
//      nanosleep: u32 | call arguments: untyped (64-bit literal)
//  * type/type2: type is the first type suffix, type2 the second (cvt.f32.s32:
//    type f32, type2 s32; set.gt.u32.f32; slct.s32.f32; dp4a.u32.s32). setp
//    has one type: both type and type2 hold it. mul/mad.wide: type is the
//    source type (s32 of mul.wide.s32).
//  * ld/ldu/st: ld d, [a] (ops[0] Reg or Vec of `vec` elements, ops[1] Addr);
//    st [a], b. Without a state space (ld/st/atom/red/prefetch) space is
//    Space::Generic. is_volatile is also set for .relaxed/.acquire/.release loads
//    and stores (strong operations must not be served from a stale cache);
//    cache hints (.ca/.cg/.cs/.lu/.cv/.wb/.wt/.L1::*/.L2::evict_*/.L2::NB) are ignored.
//  * atom: d, [a], b{, c} (ops[3]: cas new value). red: [a], b. .sem/.scope
//    qualifiers are ignored; atom.add.noftz.f16 has ftz false.
//  * mov: ops[1] may be Reg, Pred, Imm, Special, Symbol (address of a variable
//    in its own state space, plus Operand::imm), Func
//    (address of a function), or Vec (pack: mov.b64 %rd, {%r1,%r2}, low element
//    first); ops[0] may be a Vec (unpack).
//  * cvta: ops[1] Reg or Symbol; space is the non-generic side, cvta_to for
//    cvta.to.<space>.
//  * Addr operands: [reg], [reg+imm], [reg+-imm], [sym], [sym+imm], [imm].
//    Symbol operands (mov/cvta sources) keep a `sym+imm` offset in imm too.
//  * setp: ops[0] Pred, pred_dst2 for "p|q", ops[3] the optional {!}c of
//    setp.cmp.bop. shfl: d{|p}, a, b, c, membermask (pred in pred_dst2); the
//    old non-.sync shfl has no membermask (sync false).
//  * vote: d, {!}a, membermask (old non-.sync form: d, {!}a). match.any/all:
//    Instruction::vote holds Any/All; d{|p}, a, membermask.
//  * bar.sync/barrier.sync a{, b}, bar.arrive a, b, bar.red.op.type d, a{, b}, {!}c;
//    bar.* sets aligned (barrier.* only with .aligned). bar.warp.sync membermask:
//    bar = BarKind::Warp. membar.* and fence.* are Membar without operands.
//  * WARP_SZ (the predefined warp size) is an immediate 32 in its slot's type.
//  * Carry flag: .cc (add/sub/mad/addc/subc/madc) sets Instruction::cc and
//    pred_dst2 to a hidden predicate of the function (named "%cc.cf", which
//    no PTX name reaches); addc/subc/madc get it as an extra last operand
//    (nops one more than written). madc.lo/.hi use mul.
//  * cp.async, mbarrier, mma, wmma, ldmatrix, cvt.rna.tf32.f32: parse_async_tensor.h.
//  * bmsk.clamp/.wrap: shf (Clamp/Wrap). redux.sync.op: aop (Add, Min, Max,
//    And, Or, Xor) and sync.
//  * bfind.shiftamt sets shiftamt; dp2a.lo/.hi use mul (Lo/Hi); shf.l/.r sdir,
//    .clamp/.wrap shf; prmt mode in prmt (None: default permute).
//  * bra: ops[0] Label (imm = target instruction index). call: ops[0] Func
//    (direct) or Reg (indirect through a register, e.g. virtual functions;
//    the prototype label is only checked for arity here, the callee's
//    parameter and return counts when the call executes); call_rets/call_args are the parenthesised
//    lists, usually Symbol operands of call-block .param variables
//    (SymScope::Local). Calls to undefined .extern functions are kept and
//    reported unsupported unless the callee is a built-in (builtins.h).
//  * Registers are numbered on first use, so num_regs counts registers that
//    appear in instructions; a `{ }` scope's declarations are new registers.
//    Labels are scoped the same way; in Function::labels a name already taken
//    by another scope's label is stored as "name#<scope index>".
//  * Function::is_extern: declared but not defined in this module.
//  * .loc sets src_file/src_line of the following instructions to the .loc's
//    own file and line (not the inlined_at site); line 0 means none.
//  * Module variables: init holds the initializer bytes; an element naming a
//    symbol (`sym`, `generic(sym)`, `sym+8`) adds (offset, name) to init_addrs
//    and leaves the addend (8) in the init bytes at that offset: the loader
//    stores address(name) + addend there. Names may be variables or functions.
//  * Function::params have offsets aligned to each param's alignment
//    (default: its type size); param_bytes/ret_bytes are the end offsets.
//    Function::local_bytes sums the function's .local variables.
#pragma once

#include <string>
#include <string_view>

#include "gpumux/ptx/ir.h"

namespace gpumux::ptx {

Module parse_ptx(std::string_view text, const std::string& file_name);

// Throws LoadError listing every unsupported construct as "file:line:
// unsupported: construct" (one per line) if there is any.
void require_supported(const Module& m);

}  // namespace gpumux::ptx
