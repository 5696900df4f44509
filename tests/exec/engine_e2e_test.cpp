// End-to-end tests of the functional engine: real nvcc-generated kernels run
// through the runtime API and are compared with CPU references.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numeric>
#include <vector>

#include "gpumux/core/error.h"
#include "gpumux/runtime/runtime.h"

namespace gpumux {
namespace {

using runtime::DevPtr;

class EngineE2E : public ::testing::Test {
 protected:
  runtime::Device dev;
  runtime::Context& ctx = dev.create_context("test");
  runtime::Module& mod =
      ctx.load_module_file(std::string(GPUMUX_SOURCE_DIR) + "/tests/exec/kernels/engine_tests.ptx");
};

TEST_F(EngineE2E, VectorAddMatchesCpu) {
  const int n = 1000;  // not a multiple of the block: exercises the bounds check
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = 0.5f * i;
    b[i] = 3.0f - i;
  }
  DevPtr da = ctx.malloc_copy(a), db = ctx.malloc_copy(b), dc = ctx.malloc(n * 4);
  ctx.launch(mod.kernel("vecadd"), {(n + 127) / 128}, {128}, da, db, dc, n);
  auto c = ctx.read<float>(dc, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
}

TEST_F(EngineE2E, TiledMatmulMatchesCpu) {
  const int n = 40;  // partial tiles at the edges
  std::vector<float> A(n * n), B(n * n), ref(n * n, 0.f);
  for (int i = 0; i < n * n; ++i) {
    A[i] = float((i * 7) % 13) - 6.f;
    B[i] = float((i * 5) % 11) * 0.25f;
  }
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) {
      float acc = 0.f;
      for (int k = 0; k < n; ++k) acc += A[r * n + k] * B[k * n + c];
      ref[r * n + c] = acc;
    }
  DevPtr dA = ctx.malloc_copy(A), dB = ctx.malloc_copy(B), dC = ctx.malloc(n * n * 4);
  ctx.launch(mod.kernel("matmul_tiled"), {3, 3}, {16, 16}, dA, dB, dC, n);
  auto C = ctx.read<float>(dC, n * n);
  // Small integers times quarters: every partial sum is exact in f32.
  for (int i = 0; i < n * n; ++i) ASSERT_EQ(C[i], ref[i]) << i;
}

TEST_F(EngineE2E, ShuffleReductionMatchesCpu) {
  const int n = 5000;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37) % 101 - 50;
  DevPtr din = ctx.malloc_copy(in), dout = ctx.malloc(4);
  ctx.memset(dout, 0, 4);
  runtime::KernelArgs args;
  args.add(din).add(dout).add(n);
  ctx.launch(mod.kernel("reduce_sum"), {4}, {256}, 8 * sizeof(int), {}, args);
  EXPECT_EQ(ctx.read<int>(dout, 1)[0], std::accumulate(in.begin(), in.end(), 0));
}

TEST_F(EngineE2E, SharedAtomicHistogramMatchesCpu) {
  const int n = 7777;
  std::vector<unsigned char> data(n);
  std::vector<unsigned> ref(256, 0);
  for (int i = 0; i < n; ++i) {
    data[i] = (unsigned char)((i * i + 3 * i) % 251);
    ref[data[i]]++;
  }
  DevPtr dd = ctx.malloc_copy(data), db = ctx.malloc(256 * 4);
  ctx.memset(db, 0, 256 * 4);
  ctx.launch(mod.kernel("histogram"), {6}, {192}, dd, db, n);
  EXPECT_EQ(ctx.read<unsigned>(db, 256), ref);
}

