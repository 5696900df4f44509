#include "gpumux/ptx/cfg.h"

#include <gtest/gtest.h>

#include "ptx_test_util.h"

namespace gpumux::ptx {
namespace {

Function analysed(const std::string& body) {
  Function f = test::parse_body(body);
  analyze_reconvergence(f);
  return f;
}

TEST(PtxCfg, NestedIfThenElse) {
  Function f = analysed(
      "\tsetp.lt.s32 %p1, %r1, 0;\n"      // 0
      "\t@%p1 bra ELSE;\n"                // 1
      "\tadd.s32 %r2, %r2, 1;\n"          // 2
      "\tsetp.eq.s32 %p2, %r2, 5;\n"      // 3
      "\t@%p2 bra INNER_END;\n"           // 4
      "\tadd.s32 %r3, %r3, 1;\n"          // 5
      "INNER_END:\n"
      "\tbra.uni END;\n"                  // 6
      "ELSE:\n"
      "\tsub.s32 %r2, %r2, 1;\n"          // 7
      "END:\n"
      "\tst.global.u32 [%rd1], %r2;\n"    // 8
      "\tret;");                          // 9
  ASSERT_EQ(f.insts.size(), 10u);
  EXPECT_EQ(f.insts[1].reconv, 8u);
  EXPECT_EQ(f.insts[4].reconv, 6u);
  EXPECT_EQ(f.insts[6].reconv, 8u);

  const Cfg g = build_cfg(f);
  ASSERT_EQ(g.blocks.size(), 6u);
  EXPECT_EQ(g.blocks[0].succs, (std::vector<uint32_t>{4, 1}));  // taken first, then fall-through
  EXPECT_EQ(g.blocks[1].begin, 2u);
  EXPECT_EQ(g.blocks[1].succs, (std::vector<uint32_t>{3, 2}));
  EXPECT_EQ(g.blocks[3].succs, (std::vector<uint32_t>{5}));
  EXPECT_EQ(g.blocks[5].succs, (std::vector<uint32_t>{g.exit()}));
  EXPECT_EQ(g.ipdom, (std::vector<uint32_t>{5, 3, 3, 5, 5, g.exit()}));
  EXPECT_EQ(g.block_of[7], 4u);
}

TEST(PtxCfg, LoopReconvergesAtItsExit) {
  Function f = analysed(
      "\tmov.u32 %r1, 0;\n"             // 0
      "LOOP:\n"
      "\tadd.s32 %r1, %r1, 1;\n"        // 1
      "\tsetp.lt.s32 %p1, %r1, 10;\n"   // 2
      "\t@%p1 bra LOOP;\n"              // 3
      "\tret;");                        // 4
  EXPECT_EQ(f.insts[3].ops[0].imm, 1u);
  EXPECT_EQ(f.insts[3].reconv, 4u);
}

TEST(PtxCfg, LoopWithBreakAndContinue) {
  Function f = analysed(
      "\tmov.u32 %r1, 0;\n"              // 0
      "HEAD:\n"
      "\tsetp.ge.s32 %p1, %r1, %r5;\n"   // 1
      "\t@%p1 bra DONE;\n"               // 2  loop exit
      "\tadd.s32 %r1, %r1, 1;\n"         // 3
      "\tsetp.eq.s32 %p2, %r1, 3;\n"     // 4
      "\t@%p2 bra HEAD;\n"               // 5  continue
      "\tsetp.eq.s32 %p3, %r1, 7;\n"     // 6
      "\t@%p3 bra DONE;\n"               // 7  break
      "\tbra.uni HEAD;\n"                // 8
      "DONE:\n"
      "\tret;");                         // 9
  EXPECT_EQ(f.insts[2].reconv, 9u);
  EXPECT_EQ(f.insts[5].reconv, 9u);  // the fall-through path may still break out
  EXPECT_EQ(f.insts[7].reconv, 9u);
  EXPECT_EQ(f.insts[8].reconv, 1u);

  Function g = analysed(
      "HEAD:\n"
      "\tsetp.ge.s32 %p1, %r1, %r5;\n"   // 0
      "\t@%p1 bra DONE;\n"               // 1
      "\tadd.s32 %r1, %r1, 1;\n"         // 2
      "\tsetp.eq.s32 %p2, %r1, 3;\n"     // 3
      "\t@%p2 bra HEAD;\n"               // 4  continue
      "\tadd.s32 %r2, %r2, 1;\n"         // 5
      "\tbra.uni HEAD;\n"                // 6
      "DONE:\n"
      "\tret;");                         // 7
  EXPECT_EQ(g.insts[1].reconv, 7u);
  EXPECT_EQ(g.insts[4].reconv, 0u);  // both paths come back to the loop head
}

TEST(PtxCfg, EarlyExitsReconvergeAtTheVirtualExit) {
  Function f = analysed(
      "\tsetp.eq.s32 %p1, %r1, 0;\n"     // 0
      "\t@%p1 bra SKIP;\n"               // 1
      "\tsetp.gt.s32 %p2, %r1, 5;\n"     // 2
      "\t@%p2 ret;\n"                    // 3  some lanes leave here
      "\tadd.s32 %r2, %r2, 1;\n"         // 4
      "SKIP:\n"
      "\tst.global.u32 [%rd1], %r2;\n"   // 5
      "\tret;");                         // 6
  EXPECT_EQ(f.insts[1].reconv, 7u);  // insts.size(): the path through `@%p2 ret` never reaches SKIP

  Function g = analysed(
      "\tsetp.eq.s32 %p1, %r1, 0;\n"   // 0
      "\t@%p1 bra THEN;\n"             // 1
      "\tadd.s32 %r2, %r2, 1;\n"       // 2
      "\tbra.uni JOIN;\n"              // 3
      "THEN:\n"
      "\texit;\n"                      // 4
      "JOIN:\n"
      "\tst.global.u32 [%rd1], %r2;\n" // 5
      "\tret;");                       // 6
  EXPECT_EQ(g.insts[1].reconv, 7u);
  EXPECT_EQ(g.insts[3].reconv, 5u);
}

TEST(PtxCfg, ImplicitReturnIsAppended) {
  Function f = analysed(
      "\t@%p1 bra END;\n"          // 0
      "\tadd.s32 %r1, %r1, 1;\n"   // 1
      "END:");
  ASSERT_EQ(f.insts.size(), 3u);
  EXPECT_EQ(f.insts[2].op, Opcode::Ret);
  EXPECT_EQ(f.insts[0].ops[0].imm, 2u);
  EXPECT_EQ(f.insts[0].reconv, 2u);

  Function g = analysed("\tadd.s32 %r1, %r1, 1;");
  ASSERT_EQ(g.insts.size(), 2u);
  EXPECT_EQ(g.insts[1].op, Opcode::Ret);

  Function h = analysed("\t@%p1 ret;");  // a guarded ret can fall through
  ASSERT_EQ(h.insts.size(), 2u);

  Function empty = analysed("");
  ASSERT_EQ(empty.insts.size(), 1u);
  EXPECT_EQ(empty.insts[0].op, Opcode::Ret);

  Function done = analysed("\tret;");
  EXPECT_EQ(done.insts.size(), 1u);
  analyze_reconvergence(done);  // idempotent
  EXPECT_EQ(done.insts.size(), 1u);
}

TEST(PtxCfg, EndlessLoopReconvergesAtTheExit) {
  Function f = analysed(
      "\t@%p1 bra SPIN;\n"   // 0
      "\tret;\n"             // 1
      "SPIN:\n"
      "\tbra.uni SPIN;");    // 2
  ASSERT_EQ(f.insts.size(), 3u);
  EXPECT_EQ(f.insts[0].reconv, 3u);
  EXPECT_EQ(f.insts[2].reconv, 3u);
}

std::string module_error(const std::string& text) {
  try {
    Module m = parse_ptx(text, "m.ptx");
    analyze_module(m);
  } catch (const LoadError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(PtxCfg, AnalyzeModuleChecksCalls) {
  const std::string callee =
      ".func (.param .b32 r) f(.param .b32 a, .param .b32 b)\n{\n\tst.param.b32 [r], 0;\n\tret;\n}\n";
  const std::string good = std::string(test::kHeader) + callee +
                           ".entry k()\n{\n\t{\n\t.param .b32 p0;\n\t.param .b32 p1;\n\t.param .b32 r0;\n"
                           "\tcall.uni (r0), f, (p0, p1);\n\t}\n\tret;\n}\n";
  EXPECT_EQ(module_error(good), "(no error)");
  std::string missing_arg = good;
  missing_arg.replace(missing_arg.find("(p0, p1)"), 8, "(p0)");
  EXPECT_EQ(module_error(missing_arg),
            "m.ptx:15: call to 'f' passes 1 argument(s) and 1 return value(s), it declares 2 and 1");
  const std::string calls_kernel = std::string(test::kHeader) +
                                   ".entry g()\n{\n\tret;\n}\n"
                                   ".entry k()\n{\n\tcall.uni g, ();\n\tret;\n}\n";
  EXPECT_EQ(module_error(calls_kernel), "m.ptx:10: call to kernel 'g' (kernels cannot be called)");
  const std::string undefined = std::string(test::kHeader) + ".entry k()\n{\n\tcall.uni nothere, ();\n\tret;\n}\n";
  EXPECT_EQ(module_error(undefined), "m.ptx:6: undefined symbol 'nothere'");
}

TEST(PtxCfg, AnalyzeModuleAnnotatesEveryFunction) {
  const std::string text = std::string(test::kHeader) +
                           ".func f()\n{\n\t.reg .pred %p<2>;\n\t@%p1 bra L;\n\tL:\n}\n"
                           ".entry k()\n{\n\tcall.uni f, ();\n}\n";
  Module m = parse_ptx(text, "m.ptx");
  analyze_module(m);
  ASSERT_EQ(m.functions[0].insts.size(), 2u);
  EXPECT_EQ(m.functions[0].insts[0].reconv, 1u);
  EXPECT_EQ(m.functions[1].insts.back().op, Opcode::Ret);
}

}  // namespace
}  // namespace gpumux::ptx
