// Parsing of the video instructions (parse_video.h: operation, lanes, types,
// selectors and masks in Instruction::video) and of the reserved
// shared-memory special registers, with their layout (resources.h).
#include <gtest/gtest.h>

#include "gpumux/ptx/resources.h"
#include "ptx_test_util.h"

namespace gpumux::ptx {
namespace {

using test::parse_one;
const auto& error_of = test::body_error;

TEST(PtxVideo, SimdFormsWithDefaultsSelectorsAndMasks) {
  Instruction in = parse_one("vabsdiff4.u32.u32.u32.add %r1, %r2, %r3, %r1;");
  EXPECT_EQ(in.op, Opcode::Video);
  EXPECT_EQ(in.video.op, VideoOp::Absdiff);
  EXPECT_EQ(in.video.lanes, 4u);
  EXPECT_EQ(in.video.second, AtomOp::Add);
  EXPECT_EQ(in.video.asel, 0x3210u);  // .b3210
  EXPECT_EQ(in.video.bsel, 0x7654u);  // .b7654
  EXPECT_EQ(in.video.dsel, 0xfu);
  EXPECT_EQ(in.nops, 4u);
  in = parse_one("vmin4.s32.u32.s32.sat %r1.b20, %r2.b0123, %r3.b4455, %r4;");
  EXPECT_EQ(in.type, Type::S32);
  EXPECT_EQ(in.video.atype, Type::U32);
  EXPECT_EQ(in.video.btype, Type::S32);
  EXPECT_TRUE(in.sat);
  EXPECT_EQ(in.video.asel, 0x0123u);  // lane 3 takes byte 0, ..., lane 0 byte 3
  EXPECT_EQ(in.video.bsel, 0x4455u);
  EXPECT_EQ(in.video.dsel, 0b0101u);
  EXPECT_EQ(in.ops[1].kind, OperandKind::Reg);  // the selector is not part of the operand
  in = parse_one("vavrg2.s32.s32.s32 %r1.h1, %r2.h01, %r3, %r4;");
  EXPECT_EQ(in.video.op, VideoOp::Avrg);
  EXPECT_EQ(in.video.lanes, 2u);
  EXPECT_EQ(in.video.asel, 0x01u);
  EXPECT_EQ(in.video.bsel, 0x32u);
  EXPECT_EQ(in.video.dsel, 0b10u);
  in = parse_one("vset4.u32.s32.ne.add %r1, %r2, %r3, %r4;");
  EXPECT_EQ(in.video.op, VideoOp::Set);
  EXPECT_EQ(in.cmp, CmpOp::Ne);
  EXPECT_EQ(in.type, Type::U32);
  EXPECT_EQ(in.video.btype, Type::S32);
}

TEST(PtxVideo, ScalarFormsWithSecondaryOperationOrMerge) {
  Instruction in = parse_one("vadd.u32.s32.u32.sat %r1, %r2.b1, %r3.h1;");
  EXPECT_EQ(in.video.lanes, 1u);
  EXPECT_EQ(in.nops, 3u);
  EXPECT_EQ(in.video.asel, kVideoB1);
  EXPECT_EQ(in.video.bsel, kVideoH1);
  EXPECT_EQ(in.video.dsel, kVideoWord);
  in = parse_one("vmax.s32.s32.s32.min %r1, %r2, %r3, %r4;");
  EXPECT_EQ(in.video.second, AtomOp::Min);
  in = parse_one("vsub.s32.s32.s32 %r1.b3, %r2, %r3, %r4;");
  EXPECT_EQ(in.video.dsel, kVideoB3);
  in = parse_one("vshr.s32.s32.u32.clamp %r1, %r2, %r3;");
  EXPECT_EQ(in.video.op, VideoOp::Shr);
  EXPECT_TRUE(in.video.clamp);
  EXPECT_FALSE(parse_one("vshl.u32.u32.u32.wrap.add %r1, %r2, %r3, %r4;").video.clamp);
  in = parse_one("vset.u32.u32.lt %r1, %r2, %r3;");
  EXPECT_EQ(in.cmp, CmpOp::Lt);
}

TEST(PtxVideo, MalformedVideoInstructionsAreErrors) {
  auto has = [](const std::string& body, const std::string& what) {
    const std::string e = error_of(body);
    EXPECT_NE(e.find(what), std::string::npos) << body << ": " << e;
  };
  has("vadd4.u32.u32.u32.sat.add %r1, %r2, %r3, %r4;", "either .sat or .add");
  has("vshl.u32.u32.u32 %r1, %r2, %r3;", ".clamp or .wrap");
  has("vshl.u32.u32.s32.wrap %r1, %r2, %r3;", "a .u32 shift amount type");
  has("vset4.u32.u32 %r1, %r2, %r3, %r4;", "a comparison");
  has("vadd.u32.u32.f32 %r1, %r2, %r3;", "types .u32 or .s32");
  has("vadd.u32.u32 %r1, %r2, %r3;", "needs 3 type suffixes");
  has("vadd4.u32.u32.u32 %r1, %r2.b012, %r3, %r4;", "selector .b012");
  has("vadd4.u32.u32.u32 %r1, %r2.b0128, %r3, %r4;", "selector .b0128");
  has("vadd2.u32.u32.u32 %r1, %r2.h04, %r3, %r4;", "selector .h04");
  has("vadd4.u32.u32.u32 %r1.b02, %r2, %r3, %r4;", "highest first");
  has("vadd.u32.u32.u32 %r1, %r2.b4, %r3;", "selector .b4");
  has("vadd.u32.u32.u32.add %r1, %r2, %r3;", "takes 4 operands");
  has("vadd.u32.u32.u32.add %r1.h0, %r2, %r3, %r4;", "not both");
  has("vadd4.u32.u32.u32 %r1, %r2, %r3;", "takes 4 operands");
  has("vadd4.u32.u32.u32 %r1, %r2, %r3, %r4.b0;", "no selector on operand 4");
  has("vadd4.u32.u32.u32 %r1, %p1, %r3, %r4;", "'%p1' is not a register");
}

// Forms the PTX ISA does not have, and vmad, are unsupported constructs of the module.
TEST(PtxVideo, MissingFormsAndVmadAreUnsupported) {
  Module m = parse_ptx(test::kernel_with("\tvavrg.u32.u32.u32 %r1, %r2, %r3;\n"
                                         "\tvshl4.u32.u32.u32.wrap %r1, %r2, %r3, %r4;\n"
                                         "\tvmad.s32.s32.s32 %r1, %r2, %r3, %r4;\n"),
                       "unsupported.ptx");
  ASSERT_EQ(m.unsupported.size(), 3u);
  EXPECT_NE(m.unsupported[0].construct.find("unknown instruction vavrg"), std::string::npos);
  EXPECT_NE(m.unsupported[1].construct.find("unknown instruction vshl4"), std::string::npos);
  EXPECT_NE(m.unsupported[2].construct.find("(video)"), std::string::npos);
}

TEST(PtxReservedSmem, SpecialRegistersAndTheirRegion) {
  EXPECT_EQ(parse_one("mov.u32 %r1, %reserved_smem_offset_begin;").ops[1].sreg, SpecialReg::ReservedSmemBegin);
  EXPECT_EQ(parse_one("mov.u32 %r1, %reserved_smem_offset_end;").ops[1].sreg, SpecialReg::ReservedSmemEnd);
  EXPECT_EQ(parse_one("mov.u32 %r1, %reserved_smem_offset_cap;").ops[1].sreg, SpecialReg::ReservedSmemCap);
  Instruction one = parse_one("mov.b32 %r1, %reserved_smem_offset_1;");
  EXPECT_EQ(one.ops[1].sreg, SpecialReg::ReservedSmemOffset);
  EXPECT_EQ(one.ops[1].comp, 1u);
  EXPECT_EQ(parse_one("mov.b32 %r1, %reserved_smem_offset_0;").ops[1].comp, 0u);
  EXPECT_NE(error_of("mov.u32 %r1, %reserved_smem_offset_2;").find("undefined register"), std::string::npos);

  // The region follows the static variables and precedes dynamic shared memory,
  // only in kernels that read one of the registers.
  const std::string prefix = ".shared .align 4 .b8 s[100];\n.extern .shared .align 16 .b8 dyn[];\n";
  Module with = parse_ptx(test::kernel_with("\tmov.u32 %r1, s;\n\tmov.u32 %r2, dyn;\n"
                                            "\tmov.u32 %r3, %reserved_smem_offset_cap;\n",
                                            prefix),
                          "with.ptx");
  SharedLayout l = layout_shared(with, with.functions.at(0));
  EXPECT_EQ(l.static_bytes, 100u);
  EXPECT_EQ(l.reserved_offset, 112u);  // 16-byte aligned
  EXPECT_EQ(l.dynamic_offset, 112u + kReservedSmemBytes);
  Module without = parse_ptx(test::kernel_with("\tmov.u32 %r1, s;\n\tmov.u32 %r2, dyn;\n", prefix), "without.ptx");
  l = layout_shared(without, without.functions.at(0));
  EXPECT_EQ(l.reserved_offset, kNoSharedOffset);
  EXPECT_EQ(l.dynamic_offset, 112u);
}

}  // namespace
}  // namespace gpumux::ptx
