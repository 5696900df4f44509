// cp.async, mbarrier, ldmatrix and indirect calls in small PTX kernels, run
// functionally and on the timing model, against hand-computed results.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "backends_test_util.h"

namespace gpumux {
namespace {

constexpr const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64

// Words 0-31: cp.async.ca 4 bytes; 32-63: src-size t % 5; 64-95: ignore-src
// in odd threads; 96-127: cp.async.cg 16 bytes from threads 0-7.
.visible .entry copies(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<10>;
  .reg .pred %p<3>;
  .shared .align 16 .b8 sm[512];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, sm;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  cp.async.ca.shared.global [%r4], [%rd4], 4;
  rem.u32 %r5, %r1, 5;
  cp.async.ca.shared.global [%r4+128], [%rd4], 4, %r5;
  and.b32 %r6, %r1, 1;
  setp.ne.u32 %p1, %r6, 0;
  cp.async.ca.shared.global [%r4+256], [%rd4], 4, %p1;
  cp.async.commit_group;
  setp.lt.u32 %p2, %r1, 8;
  shl.b32 %r7, %r1, 4;
  add.u32 %r8, %r2, %r7;
  mul.wide.u32 %rd5, %r1, 16;
  add.s64 %rd6, %rd1, %rd5;
  @%p2 cp.async.cg.shared.global.L2::128B [%r8+384], [%rd6], 16;
  cp.async.commit_group;
  cp.async.wait_group 1;
  cp.async.wait_all;
  bar.sync 0;
  add.s64 %rd7, %rd2, %rd3;
  ld.shared.u32 %r9, [%r4];
  st.global.u32 [%rd7], %r9;
  ld.shared.u32 %r9, [%r4+128];
  st.global.u32 [%rd7+128], %r9;
  ld.shared.u32 %r9, [%r4+256];
  st.global.u32 [%rd7+256], %r9;
  ld.shared.u32 %r9, [%r4+384];
  st.global.u32 [%rd7+384], %r9;
  ret;
}

// 64 threads; out[4t..4t+3]: pending count after the phase-0 arrival, the
// parity-0 test after phase 0, 1 after phase 1 (warp 1 drops out in it),
// warp 0: pending count after its phase-2 arrival (warp 1: 7).
.visible .entry barriers(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<6>;
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 16;
  add.s64 %rd3, %rd1, %rd2;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared.b64 [bar], 64;
  bar.sync 0;
  mbarrier.arrive.shared.b64 %rd4, [bar];
  mbarrier.pending_count.b64 %r2, %rd4;
  st.global.u32 [%rd3], %r2;
$L0:
  mbarrier.test_wait.shared.b64 %p2, [bar], %rd4;
  @!%p2 bra $L0;
  mbarrier.test_wait.parity.shared.b64 %p3, [bar], 0;
  selp.u32 %r3, 1, 0, %p3;
  st.global.u32 [%rd3+4], %r3;
  setp.lt.u32 %p4, %r1, 32;
  @%p4 mbarrier.arrive.release.cta.shared::cta.b64 %rd5, [bar];
  @!%p4 mbarrier.arrive_drop.shared.b64 _, [bar];
$L1:
  mbarrier.try_wait.parity.shared.b64 %p2, [bar], 1;
  @!%p2 bra $L1;
  mov.u32 %r4, 1;
  st.global.u32 [%rd3+8], %r4;
  mov.u32 %r5, 7;
  @!%p4 bra $END;
  mbarrier.arrive.shared.b64 %rd6, [bar];
$L2:
  mbarrier.test_wait.shared.b64 %p2, [bar], %rd6;
  @!%p2 bra $L2;
  mbarrier.pending_count.b64 %r5, %rd6;
$END:
  st.global.u32 [%rd3+12], %r5;
  ret;
}

// Four 8x8 b16 matrices in shared memory, element (m, r, c) = 64m + 8r + c;
// lane l gives the address of row l. out[l*12 ..]: x4, x4.trans, x1, x2.
.visible .entry matrices(.param .u64 out)
{
  .reg .b32 %r<24>;
  .reg .b64 %rd<6>;
  .shared .align 16 .b8 sm[512];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 3;
  mul.lo.u32 %r3, %r2, 65537;
  add.u32 %r4, %r3, 65536;
  add.u32 %r5, %r3, 196610;
  add.u32 %r6, %r3, 327684;
  add.u32 %r7, %r3, 458758;
  mov.u32 %r8, sm;
  shl.b32 %r9, %r1, 4;
  add.u32 %r10, %r8, %r9;
  st.shared.v4.u32 [%r10], {%r4, %r5, %r6, %r7};
  bar.sync 0;
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r11, %r12, %r13, %r14}, [%r10];
  ldmatrix.sync.aligned.m8n8.x4.trans.shared::cta.b16 {%r15, %r16, %r17, %r18}, [%r10];
  ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r19}, [%r10];
  ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r20, %r21}, [%r10];
  mul.wide.u32 %rd2, %r1, 48;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r11, %r12, %r13, %r14};
  st.global.v4.u32 [%rd3+16], {%r15, %r16, %r17, %r18};
  st.global.u32 [%rd3+32], %r19;
  st.global.u32 [%rd3+36], %r20;
  ret;
}