TEST_F(EngineE2E, DivergentBfsMatchesCpu) {
  // A graph: a ring plus chords, as CSR.
  const int n = 300;
  std::vector<std::vector<int>> adj(n);
  for (int v = 0; v < n; ++v) {
    adj[v].push_back((v + 1) % n);
    if (v % 7 == 0) adj[v].push_back((v * 13) % n);
    if (v % 5 == 0) adj[v].push_back((v + n - 3) % n);
  }
  std::vector<int> row{0}, cols;
  for (auto& a : adj) {
    cols.insert(cols.end(), a.begin(), a.end());
    row.push_back(int(cols.size()));
  }
  std::vector<int> ref(n, -1);
  ref[0] = 0;
  for (int cur = 0;; ++cur) {
    bool ch = false;
    for (int v = 0; v < n; ++v)
      if (ref[v] == cur)
        for (int u : adj[v])
          if (ref[u] < 0) ref[u] = cur + 1, ch = true;
    if (!ch) break;
  }
  std::vector<int> level(n, -1);
  level[0] = 0;
  DevPtr dr = ctx.malloc_copy(row), dc = ctx.malloc_copy(cols), dl = ctx.malloc_copy(level),
         dch = ctx.malloc(4);
  for (int cur = 0;; ++cur) {  // host loop reading a device flag, as BFS drivers do
    ctx.memset(dch, 0, 4);
    ctx.launch(mod.kernel("bfs_step"), {(n + 63) / 64}, {64}, dr, dc, dl, cur, n, dch);
    if (ctx.read<int>(dch, 1)[0] == 0) break;
  }
  EXPECT_EQ(ctx.read<int>(dl, n), ref);
}

TEST_F(EngineE2E, NestedDivergenceAndEarlyExit) {
  const int n = 200;
  std::vector<int> in(n), ref(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 29 + 11) % 64;
  // Reference: per-thread result. nvcc tail-merges the final store, which
  // odd lanes and even lanes reach on separate paths whose immediate
  // post-dominator is the function exit: under IPDOM reconvergence
  // __activemask() there holds only the lanes of the thread's own path.
  std::vector<int> partial(n), path(n);  // path: 0 returned early, 1 odd, 2 even
  for (int i = 0; i < n; ++i) {
    int x = in[i], r = 0;
    if (x & 1) {
      path[i] = 1;
      r = (x & 2) ? 10 : 20;
      for (int k = 0; k < (x & 15); ++k) {
        if (k * x > 40) break;
        r += k;
      }
    } else {
      if (x % 3 == 0) {
        path[i] = 0;
        ref[i] = -1;
        continue;
      }
      path[i] = 2;
      r = x * 2;
    }
    partial[i] = r;
  }
  for (int i = 0; i < n; ++i) {
    if (!path[i]) continue;
    int w = i / 32 * 32;
    unsigned mask = 0;
    for (int l = 0; l < 4 && w + l < n; ++l)
      if (path[w + l] == path[i]) mask |= 1u << l;
    ref[i] = partial[i] + __builtin_popcount(mask);
  }
  DevPtr din = ctx.malloc_copy(in), dout = ctx.malloc(n * 4);
  ctx.launch(mod.kernel("nested_divergence"), {4}, {64}, din, dout, n);
  EXPECT_EQ(ctx.read<int>(dout, n), ref);
}

TEST_F(EngineE2E, DivergentRecursiveCallsAndLocalArrays) {
  const int n = 100;
  std::vector<int> in(n), fib_ref(n);
  std::vector<float> poly_ref(n);
  std::function<int(int)> fib = [&](int k) { return k < 2 ? k : fib(k - 1) + fib(k - 2); };
  for (int i = 0; i < n; ++i) {
    in[i] = i * 3 + 1;
    fib_ref[i] = in[i] % 2 ? fib(in[i] % 12) : -in[i];
    float x = 0.25f * (i % 7), r = 0.f;
    for (int k = in[i] % 8; k >= 0; --k) r = std::fmaf(r, x, 0.5f * (k & 7));
    poly_ref[i] = r;
  }
  DevPtr din = ctx.malloc_copy(in), df = ctx.malloc(n * 4), dp = ctx.malloc(n * 4);
  ctx.launch(mod.kernel("device_calls"), {2}, {64}, din, df, dp, n);
  EXPECT_EQ(ctx.read<int>(df, n), fib_ref);
  auto p = ctx.read<float>(dp, n);
  for (int i = 0; i < n; ++i) EXPECT_NEAR(p[i], poly_ref[i], 1e-5f * std::fabs(poly_ref[i]) + 1e-6f);
}

