// Internal to the parser: the video instructions (PTX ISA "Video
// Instructions"): the scalar vadd, vsub, vabsdiff, vmin, vmax, vshl, vshr,
// vset and the SIMD vadd2/4, vsub2/4, vavrg2/4, vabsdiff2/4, vmin2/4, vmax2/4,
// vset2/4. All are Opcode::Video with Instruction::video (ir.h) saying which;
// their operands carry selectors ("%r1.b0", "%r2.b3210"), which go into
// Instruction::video, the operand itself being the register. vmad is not
// supported.
#pragma once

#include <string>
#include <string_view>

#include "gpumux/ptx/ir.h"

namespace gpumux::ptx {

// Whether `base` (the opcode word before its first dot) names a video
// instruction; if so, fills in.video's operation, lanes and default selectors.
bool video_opcode(std::string_view base, Instruction& in);
// Applies one dotted modifier that is not a type (.sat, .add, .clamp, .lt, ...).
bool apply_video_modifier(Instruction& in, std::string_view m);
// Checks the type suffixes (`types`, `n` of them) and assigns them; returns
// what is wrong, or "".
std::string finish_video_types(Instruction& in, const Type* types, unsigned n);
// Applies the selector `sel` (the text after the register's dot, e.g. "b0",
// "h10", "b3210") of operand `slot` (0: d, 1: a, 2: b); returns what is wrong, or "".
std::string apply_video_selector(Instruction& in, unsigned slot, std::string_view sel);
// Why the operands (count, kinds) do not have the instruction's shape, or "".
std::string video_operands_error(const Instruction& in);
// The number of type suffixes: vset's two (a and b), the others' three.
unsigned video_type_count(const Instruction& in);

}  // namespace gpumux::ptx
