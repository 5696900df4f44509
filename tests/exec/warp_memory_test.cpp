// Global loads and stores translate a warp's addresses once when every lane's
// access is aligned and inside one allocation, else lane by lane: both ways
// must give the same values, the same lane order for stores to one address,
// and the same fault at the first bad lane.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpumux/core/error.h"
#include "gpumux/runtime/runtime.h"

namespace gpumux {
namespace {

// gather: out[t] = in[idx[t]] (global), gather_generic: the same through
// generic addresses; scatter: out[idx[t]] = t (global). A lane whose index
// is negative skips the access (a partial mask). Byte offsets come from idx,
// so a test can misalign or overrun one lane.
constexpr const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry gather(.param .u64 in, .param .u64 idx, .param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [idx];
  ld.param.u64 %rd3, [out];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.s64 %rd6, [%rd5];
  setp.lt.s64 %p1, %rd6, 0;
  @%p1 bra DONE;
  add.s64 %rd7, %rd1, %rd6;
  ld.global.u32 %r2, [%rd7];
  mul.wide.u32 %rd8, %r1, 4;
  add.s64 %rd9, %rd3, %rd8;
  st.global.u32 [%rd9], %r2;
DONE:
  ret;
}
.visible .entry gather_generic(.param .u64 in, .param .u64 idx, .param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [idx];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd2, %rd4;
  ld.s64 %rd6, [%rd5];
  setp.lt.s64 %p1, %rd6, 0;
  @%p1 bra DONE;
  add.s64 %rd7, %rd1, %rd6;
  ld.u32 %r2, [%rd7];
  mul.wide.u32 %rd8, %r1, 4;
  add.s64 %rd9, %rd3, %rd8;
  st.u32 [%rd9], %r2;
DONE:
  ret;
}
.visible .entry scatter(.param .u64 idx, .param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [idx];
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 8;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.s64 %rd5, [%rd4];
  setp.lt.s64 %p1, %rd5, 0;
  @%p1 bra DONE;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r1;
DONE:
  ret;
}
.visible .entry shared_scatter(.param .u64 idx, .param .u64 out)
{
  .shared .align 4 .b8 buf[128];
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [idx];
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 2;
  add.s32 %r3, %r2, %r3;
  st.shared.u32 [%r3], 99;
  bar.sync 0;
  mul.wide.u32 %rd3, %r1, 8;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.s64 %rd5, [%rd4];
  setp.lt.s64 %p1, %rd5, 0;
  @%p1 bra READ;
  cvt.u32.u64 %r3, %rd5;
  add.s32 %r3, %r2, %r3;
  st.shared.u32 [%r3], %r1;
READ:
  bar.sync 0;
  shl.b32 %r3, %r1, 2;
  add.s32 %r3, %r2, %r3;
  ld.shared.u32 %r3, [%r3];
  mul.wide.u32 %rd6, %r1, 4;
  add.s64 %rd7, %rd2, %rd6;
  st.global.u32 [%rd7], %r3;
  ret;
}
)";

class WarpMemory : public ::testing::Test {
 protected:
  runtime::Device dev;
  runtime::Context& ctx = dev.create_context("warp-memory");
  runtime::Module& mod = ctx.load_module_string(kPtx, "warp_memory.ptx");

