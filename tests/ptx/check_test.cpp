#include "gpumux/ptx/check.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
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
  std::ostringstream out;
  const std::string path = test::corpus_dir() + "/unsupported_printf.ptx";
  EXPECT_FALSE(check_ptx_file(path, out));
  const std::string s = out.str();
  EXPECT_NE(s.find("  external function vprintf (2 parameter(s), 1 return value(s))"), std::string::npos) << s;
  EXPECT_NE(s.find(path + ":80: unsupported: call to external function vprintf (printf)\n"), std::string::npos)
      << s;

  std::ostringstream dev;
  EXPECT_TRUE(check_ptx_file(test::corpus_dir() + "/device_funcs.ptx", dev));
  EXPECT_NE(dev.str().find("  device function _Z3fibj (1 parameter(s), 1 return value(s))"), std::string::npos);
  EXPECT_NE(dev.str().find("(recursive: more at run time)"), std::string::npos);
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
    load_ptx(test::kernel_with("\ttex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}];\n\tret;"), "t.ptx");
    FAIL() << "load_ptx accepted a texture fetch";
  } catch (const LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("t.ptx:15: unsupported: tex.1d.v4.f32.s32 (texture)"),
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
  EXPECT_EQ(run_cli(dir + "/gemm_tiled.ptx " + dir + "/unsupported_texture.ptx"), 1);
}

}  // namespace
}  // namespace gpumux::ptx
