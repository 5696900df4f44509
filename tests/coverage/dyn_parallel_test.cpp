// Device-side launch (dynamic parallelism): the coverage program
// tests/coverage/dyn_parallel.cu on both backends against CPU references,
// the front end's parent-child ordering on the timing model, the launch
// limits and the device faults of bad device-runtime calls.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "backends_test_util.h"
#include "file_test_util.h"
#include "gpumux/exec/builtins/services.h"

namespace gpumux::test {
namespace {

const std::string& dyn_ptx() {
  static const std::string ptx =
      read_file(std::filesystem::path(GPUMUX_SOURCE_DIR) / "tests/coverage/dyn_parallel.ptx");
  return ptx;
}

runtime::Module& load(runtime::Context& ctx) { return ctx.load_module_string(dyn_ptx(), "dyn_parallel.ptx"); }

const std::vector<int32_t> kRowOffsets = {0, 0, 5, 135, 199, 200, 400, 401};

void run_rows(runtime::Context& ctx, runtime::Module& mod, runtime::DevPtr& out, runtime::DevPtr& lengths,
              std::vector<float>& in) {
  const int rows = int(kRowOffsets.size()) - 1, n = kRowOffsets.back();
  in.resize(n);
  for (int i = 0; i < n; ++i) in[i] = float(i % 17) - 3.0f;
  runtime::DevPtr offsets = upload(ctx, kRowOffsets), din = upload(ctx, in);
  out = ctx.malloc(n * 4);
  lengths = ctx.malloc(rows * 4);
  ctx.launch(mod.kernel("_Z11rows_parentPKiPKfPfPi"), {uint32_t(rows)}, {32}, offsets, din, out, lengths);
  ctx.synchronize();
}

// The subdivide kernel's CPU reference: the depth at which each element's leaf is written.
void subdivide_reference(std::vector<int32_t>& out, int lo, int hi, int depth, int leaf, int max_depth) {
  if (hi - lo <= leaf || depth >= max_depth) {
    for (int i = lo; i < hi; ++i) out[i] = i * 3 + depth * 1000;
    return;
  }
  const int mid = lo + (hi - lo) / 2;
  subdivide_reference(out, lo, mid, depth + 1, leaf, max_depth);
  subdivide_reference(out, mid, hi, depth + 1, leaf, max_depth);
}

TEST(CoverageRun, DynamicParallelismMatchesTheCpu) {
  on_both_backends("dyn_parallel", [&](runtime::Context& ctx) {
    runtime::Module& mod = load(ctx);
    {  // one child per block, sized to its row
      runtime::DevPtr out, lengths;
      std::vector<float> in;
      run_rows(ctx, mod, out, lengths, in);
      std::vector<float> got = read_back<float>(ctx, out, in.size());
      std::vector<int32_t> len = read_back<int32_t>(ctx, lengths, kRowOffsets.size() - 1);
      for (size_t r = 0; r + 1 < kRowOffsets.size(); ++r) {
        EXPECT_EQ(len[r], kRowOffsets[r + 1] - kRowOffsets[r]) << r;
        for (int i = kRowOffsets[r]; i < kRowOffsets[r + 1]; ++i)
          ASSERT_EQ(got[i], in[i] * float(r + 1) + float((i - kRowOffsets[r]) / 64)) << r << " " << i;
      }
    }
    {  // recursive subdivision: NULL stream and fire-and-forget children, 5 levels deep
      const int n = 1000, leaf = 40, max_depth = 5;
      runtime::DevPtr out = ctx.malloc(n * 4);
      ctx.launch(mod.kernel("_Z9subdividePiiiiii"), {1}, {32}, out, 0, n, 0, leaf, max_depth);
      ctx.synchronize();
      std::vector<int32_t> want(n);
      subdivide_reference(want, 0, n, 0, leaf, max_depth);
      EXPECT_EQ(read_back<int32_t>(ctx, out, n), want);
    }
    {  // children count into bins, a tail launch sums them
      const int n = 2000, chunk = 300, nbins = 16;
      std::vector<int32_t> keys(n);
      for (int i = 0; i < n; ++i) keys[i] = (i * 7919) % 1009;
      runtime::DevPtr dkeys = upload(ctx, keys), bins = ctx.malloc(nbins * 4), starts = ctx.malloc((nbins + 1) * 4);
      ctx.memset(bins, 0, nbins * 4);
      ctx.launch(mod.kernel("_Z16histogram_parentPKiiiPiS1_i"), {(n + chunk - 1) / chunk}, {32}, dkeys, n, chunk,
                 bins, starts, nbins);
      ctx.synchronize();
      std::vector<int32_t> count(nbins, 0), want(nbins + 1, 0);
      for (int k : keys) ++count[k % nbins];
      for (int b = 0; b < nbins; ++b) want[b + 1] = want[b] + count[b];
      EXPECT_EQ(read_back<int32_t>(ctx, bins, nbins), count);
      EXPECT_EQ(read_back<int32_t>(ctx, starts, nbins + 1), want);
    }
    {  // two dependent children in one block's NULL stream
      const int n = 300;
      std::vector<int32_t> in(n);
      for (int i = 0; i < n; ++i) in[i] = i - 150;
      runtime::DevPtr din = upload(ctx, in), tmp = ctx.malloc(n * 4), out = ctx.malloc(n * 4);
      ctx.launch(mod.kernel("_Z15pipeline_parentPKiPiS1_i"), {1}, {32}, din, tmp, out, n);
      ctx.synchronize();
      std::vector<int32_t> got = read_back<int32_t>(ctx, out, n);
      for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], in[i] * in[i] + (i + 1 < n ? in[i + 1] * in[i + 1] : 0)) << i;
    }
    {  // CUDA's deepest nesting: a host launch and 24 nested levels
      const int levels = 25;
      runtime::DevPtr depths = ctx.malloc(levels * 4);
      ctx.memset(depths, 0xff, levels * 4);
      ctx.launch(mod.kernel("_Z5chainPiii"), {1}, {1}, depths, 0, levels);
      ctx.synchronize();
      std::vector<int32_t> got = read_back<int32_t>(ctx, depths, levels), want(levels);
      for (int i = 0; i < levels; ++i) want[i] = i;
      EXPECT_EQ(got, want);
      EXPECT_EQ(ctx.builtin_services().pending_launches, 0u);
    }
  });
}

