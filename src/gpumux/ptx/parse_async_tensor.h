// Modifiers and operands of the asynchronous-copy, asynchronous-barrier and
// tensor-core instructions (cp.async, mbarrier, mma, ldmatrix), kept apart
// from the rest of the parser. IR conventions (see also parser.h):
//  * cp.async.ca/.cg.shared.global [dst], [src], cp-size{, src-size | ignore-src}:
//    async Copy, space Shared (the destination's), type U32 (immediates);
//    ops[3] is a u32 src-size (Reg or Imm) or an ignore-src Pred.
//    .L2::cache_hint sets cache_policy and its last operand is dropped.
//  * cp.async.commit_group / wait_all: no operands; wait_group N: ops[0] Imm.
//  * cp.async.mbarrier.arrive{.noinc}.shared.b64 [mbar]: async MbarrierArrive.
//  * mbarrier.init [a], count | inval [a] | arrive{.noComplete} state, [a]{, count}
//    | arrive_drop state, [a]{, count} | test_wait/try_wait{.parity} p, [a], state
//    (try_wait: an optional suspend-time hint, ignored) | pending_count c, state.
//    Space Shared or Generic; type B64.
//  * mma.sync.aligned.shape.alayout.blayout.dtype.atype.btype.ctype d, a, b, c:
//    every operand a vector; tensor holds shape, layouts and types.
//  * ldmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16 d, [a]: d a vector of N.
//  * wmma.load.{a,b,c}.sync.aligned.layout.shape{.space}.type r, [p]{, stride} and
//    wmma.store.d...type [p], r{, stride}: tensor.wmma, a_col (.col), the type
//    in the fragment's slot (a, b, c or d); wmma.mma.sync.aligned.alayout.blayout
//    .shape.dtype.ctype (f16 inputs) or .dtype.atype.btype.ctype d, a, b, c.
//    Fragments are vectors of up to 8 registers.
//  * cvt.rna.tf32.f32 d, a (parser_instruction.cpp): type B32, type2 F32, tensor.d Tf32.
#pragma once

#include <string>
#include <string_view>

#include "gpumux/ptx/ir.h"

namespace gpumux::ptx {

bool is_async_or_tensor(Opcode op);  // cp.async, mbarrier, mma, ldmatrix, wmma

// Applies one dot-modifier of the opcode word; false if not accepted.
bool apply_async_tensor_modifier(Instruction& in, std::string_view m);

// After the modifiers: a message naming what is missing ("" if complete).
std::string finish_async_tensor(Instruction& in);

// After the operands (may drop a cache-policy operand): "" or what is wrong.
std::string check_async_tensor_operands(Instruction& in);

// Registers per thread of one mma operand ('a', 'b', 'c' or 'd'); 0 if the
// shape/type combination is not one of the PTX ISA's.
unsigned mma_fragment_regs(const TensorOp& t, char which);

// Registers per thread of a wmma fragment ('a', 'b', 'c' or 'd') of t's
// shape and that fragment's type in t (wmma layouts are opaque: see ops_tensor.cpp).
unsigned wmma_fragment_regs(const TensorOp& t, char which);

// Width in bits of one element of a tensor-core type.
unsigned mma_type_bits(MmaType t);

}  // namespace gpumux::ptx