  // Runs `kernel` (gather or gather_generic) on one warp; idx in bytes.
  std::vector<uint32_t> gather(const char* kernel, const std::vector<uint32_t>& in,
                               const std::vector<int64_t>& idx) {
    runtime::DevPtr din = ctx.malloc_copy(in), didx = ctx.malloc_copy(idx);
    runtime::DevPtr dout = ctx.malloc_copy(std::vector<uint32_t>(32, 0xdeadbeefu));
    ctx.launch(mod.kernel(kernel), {1}, {32}, din, didx, dout);
    return ctx.read<uint32_t>(dout, 32);
  }
  // The fault message of a gather that must fault.
  std::string gather_fault(const char* kernel, const std::vector<uint32_t>& in, const std::vector<int64_t>& idx) {
    try {
      gather(kernel, in, idx);
    } catch (const DeviceFault& f) {
      return f.what();
    }
    ADD_FAILURE() << "expected a device fault";
    return "";
  }
};

std::vector<uint32_t> values(size_t n) {
  std::vector<uint32_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint32_t(1000 + 7 * i);
  return v;
}

TEST_F(WarpMemory, GathersMatchTheCpuForEveryPattern) {
  const std::vector<uint32_t> in = values(256);
  // Unit stride, a permutation, a broadcast, a wide stride over many lines,
  // and a partial mask (negative indices skip).
  std::vector<std::vector<int64_t>> patterns(5, std::vector<int64_t>(32));
  for (int t = 0; t < 32; ++t) {
    patterns[0][size_t(t)] = 4 * t;
    patterns[1][size_t(t)] = 4 * ((t * 7) % 32);
    patterns[2][size_t(t)] = 4 * 17;
    patterns[3][size_t(t)] = 4 * ((t * 37) % 256);
    patterns[4][size_t(t)] = t % 3 == 0 ? -1 : 4 * (31 - t);
  }
  for (const char* kernel : {"gather", "gather_generic"}) {
    for (size_t p = 0; p < patterns.size(); ++p) {
      std::vector<uint32_t> out = gather(kernel, in, patterns[p]);
      for (size_t t = 0; t < 32; ++t) {
        uint32_t want = patterns[p][t] < 0 ? 0xdeadbeefu : in[size_t(patterns[p][t]) / 4];
        ASSERT_EQ(out[t], want) << kernel << " pattern " << p << " lane " << t;
      }
    }
  }
}

TEST_F(WarpMemory, TheFirstBadLaneFaultsWhateverTheOthersDo) {
  const std::vector<uint32_t> in = values(32);
  std::vector<int64_t> idx(32);
  for (int t = 0; t < 32; ++t) idx[size_t(t)] = 4 * t;
  for (const char* kernel : {"gather", "gather_generic"}) {
    std::vector<int64_t> past = idx;
    past[31] = 4 * 32;  // one word past the allocation, the other lanes inside it
    std::string m = gather_fault(kernel, in, past);
    EXPECT_NE(m.find("invalid global read"), std::string::npos) << m;
    EXPECT_NE(m.find("lane 31"), std::string::npos) << m;
    std::vector<int64_t> misaligned = idx;
    misaligned[13] += 2;
    misaligned[20] += 1;
    m = gather_fault(kernel, in, misaligned);
    EXPECT_NE(m.find("misaligned 4-byte read"), std::string::npos) << m;
    EXPECT_NE(m.find("lane 13"), std::string::npos) << m;
  }
}

TEST_F(WarpMemory, StoresToOneAddressLeaveTheHighestLanes) {
  // Lanes t and t + 16 store to word t % 16; lanes 5 and 21 skip: word 5 keeps its old value.
  std::vector<int64_t> idx(32);
  for (int t = 0; t < 32; ++t) idx[size_t(t)] = t % 16 == 5 ? -1 : 4 * (t % 16);
  runtime::DevPtr didx = ctx.malloc_copy(idx);
  runtime::DevPtr dout = ctx.malloc_copy(std::vector<uint32_t>(16, 99u));
  ctx.launch(mod.kernel("scatter"), {1}, {32}, didx, dout);
  std::vector<uint32_t> out = ctx.read<uint32_t>(dout, 16);
  for (uint32_t w = 0; w < 16; ++w) EXPECT_EQ(out[w], w == 5 ? 99u : w + 16) << w;
}

TEST_F(WarpMemory, SharedStoresKeepLaneOrderAndFaultAtTheFirstBadLane) {
  // As in global memory: lanes t and t + 16 store to word t % 16, lanes 5 and 21 skip.
  std::vector<int64_t> idx(32);
  for (int t = 0; t < 32; ++t) idx[size_t(t)] = t % 16 == 5 ? -1 : 4 * (t % 16);
  runtime::DevPtr didx = ctx.malloc_copy(idx);
  runtime::DevPtr dout = ctx.malloc(32 * 4);
  ctx.launch(mod.kernel("shared_scatter"), {1}, {32}, didx, dout);
  std::vector<uint32_t> out = ctx.read<uint32_t>(dout, 32);
  for (uint32_t w = 0; w < 32; ++w) EXPECT_EQ(out[w], w >= 16 || w == 5 ? 99u : w + 16) << w;
  // Lane 9 one word past the TB's 128 bytes, lane 30 misaligned: lane 9 faults.
  for (int t = 0; t < 32; ++t) idx[size_t(t)] = 4 * t;
  idx[9] = 128;
  idx[30] = 2;
  didx = ctx.malloc_copy(idx);
  try {
    ctx.launch(mod.kernel("shared_scatter"), {1}, {32}, didx, dout);
    FAIL() << "expected a device fault";
  } catch (const DeviceFault& f) {
    std::string m = f.what();
    EXPECT_NE(m.find("shared memory write out of bounds"), std::string::npos) << m;
    EXPECT_NE(m.find("lane 9"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace gpumux