.func (.param .b32 r) f_add(.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [x];
  add.s32 %r2, %r1, 100;
  st.param.b32 [r], %r2;
  ret;
}
.func (.param .b32 r) f_mul(.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [x];
  mul.lo.s32 %r2, %r1, 3;
  st.param.b32 [r], %r2;
  ret;
}
.func (.param .b32 r) f_neg(.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [x];
  neg.s32 %r2, %r1;
  st.param.b32 [r], %r2;
  ret;
}

// out[t] = (f_add, f_mul, f_neg)[t % 3](t) through a register; lane 31 does not call.
.visible .entry indirect(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<12>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, 3;
  mov.u64 %rd2, f_add;
  mov.u64 %rd3, f_mul;
  mov.u64 %rd4, f_neg;
  setp.eq.u32 %p1, %r2, 1;
  selp.b64 %rd5, %rd3, %rd2, %p1;
  setp.eq.u32 %p2, %r2, 2;
  selp.b64 %rd5, %rd4, %rd5, %p2;
  mov.u32 %r3, -1;
  setp.ne.u32 %p3, %r1, 31;
  {
  .param .b32 param0;
  .param .b32 retval0;
  st.param.b32 [param0], %r1;
  proto : .callprototype (.param .b32 _) _ (.param .b32 _);
  @%p3 call (retval0), %rd5, (param0), proto;
  @%p3 ld.param.b32 %r3, [retval0];
  }
  mul.wide.u32 %rd6, %r1, 4;
  add.s64 %rd7, %rd1, %rd6;
  st.global.u32 [%rd7], %r3;
  ret;
}

// An mbarrier wait that no arrival completes.
.visible .entry stuck()
{
  .reg .b64 %rd<2>;
  .reg .pred %p<2>;
  .shared .align 8 .b64 bar;
  mbarrier.init.shared.b64 [bar], 64;
  mbarrier.arrive.shared.b64 %rd1, [bar];
$W:
  mbarrier.test_wait.shared.b64 %p1, [bar], %rd1;
  @!%p1 bra $W;
  ret;
}
)";

using test::on_both_backends;

std::vector<uint32_t> read(runtime::Context& ctx, runtime::DevPtr p, size_t words) {
  return test::read_back<uint32_t>(ctx, p, words);
}

