// Replayed trace kernels on the functional backend (exec/replay.h,
// trace/replay_module.h): every recorded line runs once, barriers wait for
// every live thread, lanes exit at their EXIT lines.
#include <gtest/gtest.h>

#include "gpumux/exec/loaded_module.h"
#include "gpumux/runtime/runtime.h"
#include "gpumux/trace/replay_module.h"

namespace gpumux::trace {
namespace {

uint64_t replay_functionally(TraceKernel k) {
  runtime::Device dev;
  runtime::Context& ctx = dev.create_context("trace");
  const KernelHeader h = k.header;
  runtime::Module& m = ctx.add_module(replay_module(std::move(k)));
  ctx.launch(m.kernel(h.name), {h.grid[0], h.grid[1], h.grid[2]}, {h.block[0], h.block[1], h.block[2]}, 0, {},
             runtime::KernelArgs{});
  ctx.synchronize();
  return dev.backend().warp_instructions();
}

TEST(TraceReplay, HandWrittenFolderRunsEveryLine) {
  const std::string dir = std::string(GPUMUX_SOURCE_DIR) + "/tests/data/accelsim/raw-vecadd";
  TraceList l = read_trace_list(dir);
  ASSERT_EQ(l.list_file, "kernelslist");
  ASSERT_EQ(l.commands.size(), 3u);
  TraceKernel k = read_kernel_trace(l.dir / l.commands[2].file);
  EXPECT_EQ(k.family, IsaFamily::Turing);
  EXPECT_EQ(replay_functionally(std::move(k)), 4u * 2 * 13);
}

// Warp 1 reaches the barrier one line later than warp 0; half of warp 0's
// lanes exit before it, so the barrier counts 48 threads.
TEST(TraceReplay, BarriersAndPartialExits) {
  const std::string text =
      "-kernel name = b\n-grid dim = (1,1,1)\n-block dim = (64,1,1)\n-shmem = 0\n-nregs = 8\n"
      "-binary version = 80\n-accelsim tracer version = 4\n\n#BEGIN_TB\nthread block = 0,0,0\n"
      "warp = 0\ninsts = 3\n0000 0000ffff 0 EXIT 0 0\n0010 ffff0000 0 BAR.SYNC 0 0\n0020 ffff0000 0 EXIT 0 0\n"
      "warp = 1\ninsts = 3\n0040 ffffffff 1 R1 IADD3 0 0\n0010 ffffffff 0 BAR.SYNC 0 0\n0020 ffffffff 0 EXIT 0 0\n"
      "#END_TB\n";
  EXPECT_EQ(replay_functionally(parse_kernel_trace(text, "b.traceg")), 6u);
}

}  // namespace
}  // namespace gpumux::trace
