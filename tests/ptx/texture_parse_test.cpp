// Parsing of tex, tld4, txq, suld, sust and suq in the forms nvcc 13 emits
// for texture and surface objects (parser.h, parser_texture.h).
#include <gtest/gtest.h>

#include "gpumux/core/error.h"
#include "gpumux/ptx/inst_info.h"
#include "ptx/ptx_test_util.h"

namespace gpumux::ptx {
namespace {

using test::kernel_with;
const auto& error_of = test::body_error;
using test::parse_one;


TEST(PtxTextureParse, TexForms) {
  Instruction a = parse_one("\ttex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd2, {%f5, %f6}];");
  EXPECT_EQ(a.op, Opcode::Tex);
  EXPECT_EQ(a.tex.geom, TexGeom::D2);
  EXPECT_EQ(a.type, Type::F32);
  EXPECT_EQ(a.type2, Type::F32);
  EXPECT_EQ(a.vec, 4);
  ASSERT_EQ(a.nops, 3);
  EXPECT_EQ(a.ops[0].kind, OperandKind::Vec);
  EXPECT_EQ(a.ops[0].vcount, 4);
  EXPECT_EQ(a.ops[1].kind, OperandKind::Reg);
  EXPECT_EQ(a.ops[2].vcount, 2);

  Instruction f = parse_one("\ttex.1d.v4.u32.s32 {%r1, %r2, %r3, %r4}, [%rd1, {%r5}];");
  EXPECT_EQ(f.type, Type::U32);
  EXPECT_EQ(f.type2, Type::S32);
  EXPECT_EQ(parse_one("\ttex.a2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd2, {%r1, %f1, %f2, %f2}];").tex.geom,
            TexGeom::A2d);
  EXPECT_EQ(parse_one("\ttex.acube.v4.s32.f32 {%r1, %r2, %r3, %r4}, [%rd3, {%r1, %f1, %f2, %f3}];").tex.geom,
            TexGeom::ACube);

  Instruction l = parse_one("\ttex.level.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd2, {%f1, %f2}], %f3;");
  EXPECT_EQ(l.tex.lod, TexLod::Level);
  EXPECT_EQ(l.nops, 4);
  Instruction li = parse_one("\ttex.level.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd2, {%f1}], 0f3F800000;");
  EXPECT_EQ(li.ops[3].kind, OperandKind::Imm);
  EXPECT_EQ(li.ops[3].imm, 0x3f800000u);
  Instruction g = parse_one(
      "\ttex.grad.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd3, {%f1, %f2, %f3, %f3}], {%f1, %f2, %f3, %f3}, "
      "{%f3, %f2, %f1, %f1};");
  EXPECT_EQ(g.tex.lod, TexLod::Grad);
  EXPECT_EQ(g.nops, 5);
  EXPECT_EQ(g.ops[4].vcount, 4);

  Instruction t4 = parse_one("\ttld4.g.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd2, {%f1, %f2}];");
  EXPECT_EQ(t4.op, Opcode::Tld4);
  EXPECT_EQ(t4.tex.comp, 1);
  Instruction q = parse_one("\ttxq.width.b32 %r1, [%rd1];");
  EXPECT_EQ(q.op, Opcode::Txq);
  EXPECT_EQ(q.tex.query, TexQuery::Width);
  EXPECT_EQ(q.nops, 2);
}

TEST(PtxTextureParse, SurfaceForms) {
  Instruction ld = parse_one("\tsuld.b.2d.v2.b32.trap {%r18, %r19}, [%rd4, {%r16, %r17}];");
  EXPECT_EQ(ld.op, Opcode::Suld);
  EXPECT_EQ(ld.vec, 2);
  EXPECT_EQ(ld.type, Type::B32);
  EXPECT_EQ(ld.tex.clamp, SurfClamp::Trap);
  EXPECT_TRUE(has_destination(ld));
  Instruction st = parse_one("\tsust.b.3d.b8.zero [%rd4, {%r1, %r2, %r3, %r3}], {%rs1};");
  EXPECT_EQ(st.op, Opcode::Sust);
  EXPECT_EQ(st.tex.clamp, SurfClamp::Zero);
  EXPECT_EQ(st.tex.geom, TexGeom::D3);
  EXPECT_FALSE(has_destination(st));
  EXPECT_EQ(st.ops[0].kind, OperandKind::Reg);
  EXPECT_EQ(st.ops[2].vcount, 1);
  EXPECT_EQ(parse_one("\tsuld.b.1d.b32.clamp {%r27}, [%rd4, {%r26}];").tex.clamp, SurfClamp::Clamp);
  EXPECT_TRUE(parse_one("\tsust.p.2d.v4.b32.trap [%rd4, {%r1, %r2}], {%r3, %r4, %r5, %r6};").tex.formatted);
  EXPECT_EQ(parse_one("\tsuq.array_size.b32 %r1, [%rd1];").tex.query, TexQuery::ArraySize);
}

TEST(PtxTextureParse, MalformedFormsNameTheProblem) {
  EXPECT_NE(error_of("\ttex.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd2, {%f5, %f6}];").find("needs a geometry"),
            std::string::npos);
  EXPECT_NE(error_of("\ttex.2d.f32.f32 {%f1, %f2, %f3, %f4}, [%rd2, {%f5, %f6}];").find("needs .v4"),
            std::string::npos);
  EXPECT_NE(error_of("\ttex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd2, {%f5}];")
                .find("coordinate vector of 2 registers"),
            std::string::npos);
  EXPECT_NE(error_of("\tsuld.b.2d.b32 {%r1}, [%rd2, {%r1, %r2}];").find("out-of-range mode"), std::string::npos);
  EXPECT_NE(error_of("\tsuld.b.2d.v2.b32.trap {%r1}, [%rd2, {%r1, %r2}];").find("value vector of 2"),
            std::string::npos);
  // Forms gpumux does not model are reported, not errors.
  Module off = parse_ptx(kernel_with("\ttex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd2, {%f5, %f6}], {%r1, %r2};\n"
                                     "\ttex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [%rd2, {%f5, %f6}];"),
                         "o.ptx");
  ASSERT_EQ(off.unsupported.size(), 2u);
  EXPECT_EQ(off.unsupported[0].construct, "tex.2d.v4.f32.f32 (offset or depth-compare operands)");
  EXPECT_EQ(off.unsupported[1].construct, "tex.2d.v4.f32.f32 (predicate destination (sparse texture residency))");
  // A query suq does not have is an unsupported modifier, reported by ptx check.
  Module m = parse_ptx(kernel_with("\tsuq.filter_mode.b32 %r1, [%rd1];"), "q.ptx");
  ASSERT_EQ(m.unsupported.size(), 1u);
  EXPECT_EQ(m.unsupported[0].construct, "suq.filter_mode.b32 (modifier .filter_mode)");
  EXPECT_NE(error_of("\ttxq.width.b32 %r1, [%rd1, %rd2];").find("bad.ptx:15"), std::string::npos);
}

}  // namespace
}  // namespace gpumux::ptx