TEST_F(EngineE2E, VotesBallotsAndDoubles) {
  const int n = 80;  // 96 threads launched: the last warp is partly out of range
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i % 32 < 8 || i >= 64) ? 1 + i : -i;
  DevPtr din = ctx.malloc_copy(in), db = ctx.malloc(3 * 4), df = ctx.malloc(3 * 4),
         dd = ctx.malloc(n * 8);
  ctx.launch(mod.kernel("votes_and_doubles"), {1}, {96}, din, db, df, dd, n);
  auto ballots = ctx.read<unsigned>(db, 3);
  auto flags = ctx.read<int>(df, 3);
  EXPECT_EQ(ballots[0], 0x000000ffu);
  EXPECT_EQ(ballots[1], 0x000000ffu);
  EXPECT_EQ(ballots[2], 0x0000ffffu);  // lanes 0..15 valid and positive
  EXPECT_EQ(flags[0], 1);              // any, not all
  EXPECT_EQ(flags[2], 1);
  auto d = ctx.read<double>(dd, n);
  for (int i = 0; i < n; ++i) {
    double x = in[i];
    EXPECT_DOUBLE_EQ(d[i], std::sqrt(x * x + 1.0) / 3.0 + 0.5 * in[i]) << i;
  }
}

TEST_F(EngineE2E, OutOfBoundsStoreIsAFaultNamingTheSite) {
  DevPtr d = ctx.malloc(64 * 4);
  try {
    ctx.launch(mod.kernel("oob_store"), {2}, {64}, d, 64);
    FAIL() << "expected a device fault";
  } catch (const DeviceFault& f) {
    std::string m = f.what();
    EXPECT_NE(m.find("oob_store"), std::string::npos) << m;
    EXPECT_NE(m.find("TB (0,0,0)"), std::string::npos) << m;
    EXPECT_NE(m.find("lane 0"), std::string::npos) << m;
    EXPECT_NE(m.find("engine_tests.ptx:"), std::string::npos) << m;
    EXPECT_NE(m.find("is unallocated (0 bytes past allocation"), std::string::npos) << m;
  }
}

TEST_F(EngineE2E, BarrierDeadlockIsReported) {
  DevPtr d = ctx.malloc(128 * 4);
  try {
    ctx.launch(mod.kernel("barrier_deadlock"), {1}, {128}, d);
    FAIL() << "expected a deadlock fault";
  } catch (const DeviceFault& f) {
    std::string m = f.what();
    EXPECT_NE(m.find("barrier deadlock"), std::string::npos) << m;
    EXPECT_NE(m.find("barrier 1: 32 of 64"), std::string::npos) << m;
  }
}

TEST_F(EngineE2E, IllegalLaunchesAreRejected) {
  DevPtr d = ctx.malloc(1024);
  auto k = mod.kernel("vecadd");
  EXPECT_THROW(ctx.launch(k, {0}, {32}, d, d, d, 1), ApiError);
  EXPECT_THROW(ctx.launch(k, {1}, {2048}, d, d, d, 1), ApiError);
  EXPECT_THROW(ctx.launch(k, {1}, {32}, d, d, d), ApiError);          // too few arguments
  EXPECT_THROW(ctx.launch(k, {1}, {32}, d, d, d, uint64_t(1)), ApiError);  // wrong size
  runtime::KernelArgs args;
  args.add(d).add(d).add(1);
  EXPECT_THROW(ctx.launch(mod.kernel("reduce_sum"), {1}, {32}, 1 << 20, {}, args), ApiError);
  EXPECT_THROW(mod.kernel("no_such_kernel"), ApiError);
}

TEST_F(EngineE2E, HostCopiesAreBoundsChecked) {
  DevPtr d = ctx.malloc(16);
  std::vector<char> buf(32);
  EXPECT_THROW(ctx.memcpy_h2d(d, buf.data(), 32), ApiError);
  EXPECT_THROW(ctx.memcpy_d2h(buf.data(), d + 8, 16), ApiError);
  EXPECT_THROW(ctx.free(d + 4), ApiError);
  ctx.free(d);
  EXPECT_THROW(ctx.memcpy_h2d(d, buf.data(), 4), ApiError);
}

TEST_F(EngineE2E, PointerTableInitializers) {
  DevPtr d = ctx.malloc(4 * 4);
  ctx.launch(mod.kernel("pointer_table"), {1}, {4}, d);
  EXPECT_EQ(ctx.read<int>(d, 4), (std::vector<int>{11, 33, 22, 44}));
}

TEST(EngineIsolation, ContextsHaveSeparateAddressSpaces) {
  runtime::Device dev;
  auto& a = dev.create_context("a");
  auto& b = dev.create_context("b");
  DevPtr pa = a.malloc(64);
  a.memset(pa, 7, 64);
  // The same numeric address is not b's memory.
  std::vector<char> buf(64);
  EXPECT_THROW(b.memcpy_d2h(buf.data(), pa, 64), ApiError);
}

}  // namespace
}  // namespace gpumux
