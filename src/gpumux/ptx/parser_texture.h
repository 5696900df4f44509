// Internal to the parser: the modifiers and operand shapes of the texture and
// surface instructions (tex, tld4, txq, suld, sust, suq). The parser
// (parser_instruction.cpp, parser_operands.cpp) calls these for those opcodes;
// the IR conventions are documented in parser.h.
#pragma once

#include <string>
#include <string_view>

#include "gpumux/ptx/ir.h"

namespace gpumux::ptx {

bool is_texture_op(Opcode op);
// Applies one dotted modifier (not a type); false if it is not one of the opcode's.
bool apply_texture_modifier(Instruction& in, std::string_view m);
// Number of type suffixes (tex/tld4: .dtype.ctype; the others one).
unsigned texture_type_count(const Instruction& in);
// What a complete instruction still lacks ("a geometry (.1d, .2d, ...)"), or "" if nothing.
std::string texture_modifiers_missing(const Instruction& in);
// Why a well-formed instruction is a form gpumux does not model (tex/tld4
// with offset or depth-compare operands, a predicate destination for sparse
// residency), or "" if none.
std::string texture_unsupported_form(const Instruction& in);
// Why the operands do not have the opcode's shape, or "" if they do.
std::string texture_operands_error(const Instruction& in);
// Coordinates of a geometry's coordinate vector (tex: with the layer of
// arrays; 3d and cube vectors have a fourth, ignored element).
unsigned texture_coord_count(TexGeom g);

}  // namespace gpumux::ptx
