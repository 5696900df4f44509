#include "gpumux/ptx/resources.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "gpumux/ptx/cfg.h"
#include "ptx_test_util.h"

namespace gpumux::ptx {
namespace {

Module analysed_module(const std::string& text) {
  Module m = parse_ptx(text, "r.ptx");
  analyze_module(m);
  return m;
}

const Function& kernel(const Module& m, const std::string& name = "k") {
  const Function* f = m.find_function(name);
  if (!f) throw std::runtime_error("no function " + name);
  return *f;
}

// `n` values of `type` loaded, all live at once, then summed and stored.
std::string many_live_values(unsigned n, const char* type, const char* reg) {
  std::string body = fmt::format("\t.reg .{} %{}<{}>;\n\tld.param.u64 %rd13, [k_param_0];\n", type, reg, n + 2);
  for (unsigned i = 1; i <= n; ++i)
    body += fmt::format("\tld.global.{} %{}{}, [%rd13+{}];\n", type, reg, i, 8 * i);
  body += fmt::format("\tadd.{0} %{1}{2}, %{1}1, %{1}2;\n", type, reg, n + 1);
  for (unsigned i = 3; i <= n; ++i) body += fmt::format("\tadd.{0} %{1}{2}, %{1}{2}, %{1}{3};\n", type, reg, n + 1, i);
  body += fmt::format("\tst.global.{} [%rd13], %{}{};\n\tret;", type, reg, n + 1);
  return body;
}

TEST(PtxResources, RegistersFollowThePeakLiveSet) {
  // 12 live 64-bit values plus the 64-bit base address: 26 units -> 32.
  Module m64 = analysed_module(test::kernel_with(many_live_values(12, "u64", "x")));
  EXPECT_EQ(estimate_resources(m64, kernel(m64)).registers, 32u);
  // 20 live 32-bit values plus the base: 22 units -> 24.
  Module m32 = analysed_module(test::kernel_with(many_live_values(20, "u32", "y")));
  EXPECT_EQ(estimate_resources(m32, kernel(m32)).registers, 24u);
  // Small kernels get the minimum, huge ones the cap.
  Module tiny = analysed_module(test::kernel_with("\tret;"));
  EXPECT_EQ(estimate_resources(tiny, kernel(tiny)).registers, 16u);
  Module huge = analysed_module(test::kernel_with(many_live_values(200, "u64", "z")));
  EXPECT_EQ(estimate_resources(huge, kernel(huge)).registers, 255u);
}

TEST(PtxResources, PredicatesAreNotCountedAndGuardedWritesDoNotEndLiveness) {
  std::string preds = "\t.reg .pred %q<40>;\n";
  for (int i = 1; i < 40; ++i) preds += fmt::format("\tsetp.eq.s32 %q{}, %r1, {};\n", i, i);
  for (int i = 1; i < 40; ++i) preds += fmt::format("\t@%q{} st.global.u32 [%rd1], %r1;\n", i);
  Module p = analysed_module(test::kernel_with(preds + "\tret;"));
  EXPECT_EQ(estimate_resources(p, kernel(p)).registers, 16u);

  // Each loaded %xi is redefined under a guard just before its store: lanes
  // with the guard false keep the loaded value, so all 18 loaded values (plus
  // %rd1) stay live together. An unguarded mov would end them at once.
  std::string body = "\t.reg .b32 %x<20>;\n";
  for (int i = 1; i < 19; ++i) body += fmt::format("\tld.global.u32 %x{}, [%rd1+{}];\n", i, 4 * i);
  for (int i = 1; i < 19; ++i)
    body += fmt::format("\t@%p1 mov.u32 %x{0}, {0};\n\tst.global.u32 [%rd1], %x{0};\n", i);
  Module g = analysed_module(test::kernel_with(body + "\tret;"));
  EXPECT_EQ(estimate_resources(g, kernel(g)).registers, 24u);  // 18 + 2 = 20 units
}

const std::string kCalls = std::string(test::kHeader) +
                           ".func g()\n{\n\t.local .align 8 .b8 depot_g[64];\n\tret;\n}\n"
                           ".func f()\n{\n\t.local .align 16 .b8 depot_f[20];\n"
                           "\tcall.uni g, ();\n\tret;\n}\n"
                           ".func h()\n{\n\t.local .align 4 .b8 depot_h[8];\n\tcall.uni h, ();\n\tret;\n}\n"
                           ".entry k(.param .u64 a, .param .align 8 .b8 s[24])\n{\n"
                           "\t.local .align 4 .b8 depot_k[16];\n"
                           "\tcall.uni f, ();\n\tcall.uni g, ();\n\tret;\n}\n"
                           ".entry r()\n{\n\tcall.uni h, ();\n\tret;\n}\n";

TEST(PtxResources, LocalMemoryFollowsTheDeepestCallChain) {
  Module m = analysed_module(kCalls);
  EXPECT_EQ(kernel(m, "f").local_bytes, 20u);
  KernelResources k = estimate_resources(m, kernel(m, "k"));
  EXPECT_EQ(k.local_bytes, 16u + 20u + 64u);
  EXPECT_FALSE(k.recursion);
  EXPECT_EQ(k.param_bytes, 32u);
  EXPECT_EQ(k.static_smem, 0u);
  EXPECT_FALSE(k.dynamic_smem);
  KernelResources r = estimate_resources(m, kernel(m, "r"));
  EXPECT_TRUE(r.recursion);
  EXPECT_GE(r.local_bytes, 8u);
}

TEST(PtxResources, LongCallChains) {
  // f0 calls f1 calls ... f2999: walked without deep recursion.
  std::string text = test::kHeader;
  const int n = 3000;
  for (int i = n - 1; i >= 0; --i) {
    text += fmt::format(".func f{}()\n{{\n\t.local .align 4 .b8 d[4];\n", i);
    if (i + 1 < n) text += fmt::format("\tcall.uni f{}, ();\n", i + 1);
    text += "\tret;\n}\n";
  }
  text += ".entry k()\n{\n\tcall.uni f0, ();\n\tret;\n}\n";
  Module m = analysed_module(text);
  KernelResources r = estimate_resources(m, kernel(m));
  EXPECT_EQ(r.local_bytes, 4u * n);
  EXPECT_FALSE(r.recursion);
}

TEST(PtxResources, CalleeRegisterNeedsCount) {
  std::string text = std::string(test::kHeader) +
                     ".func heavy(.param .b64 p)\n{\n\t.reg .b64 %rd<16>;\n\t.reg .u64 %x<20>;\n"
                     "\tld.param.u64 %rd13, [p];\n";
  std::string loads = many_live_values(12, "u64", "x");
  loads = loads.substr(loads.find("\tld.global"));  // reuse the loads, sum and store
  text += loads + "\n}\n.entry k(.param .u64 k_param_0)\n{\n\t{\n\t.param .b64 param0;\n"
                  "\tcall.uni heavy, (param0);\n\t}\n\tret;\n}\n";
  Module m = analysed_module(text);
  EXPECT_EQ(estimate_resources(m, kernel(m)).registers, 32u);
}

TEST(PtxResources, SharedLayout) {
  const std::string text = std::string(test::kHeader) +
                           ".shared .align 4 .b8 a[10];\n"
                           ".shared .align 8 .b8 unused[16];\n"
                           ".shared .align 16 .b8 c[4];\n"
                           ".extern .shared .align 32 .b8 dyn[];\n"
                           ".func f()\n{\n\t.shared .align 8 .b8 e[8];\n\t.reg .b32 %r<2>;\n"
                           "\tld.shared.u32 %r1, [c];\n\tret;\n}\n"
                           ".entry k()\n{\n\t.shared .align 4 .b8 d[12];\n\t.reg .b32 %r<4>;\n"
                           "\tmov.u32 %r1, a;\n\tmov.u32 %r2, dyn;\n\tld.shared.u32 %r3, [d+4];\n"
                           "\tcall.uni f, ();\n\tret;\n}\n"
                           ".entry plain()\n{\n\tret;\n}\n";
  Module m = analysed_module(text);
  const Function& k = kernel(m);
  SharedLayout l = layout_shared(m, k);
  const uint32_t a = m.global_index.at("a"), unused = m.global_index.at("unused"),
                 c = m.global_index.at("c"), dyn = m.global_index.at("dyn");
  EXPECT_EQ(l.module_offset[a], 0u);
  EXPECT_EQ(l.module_offset[unused], kNoSharedOffset);
  EXPECT_EQ(l.module_offset[c], 16u);
  EXPECT_EQ(l.local_offset[0][0], 24u);  // f's e (functions in index order)
  EXPECT_EQ(l.local_offset[1][0], 32u);  // k's d
  EXPECT_EQ(l.static_bytes, 44u);
  EXPECT_EQ(l.dynamic_offset, 64u);
  EXPECT_EQ(l.module_offset[dyn], 64u);
  EXPECT_TRUE(l.uses_dynamic);
  KernelResources r = estimate_resources(m, k);
  EXPECT_EQ(r.static_smem, 44u);
  EXPECT_TRUE(r.dynamic_smem);

  SharedLayout p = layout_shared(m, kernel(m, "plain"));
  EXPECT_EQ(p.static_bytes, 0u);
  EXPECT_EQ(p.dynamic_offset, 0u);
  EXPECT_FALSE(p.uses_dynamic);
  EXPECT_EQ(p.local_offset[0][0], kNoSharedOffset);
}

// ptxas -v register counts of the corpus kernels, or empty without ptxas.
std::map<std::string, unsigned> ptxas_registers(const std::string& ptx) {
  std::map<std::string, unsigned> out;
  const std::string cmd = "/usr/local/cuda/bin/ptxas -arch=sm_80 -v -o /dev/null '" + ptx + "' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char line[512];
  std::string current;
  while (fgets(line, sizeof line, p)) {
    std::string s = line;
    size_t q = s.find("Compiling entry function '");
    if (q != std::string::npos) {
      q += 26;
      current = s.substr(q, s.find('\'', q) - q);
    }
    size_t u = s.find("Used ");
    if (u != std::string::npos && !current.empty()) out[current] = unsigned(std::stoul(s.substr(u + 5)));
  }
  pclose(p);
  return out;
}

TEST(PtxResources, RegisterEstimateIsWithinTwoXOfPtxas) {
  if (!std::filesystem::exists("/usr/local/cuda/bin/ptxas")) GTEST_SKIP() << "ptxas not installed";
  double log_sum = 0;
  unsigned kernels = 0;
  for (const auto& e : std::filesystem::directory_iterator(test::corpus_dir())) {
    // The unsupported_* samples lose their unsupported instructions: not comparable.
    if (e.path().extension() != ".ptx" || e.path().filename().string().rfind("unsupported_", 0) == 0)
      continue;
    const std::string path = e.path().string();
    Module m = analysed_module(test::read_file(path));
    std::map<std::string, unsigned> ref = ptxas_registers(path);
    ASSERT_FALSE(ref.empty()) << "ptxas failed on " << path;
    for (const Function& f : m.functions) {
      if (!f.is_entry) continue;
      ASSERT_TRUE(ref.count(f.name)) << f.name;
      const double ratio = double(estimate_resources(m, f).registers) / ref[f.name];
      EXPECT_GE(ratio, 0.5) << f.name << " in " << path << ": ptxas uses " << ref[f.name];
      EXPECT_LE(ratio, 2.0) << f.name << " in " << path << ": ptxas uses " << ref[f.name];
      log_sum += std::log(ratio);
      ++kernels;
    }
  }
  ASSERT_GE(kernels, 50u);
  const double geo_mean = std::exp(log_sum / kernels);
  EXPECT_GT(geo_mean, 0.8);
  EXPECT_LT(geo_mean, 1.35);
}

}  // namespace
}  // namespace gpumux::ptx
