#include "gpumux/ptx/check.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "ptx_test_util.h"

namespace gpumux::ptx {
namespace {

TEST(PtxCheck, ReportsKernelsParametersAndResources) {
  std::ostringstream out;
  EXPECT_TRUE(check_ptx_file(test::corpus_dir() + "/gemm_tiled.ptx", out));
  const std::string s = out.str();
  EXPECT_NE(s.find("gemm_tiled.ptx: PTX 9.0, target sm_80, 64-bit addresses, 2 kernel(s), 0 other function(s)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("  kernel sgemm_tiled\n"), std::string::npos) << s;
  EXPECT_NE(s.find("    param sgemm_tiled_param_0: .u64, 8 bytes at offset 0\n"), std::string::npos) << s;
  EXPECT_NE(s.find("    param sgemm_tiled_param_7: .f32, 4 bytes at offset 40\n"), std::string::npos) << s;
  EXPECT_NE(s.find("2112 bytes static shared, 0 bytes local/thread, 44 bytes of parameters, "
                   "dynamic shared memory: no"),
            std::string::npos)
      << s;
  EXPECT_EQ(s.find("unsupported"), std::string::npos) << s;
}

TEST(PtxCheck, ListsDeviceFunctionsAndUnsupportedConstructs) {
  std::ostringstream builtins;
  EXPECT_TRUE(check_ptx_file(test::corpus_dir() + "/printf_assert.ptx", builtins));
  EXPECT_NE(builtins.str().find("  external function vprintf (2 parameter(s), 1 return value(s))"),
            std::string::npos)
      << builtins.str();

  std::ostringstream out;
  const std::string path = test::corpus_dir() + "/unsupported_surface.ptx";
  EXPECT_FALSE(check_ptx_file(path, out));
  const std::string s = out.str();
  EXPECT_NE(s.find(path + ":51: unsupported: sured.b.add.1d.u32.trap (surface)\n"), std::string::npos) << s;

  std::ostringstream dev;
  EXPECT_TRUE(check_ptx_file(test::corpus_dir() + "/device_funcs.ptx", dev));
  EXPECT_NE(dev.str().find("  device function _Z3fibj (1 parameter(s), 1 return value(s))"), std::string::npos);
  EXPECT_NE(dev.str().find("(recursive: more at run time)"), std::string::npos);
}

// The engine's report is appended, except for lines the parser already reported.
TEST(PtxCheck, ReportsWhatTheEngineCannotRun) {
  const std::string text = test::kernel_with(
      "\tadd.s32 %r1, %r2, 1;\n\tsured.b.add.1d.u32.trap [%rd1, {%r1}], %r2;\n\tret;");
  const EngineCheck engine = [](Module&) {
    return std::vector<Unsupported>{{15, "add: not this one"}, {16, "sured: reported by the parser"}};
  };
  std::ostringstream out;
  EXPECT_FALSE(check_ptx_text(text, "e.ptx", out, engine));
  const std::string s = out.str();
  EXPECT_NE(s.find("e.ptx:15: unsupported instruction add: not this one\n"), std::string::npos) << s;
  EXPECT_NE(s.find("e.ptx:16: unsupported: sured.b.add.1d.u32.trap (surface)\n"), std::string::npos) << s;
  EXPECT_EQ(s.find("reported by the parser"), std::string::npos) << s;

  std::ostringstream clean;
  EXPECT_TRUE(check_ptx_text(test::kernel_with("\tret;"), "ok.ptx", clean,
                             [](Module&) { return std::vector<Unsupported>{}; }));
}

TEST(PtxCheck, PrintsErrorsInsteadOfThrowing) {
  std::ostringstream out;
  EXPECT_FALSE(check_ptx_text(test::kernel_with("\tadd.s32 %r1, %r2, %bogus;"), "e.ptx", out));
  EXPECT_EQ(out.str(), "e.ptx:15: undefined register '%bogus'\n");
  std::ostringstream missing;
  EXPECT_FALSE(check_ptx_file("/nonexistent/x.ptx", missing));
  EXPECT_EQ(missing.str(), "/nonexistent/x.ptx: cannot read the file\n");
}

TEST(PtxCheck, LoadPtxRejectsUnsupportedModules) {
  EXPECT_NO_THROW(load_ptx(test::kernel_with("\tret;"), "ok.ptx"));
  try {
    load_ptx(test::kernel_with("\tsured.b.add.1d.u32.trap [%rd1, {%r1}], %r2;\n\tret;"), "t.ptx");
    FAIL() << "load_ptx accepted a surface reduction";
  } catch (const LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("t.ptx:15: unsupported: sured.b.add.1d.u32.trap (surface)"),
              std::string::npos);
  }
}

int run_cli(const std::string& args) {
  const std::string cmd = std::string(GPUMUX_BINARY) + " ptx check " + args + " > /dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(PtxCheck, CommandLineExitCode) {
  const std::string dir = test::corpus_dir();
  EXPECT_EQ(run_cli(dir + "/gemm_tiled.ptx " + dir + "/bfs.ptx"), 0);
  EXPECT_EQ(run_cli(dir + "/gemm_tiled.ptx " + dir + "/unsupported_surface.ptx"), 1);
}

// PTX that parses but that the engine cannot bind: the command reports each
// such instruction and fails.
TEST(PtxCheck, CommandLineReportsInstructionsTheEngineCannotBind) {
  const std::string path = ::testing::TempDir() + "/unbindable.ptx";
  std::ofstream(path) << test::kernel_with(
      "\tshfl.sync.idx.b64 %rd1, %rd2, %r1, 31, -1;\n\tatom.global.inc.f32 %f1, [%rd1], %f2;\n\tret;");
  EXPECT_TRUE(parse_ptx(test::read_file(path), path).unsupported.empty());
  const std::string out_path = path + ".out";
  const std::string cmd = std::string(GPUMUX_BINARY) + " ptx check " + path + " > " + out_path + " 2>&1";
  const int status = std::system(cmd.c_str());
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 1);
  const std::string s = test::read_file(out_path);
  EXPECT_NE(s.find(path + ":15: unsupported instruction shfl: shfl is defined on 32-bit values only\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find(path + ":16: unsupported instruction atom: atomic operation not defined on "
                          "floating-point types\n"),
            std::string::npos)
      << s;
}

}  // namespace
}  // namespace gpumux::ptx