// Runs `launch` on a fresh context of each backend; expects a device fault
// in `kernel` whose reason contains `reason`.
void expect_device_fault(const std::function<void(runtime::Context&, runtime::Module&)>& launch,
                         const std::string& kernel, const std::string& reason) {
  on_both_backends("dyn_parallel", [&](runtime::Context& ctx) {
    runtime::Module& mod = load(ctx);
    try {
      launch(ctx, mod);
      ctx.synchronize();
      ADD_FAILURE() << "no device fault";
    } catch (const DeviceFault& e) {
      EXPECT_EQ(e.site().kernel, kernel) << e.what();
      EXPECT_NE(e.reason().find(reason), std::string::npos) << e.what();
    }
  });
}

TEST(DeviceLaunch, NestingDeeperThan24FaultsInTheLaunchingGrid) {
  expect_device_fault(
      [](runtime::Context& ctx, runtime::Module& mod) {
        ctx.launch(mod.kernel("_Z5chainPiii"), {1}, {1}, ctx.malloc(26 * 4), 0, 26);
      },
      "_Z5chainPiii", "device-side launch of _Z5chainPiii at nesting depth 25: the limit is 24");
}

TEST(DeviceLaunch, PendingLaunchLimitFaults) {
  expect_device_fault(
      [](runtime::Context& ctx, runtime::Module& mod) {
        ctx.builtin_services().pending_launch_limit = 3;
        runtime::DevPtr out, lengths;
        std::vector<float> in;
        run_rows(ctx, mod, out, lengths, in);  // 6 of its 7 blocks launch a child
      },
      "_Z11rows_parentPKiPKfPfPi", "3 launches are pending, the limit (cudaLimitDevRuntimePendingLaunchCount) is 3");
}