TEST(AsyncCopy, CopiesZeroFillsAndIgnoresSources) {
  on_both_backends("async-tensor", [](runtime::Context& ctx) {
    runtime::Module& mod = ctx.load_module_string(kPtx, "async_tensor.ptx");
    std::vector<uint32_t> in(32);
    for (uint32_t i = 0; i < 32; ++i) in[i] = 0xa0b0c0d0u + i;
    runtime::DevPtr din = ctx.malloc(in.size() * 4), out = ctx.malloc(128 * 4);
    ctx.memcpy_h2d(din, in.data(), in.size() * 4);
    ctx.launch(mod.kernel("copies"), {1}, {32}, din, out);
    ctx.synchronize();
    std::vector<uint32_t> w = read(ctx, out, 128);
    for (uint32_t t = 0; t < 32; ++t) {
      SCOPED_TRACE(t);
      EXPECT_EQ(w[t], in[t]);
      const uint32_t s = t % 5;  // bytes copied; the rest of the 4 are zero
      EXPECT_EQ(w[32 + t], s >= 4 ? in[t] : in[t] & ((1u << (8 * s)) - 1));
      EXPECT_EQ(w[64 + t], t % 2 ? 0u : in[t]);
      EXPECT_EQ(w[96 + t], in[t]);
    }
  });
}

TEST(Mbarrier, PhasesArrivalsDropsAndPendingCounts) {
  on_both_backends("async-tensor", [](runtime::Context& ctx) {
    runtime::Module& mod = ctx.load_module_string(kPtx, "async_tensor.ptx");
    runtime::DevPtr out = ctx.malloc(64 * 16);
    ctx.launch(mod.kernel("barriers"), {1}, {64}, out);
    ctx.synchronize();
    std::vector<uint32_t> w = read(ctx, out, 64 * 4);
    std::vector<uint32_t> pending;
    for (uint32_t t = 0; t < 64; ++t) {
      SCOPED_TRACE(t);
      pending.push_back(w[4 * t]);
      EXPECT_EQ(w[4 * t + 1], 1u);
      EXPECT_EQ(w[4 * t + 2], 1u);
      EXPECT_EQ(w[4 * t + 3], t < 32 ? 31 - t : 7u);  // phase 2: warp 0 alone, lanes in order
    }
    // Each of the 64 arrivals of phase 0 left a different count pending.
    std::sort(pending.begin(), pending.end());
    for (uint32_t i = 0; i < 64; ++i) EXPECT_EQ(pending[i], i);
  });
}

TEST(Ldmatrix, LoadsAndTransposesFragments) {
  on_both_backends("async-tensor", [](runtime::Context& ctx) {
    runtime::Module& mod = ctx.load_module_string(kPtx, "async_tensor.ptx");
    runtime::DevPtr out = ctx.malloc(32 * 48);
    ctx.launch(mod.kernel("matrices"), {1}, {32}, out);
    ctx.synchronize();
    std::vector<uint32_t> w = read(ctx, out, 32 * 12);
    auto pair = [](uint32_t lo, uint32_t hi) { return lo | hi << 16; };
    for (uint32_t l = 0; l < 32; ++l) {
      SCOPED_TRACE(l);
      const uint32_t g = l / 4, q = l % 4;
      for (uint32_t m = 0; m < 4; ++m) {
        const uint32_t e = 64 * m + 8 * g + 2 * q;                   // row g, columns 2q, 2q+1
        const uint32_t te = 64 * m + 8 * (2 * q) + g;                // transposed: rows 2q, 2q+1 of column g
        EXPECT_EQ(w[12 * l + m], pair(e, e + 1));
        EXPECT_EQ(w[12 * l + 4 + m], pair(te, te + 8));
      }
      EXPECT_EQ(w[12 * l + 8], pair(8 * g + 2 * q, 8 * g + 2 * q + 1));
      EXPECT_EQ(w[12 * l + 9], pair(16 * q + g, 16 * q + g + 8));
    }
  });
}

