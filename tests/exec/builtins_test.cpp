// The engine's built-in device functions (exec/builtins/): printf, assert,
// malloc and free, run from nvcc-compiled kernels (kernels/builtins.cu).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/exec/builtins/registry.h"
#include "gpumux/exec/builtins/services.h"
#include "gpumux/ptx/builtins.h"
#include "gpumux/runtime/runtime.h"

namespace gpumux {
namespace {

using runtime::DevPtr;

class Builtins : public ::testing::Test {
 protected:
  Builtins() {
    ctx.set_printf_sink([this](std::string_view s) { printed.emplace_back(s); });
  }
  std::string all_printed() const {
    std::string s;
    for (const std::string& p : printed) s += p;
    return s;
  }
  runtime::Device dev;
  runtime::Context& ctx = dev.create_context("test");
  runtime::Module& mod =
      ctx.load_module_file(std::string(GPUMUX_SOURCE_DIR) + "/tests/exec/kernels/builtins.ptx");
  std::vector<std::string> printed;
};

TEST(BuiltinRegistry, MatchesThePtxLayersList) {
  std::vector<std::string_view> engine, ptx_names(ptx::kBuiltinFunctions.begin(),
                                                  ptx::kBuiltinFunctions.end());
  for (const exec::Builtin& b : exec::all_builtins()) {
    engine.push_back(b.name);
    EXPECT_TRUE(ptx::is_builtin_function(b.name)) << b.name;
    EXPECT_NE(b.handler, nullptr) << b.name;
  }
  std::sort(engine.begin(), engine.end());
  std::sort(ptx_names.begin(), ptx_names.end());
  EXPECT_EQ(engine, ptx_names);
  EXPECT_EQ(exec::find_builtin("printf"), nullptr);
  EXPECT_FALSE(ptx::is_builtin_function("cudaLaunchDeviceV2"));
}

TEST_F(Builtins, PrintfFormatsEveryConversionLikeC) {
  const std::string word = "hello";
  DevPtr dword = ctx.malloc(word.size() + 1), ret = ctx.malloc(2 * 4);
  ctx.memcpy_h2d(dword, word.c_str(), word.size() + 1);
  ctx.launch(mod.kernel("printf_formats"), {1}, {2}, dword, ret);
  ASSERT_EQ(printed.size(), 2u);  // one sink call per thread
  EXPECT_EQ(printed[0],
            "t0: 0 4000000000 ff FF 10 a hello  0.00 1.234568e+04 0.0001 -1234567890123 "
            "-2469135780246 7 fedcba9876543210|0     |0002.2|+0|hel|%\n");
  EXPECT_EQ(printed[1],
            "t1: -1 4000000001 100 100 11 b hello  3.14 2.469136e+04 0.0002 -2469135780246 "
            "-4938271560492 8 fedcba9876543211|1     |0003.2|+1|hel|%\n");
  // printf returns the number of arguments it consumed.
  EXPECT_EQ(ctx.read<int>(ret, 2), (std::vector<int>{19, 19}));
}

TEST_F(Builtins, PrintfOutputFollowsLaneOrderPerWarpInstruction) {
  ctx.launch(mod.kernel("printf_divergent"), {2}, {40}, 70);
  std::string want;
  for (int b = 0; b < 2; ++b)
    for (int w = 0; w < 2; ++w) {
      for (int l = 0; l < 32 && w * 32 + l < 40; ++l) {
        const int t = b * 40 + w * 32 + l;
        if (t % 3 == 0 && t < 70) want += fmt::format("block {} thread {}\n", b, w * 32 + l);
      }
      if (b == 0 && w == 0) want += "no arguments\n";
    }
  EXPECT_EQ(all_printed(), want);
}

TEST_F(Builtins, PrintfPointerIsHex) {
  DevPtr p = ctx.malloc(16);
  ctx.launch(mod.kernel("printf_pointer"), {1}, {1}, p);
  EXPECT_EQ(all_printed(), fmt::format("[0x{:x}]\n", p));
}

TEST_F(Builtins, FailedAssertFaultsNamingTheAssertion) {
  std::vector<int> x(64, 1);
  x[37] = -4;
  DevPtr dx = ctx.malloc_copy(x);
  try {
    ctx.launch(mod.kernel("checked_increment"), {1}, {64}, dx);
    FAIL() << "the assert did not fire";
  } catch (const DeviceFault& e) {
    EXPECT_EQ(e.reason(),
              "assertion failed: x[threadIdx.x] >= 0 at builtins.cu:27 in void "
              "checked_increment(int *)");
    EXPECT_EQ(e.site().kernel, "checked_increment");
    EXPECT_EQ(e.site().warp, 1u);
    EXPECT_EQ(e.site().lane, 5u);
    EXPECT_EQ(e.site().source.line, 27u);
  }
}

TEST_F(Builtins, MallocFreeRoundTrip) {
  const int threads = 96, n = 10;
  DevPtr slots = ctx.malloc(threads * 8), sums = ctx.malloc(threads * 4);
  ctx.launch(mod.kernel("heap_fill"), {2}, {48}, slots, n);
  std::vector<uint64_t> ptrs = ctx.read<uint64_t>(slots, threads);
  std::sort(ptrs.begin(), ptrs.end());
  EXPECT_NE(ptrs.front(), 0u);
  EXPECT_EQ(std::adjacent_find(ptrs.begin(), ptrs.end()), ptrs.end());  // distinct blocks
  EXPECT_EQ(ctx.builtin_services().heap_used(), uint64_t(threads) * 48);  // 40 B in 16 B granules
  ctx.launch(mod.kernel("heap_sum_free"), {2}, {48}, slots, n, sums);
  std::vector<int> s = ctx.read<int>(sums, threads);
  for (int t = 0; t < threads; ++t) ASSERT_EQ(s[t], 1000 * t + 45) << t;
  EXPECT_EQ(ctx.builtin_services().heap_used(), 0u);
}

TEST_F(Builtins, MallocReturnsNullBeyondTheHeapLimit) {
  EXPECT_EQ(exec::BuiltinServices::kDefaultHeapLimit, 8u << 20);  // CUDA's default
  ctx.set_device_heap_limit(1024);
  DevPtr slots = ctx.malloc(32 * 8);
  ctx.launch(mod.kernel("heap_fill"), {1}, {32}, slots, 100);  // 400 B each: two fit
  std::vector<uint64_t> p = ctx.read<uint64_t>(slots, 32);
  EXPECT_NE(p[0], 0u);
  EXPECT_NE(p[1], 0u);
  for (int t = 2; t < 32; ++t) EXPECT_EQ(p[t], 0u) << t;
}

TEST_F(Builtins, DoubleFreeFaults) {
  DevPtr slots = ctx.malloc(32 * 8);
  ctx.launch(mod.kernel("heap_fill"), {1}, {32}, slots, 4);
  const uint64_t first = ctx.read<uint64_t>(slots, 1)[0];
  try {
    ctx.launch(mod.kernel("heap_free_twice"), {1}, {32}, slots);
    FAIL() << "double free not detected";
  } catch (const DeviceFault& e) {
    EXPECT_EQ(e.reason(), fmt::format("free of 0x{:x}, which is not a live block of device malloc", first));
    EXPECT_EQ(e.site().lane, 0u);
  }
}

// Calls the engine cannot bind are rejected when the module loads.
std::string module_calling(const std::string& decl, const std::string& call) {
  return ".version 9.0\n.target sm_80\n.address_size 64\n" + decl +
         "\n.visible .entry k()\n{\n\t.reg .b64 %rd<4>;\n"
         "\t{\n\t.param .b64 param0;\n\tst.param.b64 [param0+0], 0;\n" +
         call + "\n\t}\n\tret;\n}\n";
}

TEST_F(Builtins, BuiltinCalledWithTheWrongArityIsRejectedAtLoad) {
  const std::string text = module_calling(
      ".extern .func free\n(\n\t.param .b64 a,\n\t.param .b64 b\n)\n;",
      "\t.param .b64 param1;\n\tcall.uni free, (param0, param1);");
  try {
    ctx.load_module_string(text, "arity.ptx");
    FAIL() << "a two-argument free loaded";
  } catch (const LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("arity.ptx:17: unsupported instruction call: call to "
                                         "built-in free with 2 argument(s) and 0 return value(s), "
                                         "it takes 1 and returns nothing"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace gpumux