// Device-runtime calls a compiler would not emit, written by hand.
const char* kBadCalls = R"(
.version 9.0
.target sm_80
.address_size 64
.extern .func (.param .b64 func_retval0) __cudaCDP2GetParameterBufferV2
(.param .b64 p0, .param .align 4 .b8 p1[12], .param .align 4 .b8 p2[12], .param .b32 p3);
.extern .func (.param .b32 func_retval0) __cudaCDP2LaunchDeviceV2 (.param .b64 p0, .param .b64 p1);

.visible .entry child() { ret; }

// Launches `buffer` (0: a fresh one for child with `threads` threads) into `stream`.
.visible .entry launcher(.param .u64 buffer, .param .u64 stream, .param .u32 threads, .param .u64 kernel)
{
  .reg .b64 %rd<6>;
  .reg .b32 %r<3>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [buffer];
  ld.param.u64 %rd2, [stream];
  ld.param.u32 %r1, [threads];
  ld.param.u64 %rd4, [kernel];
  setp.ne.s64 %p1, %rd1, 0;
  @%p1 bra $launch;
  mov.u64 %rd3, child;
  setp.ne.s64 %p1, %rd4, 0;
  @%p1 mov.u64 %rd3, %rd4;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd3;
  .param .align 4 .b8 param1[12];
  st.param.b32 [param1+0], 1;
  st.param.b32 [param1+4], 1;
  st.param.b32 [param1+8], 1;
  .param .align 4 .b8 param2[12];
  st.param.b32 [param2+0], %r1;
  st.param.b32 [param2+4], 1;
  st.param.b32 [param2+8], 1;
  .param .b32 param3;
  st.param.b32 [param3+0], 0;
  .param .b64 retval0;
  call.uni (retval0), __cudaCDP2GetParameterBufferV2, (param0, param1, param2, param3);
  ld.param.b64 %rd1, [retval0+0];
  }
$launch:
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd1;
  .param .b64 param1;
  st.param.b64 [param1+0], %rd2;
  .param .b32 retval0;
  call.uni (retval0), __cudaCDP2LaunchDeviceV2, (param0, param1);
  ld.param.b32 %r2, [retval0+0];
  }
  ret;
}
)";

void expect_bad_call(uint64_t buffer, uint64_t stream, uint32_t threads, uint64_t kernel, const std::string& reason) {
  on_both_backends("bad_calls", [&](runtime::Context& ctx) {
    runtime::Module& mod = ctx.load_module_string(kBadCalls, "bad_calls.ptx");
    try {
      ctx.launch(mod.kernel("launcher"), {1}, {1}, buffer, stream, threads, kernel);
      ctx.synchronize();
      ADD_FAILURE() << "no device fault";
    } catch (const DeviceFault& e) {
      EXPECT_EQ(e.site().kernel, "launcher") << e.what();
      EXPECT_EQ(e.site().warp, 0u);
      EXPECT_EQ(e.site().lane, 0u);
      EXPECT_GT(e.site().pc, 0u);
      EXPECT_NE(e.reason().find(reason), std::string::npos) << e.what();
    }
  });
}

TEST(DeviceLaunch, BadDeviceRuntimeCallsFault) {
  expect_bad_call(0x1234, 0, 32, 0, "parameter buffer 0x1234, which is not a buffer from cudaGetParameterBuffer");
  expect_bad_call(0, 7, 32, 0, "stream 0x7: only the NULL stream, cudaStreamTailLaunch, cudaStreamFireAndForget and streams the kernel created");
  expect_bad_call(0, 0, 2048, 0, "illegal device-side launch of child with grid (1,1,1) block (2048,1,1)");
  expect_bad_call(0, 0, 32, 0xfff0000000000000ull + 99, "which is not the address of a kernel");
}