TEST(IndirectCall, DivergentTargetsEachRunTheirFunction) {
  on_both_backends("async-tensor", [](runtime::Context& ctx) {
    runtime::Module& mod = ctx.load_module_string(kPtx, "async_tensor.ptx");
    runtime::DevPtr out = ctx.malloc(32 * 4);
    ctx.launch(mod.kernel("indirect"), {1}, {32}, out);
    ctx.synchronize();
    std::vector<uint32_t> w = read(ctx, out, 32);
    for (uint32_t t = 0; t < 32; ++t) {
      const int32_t x = int32_t(t);
      const int32_t want = t == 31 ? -1 : t % 3 == 0 ? x + 100 : t % 3 == 1 ? 3 * x : -x;
      EXPECT_EQ(int32_t(w[t]), want) << t;
    }
  });
}

TEST(Mbarrier, AWaitNoArrivalCompletesFaults) {
  runtime::Device dev;
  runtime::Context& ctx = dev.create_context("stuck");
  runtime::Module& mod = ctx.load_module_string(kPtx, "async_tensor.ptx");
  try {
    ctx.launch(mod.kernel("stuck"), {1}, {32});
    ctx.synchronize();
    FAIL() << "expected a fault";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("wait deadlock"), std::string::npos) << e.what();
  }
}

// Two commit groups: the first copies a line the warp has just loaded (an
// L2 hit), the second a line 64 KB away (a DRAM miss). wait_group 1 waits for
// the first group only, wait_group 0 for both: the clock between them shows
// the second copy's extra latency. out: the copied words, then the cycles
// from wait_group 1 to wait_group 0.
constexpr const char* kWaitGroupPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry groups(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 sm[32];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, sm;
  ld.global.cg.u32 %r2, [%rd1];
  add.u32 %r3, %r2, 1;
  cp.async.cg.shared.global [%r1], [%rd1], 16;
  cp.async.commit_group;
  add.s64 %rd3, %rd1, 65536;
  cp.async.cg.shared.global [%r1+16], [%rd3], 16;
  cp.async.commit_group;
  cp.async.wait_group 1;
  mov.u64 %rd4, %clock64;
  ld.shared.u32 %r4, [%r1];
  cp.async.wait_group 0;
  mov.u64 %rd5, %clock64;
  ld.shared.u32 %r5, [%r1+16];
  st.global.u32 [%rd2], %r4;
  st.global.u32 [%rd2+4], %r5;
  sub.s64 %rd6, %rd5, %rd4;
  st.global.u64 [%rd2+8], %rd6;
  st.global.u32 [%rd2+16], %r3;
  ret;
}
)";

TEST(AsyncCopy, WaitGroupWaitsForAllButTheNewestGroups) {
  std::vector<uint32_t> in(65536 / 4 + 4);
  for (size_t i = 0; i < in.size(); ++i) in[i] = uint32_t(i * 3 + 7);
  auto run = [&](runtime::Context& ctx) {
    runtime::Module& mod = ctx.load_module_string(kWaitGroupPtx, "wait_group.ptx");
    runtime::DevPtr din = test::upload(ctx, in), out = ctx.malloc(24);
    ctx.launch(mod.kernel("groups"), {1}, {1}, din, out);
    ctx.synchronize();
    std::vector<uint32_t> got = test::read_back<uint32_t>(ctx, out, 5);
    EXPECT_EQ(got[0], in[0]);
    EXPECT_EQ(got[1], in[65536 / 4]);
    EXPECT_EQ(got[4], in[0] + 1);
    return uint64_t(got[2]) | uint64_t(got[3]) << 32;
  };
  {
    runtime::Device dev;
    run(dev.create_context("functional"));
  }
  std::unique_ptr<runtime::Device> dev = timing::make_device(gpu::load_config("gtx980").values());
  const uint64_t cycles = run(dev->create_context("timing"));
  // The DRAM miss outlasts the L2 hit by far more than the 1-cycle issue gap.
  EXPECT_GT(cycles, 100u);
}

}  // namespace
}  // namespace gpumux
