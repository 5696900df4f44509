// Streams a kernel creates for its child launches (tests/coverage/device_streams.cu):
// launches into one stream run in order on both backends, and a stream
// created without cudaStreamNonBlocking is refused with cudaErrorInvalidValue.
#include <gtest/gtest.h>

#include <filesystem>

#include "backends_test_util.h"
#include "file_test_util.h"

namespace gpumux::test {
namespace {

TEST(DeviceStreams, ChildrenInAKernelsStreamRunInOrder) {
  static const std::string ptx =
      read_file(std::filesystem::path(GPUMUX_SOURCE_DIR) / "tests/coverage/device_streams.ptx");
  constexpr int kThreads = 4;
  on_both_backends("device_streams", [&](runtime::Context& ctx) {
    runtime::Module& mod = ctx.load_module_string(ptx, "device_streams.ptx");
    runtime::DevPtr out = ctx.malloc(kThreads * 32 * 4), status = ctx.malloc(kThreads * 4);
    ctx.launch(mod.kernel("streams_parent"), {1}, {kThreads}, out, status);
    ctx.synchronize();
    const std::vector<int32_t> got = read_back<int32_t>(ctx, out, kThreads * 32);
    const std::vector<int32_t> st = read_back<int32_t>(ctx, status, kThreads);
    for (int t = 0; t < kThreads; ++t) {
      EXPECT_EQ(st[size_t(t)], 10) << "thread " << t;  // blocking stream refused (1), destroy succeeded (0)
      for (int j = 0; j < 32; ++j) ASSERT_EQ(got[size_t(t * 32 + j)], 2 * (t * 100 + j)) << t << " " << j;
    }
  });
}

}  // namespace
}  // namespace gpumux::test