// The front end on the timing model: a parent completes after its children,
// a tail launch starts after the parent and its other children, and the two
// children of one block's NULL stream run one after the other.
TEST(DeviceLaunch, TimingModelOrdersChildrenAndParents) {
  std::unique_ptr<runtime::Device> dev = timing::make_device(gpu::load_config("gtx980").values());
  runtime::Context& ctx = dev->create_context("dp");
  runtime::Module& mod = load(ctx);
  const int n = 600, chunk = 200, nbins = 8;
  std::vector<int32_t> keys(n, 3);
  runtime::DevPtr dkeys = upload(ctx, keys), bins = ctx.malloc(nbins * 4), starts = ctx.malloc((nbins + 1) * 4);
  ctx.memset(bins, 0, nbins * 4);
  ctx.launch(mod.kernel("_Z16histogram_parentPKiiiPiS1_i"), {3}, {32}, dkeys, n, chunk, bins, starts, nbins);
  runtime::DevPtr tmp = ctx.malloc(n * 4), out = ctx.malloc(n * 4);
  ctx.launch(mod.kernel("_Z15pipeline_parentPKiPiS1_i"), {1}, {32}, dkeys, tmp, out, n);
  ctx.synchronize();
  const auto& recs = timing::backend_of(*dev).kernels();
  // Host launches are queued at once, children when their parent's TBs run.
  ASSERT_EQ(recs.size(), 2u + 3 + 1 + 2);
  const frontend::KernelRecord &hist = recs[0], &pipe = recs[1];
  EXPECT_EQ(hist.parent, frontend::KernelRecord::kNoParent);
  EXPECT_EQ(hist.depth, 0u);
  std::vector<const frontend::KernelRecord*> chunks, stages;
  const frontend::KernelRecord* tail = nullptr;
  for (size_t c = 2; c < recs.size(); ++c) {
    EXPECT_EQ(recs[c].depth, 1u);
    if (recs[c].name == "_Z11prefix_binsPKiPii") tail = &recs[c];
    (recs[c].parent == 0 ? chunks : stages).push_back(&recs[c]);
  }
  ASSERT_EQ(chunks.size(), 4u);
  ASSERT_EQ(stages.size(), 2u);
  ASSERT_NE(tail, nullptr);
  for (const frontend::KernelRecord* c : chunks) {
    EXPECT_GE(hist.finished, c->finished);
    if (c != tail) {
      EXPECT_GE(tail->activated, c->finished);
    }
  }
  EXPECT_EQ(hist.finished, tail->finished);
  // The host's next launch in the stream waits for the whole tree.
  EXPECT_GE(pipe.activated, hist.finished);
  const frontend::KernelRecord &sq = *stages[0], &add = *stages[1];
  EXPECT_EQ(sq.parent, 1u);
  EXPECT_EQ(sq.stream, add.stream);
  EXPECT_EQ(add.activated, sq.finished + timing::backend_of(*dev).gpu().config().frontend.device_launch_latency);
  EXPECT_EQ(pipe.finished, add.finished);
  EXPECT_EQ(ctx.builtin_services().pending_launches, 0u);
  // Reports and timelines put children on their own rows.
  EXPECT_EQ(frontend::queue_label(hist), "stream 0");
  EXPECT_EQ(frontend::queue_label(sq), "child grids, depth 1");
}

// Pinned: the simulated cycles of a small device-side launch tree on gtx980
// (rows_parent: 7 parent TBs, 6 children after device_launch_latency).
TEST(DeviceLaunch, PinnedCycles) {
  std::unique_ptr<runtime::Device> dev = timing::make_device(gpu::load_config("gtx980").values());
  runtime::Context& ctx = dev->create_context("dp");
  runtime::Module& mod = load(ctx);
  runtime::DevPtr out, lengths;
  std::vector<float> in;
  run_rows(ctx, mod, out, lengths, in);
  EXPECT_EQ(timing::backend_of(*dev).busy_cycles(), 4002u);
}

}  // namespace
}  // namespace gpumux::test
