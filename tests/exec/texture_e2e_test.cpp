// txq and suq, the texture unit's latency on the timing model, and the faults of texture and surface instructions: a handle
// of the wrong kind, a geometry that does not match the object, a surface
// access out of range with .trap.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <vector>

#include "gpumux/core/error.h"
#include "gpumux/gpu/gpu.h"
#include "gpumux/runtime/runtime.h"
#include "gpumux/timing/timing_backend.h"

namespace gpumux {
namespace {

constexpr const char* kPtx = R"(
.version 9.0
.target sm_80
.address_size 64
.visible .entry query(.param .u64 tex, .param .u64 surf, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd2, [surf];
  ld.param.u64 %rd3, [out];
  txq.width.b32 %r1, [%rd1];
  txq.height.b32 %r2, [%rd1];
  txq.array_size.b32 %r3, [%rd1];
  txq.filter_mode.b32 %r4, [%rd1];
  suq.width.b32 %r5, [%rd2];
  suq.depth.b32 %r6, [%rd2];
  st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r4};
  st.global.v2.u32 [%rd3+16], {%r5, %r6};
  ret;
}
.visible .entry fetch2d(.param .u64 tex, .param .u64 out)
{
  .reg .f32 %f<8>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd2, [out];
  mov.f32 %f5, 0f3F000000;
  tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f5}];
  st.global.f32 [%rd2], %f1;
  ret;
}
.visible .entry store_at(.param .u64 surf, .param .u32 x)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [surf];
  ld.param.u32 %r1, [x];
  mov.u32 %r2, 7;
  sust.b.1d.b32.trap [%rd1, {%r1}], {%r2};
  ret;
}
.visible .entry store_p(.param .u64 half_surf, .param .u64 byte_surf)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [half_surf];
  ld.param.u64 %rd2, [byte_surf];
  mov.u32 %r1, 1;
  mov.u32 %r2, 0;
  mov.f32 %f1, 0f3F800000;
  mov.f32 %f2, 0fC0000000;
  mov.f32 %f3, 0f3EAAAAAB;
  sust.p.2d.v4.b32.trap [%rd1, {%r1, %r2}], {%f1, %f2, %f3, %f1};
  mov.u32 %r4, 7;
  mov.u32 %r5, 511;
  mov.u32 %r6, 9;
  sust.p.2d.v4.b32.trap [%rd2, {%r1, %r2}], {%r4, %r5, %r6, %r6};
  ret;
}
)";

struct Fixture {
  runtime::Device dev;
  runtime::Context& ctx = dev.create_context("tex");
  runtime::Module& mod = ctx.load_module_string(kPtx, "tex_e2e.ptx");
};

std::string fault_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const DeviceFault& e) {
    return e.what();
  }
  return "(no fault)";
}

TEST(TextureInstructions, QueriesReportTheObjects) {
  Fixture fx;
  exec::ArrayDesc layered{{1, 32, exec::ChannelKind::Float}, 8, 3, 5};
  layered.layered = true;
  const uint64_t arr = fx.ctx.malloc_array(layered);
  exec::TextureResource r;
  r.array = arr;
  exec::TextureDesc d;
  d.filter = exec::FilterMode::Linear;
  const uint64_t tex = fx.ctx.create_texture(r, d);
  const uint64_t surf = fx.ctx.create_surface(fx.ctx.malloc_array({{2, 16, exec::ChannelKind::Unsigned}, 4, 4, 6}));
  runtime::DevPtr out = fx.ctx.malloc(24);
  fx.ctx.launch(fx.mod.kernel("query"), {1}, {1}, tex, surf, out);
  EXPECT_EQ(fx.ctx.read<uint32_t>(out, 6), (std::vector<uint32_t>{8, 3, 5, 1, 4, 6}));
}

// sust.p: element x; f32 values rounded into a half-float format, integers
// keep their low bits, values beyond the format's channels are dropped.
TEST(TextureInstructions, FormattedSurfaceStoresConvertToTheFormat) {
  Fixture fx;
  const uint64_t half4 = fx.ctx.malloc_array({{4, 16, exec::ChannelKind::Float}, 2, 1, 0});
  const uint64_t byte2 = fx.ctx.malloc_array({{2, 8, exec::ChannelKind::Unsigned}, 2, 1, 0});
  fx.ctx.launch(fx.mod.kernel("store_p"), {1}, {1}, fx.ctx.create_surface(half4), fx.ctx.create_surface(byte2));
  std::vector<uint16_t> h(8);
  fx.ctx.memcpy_from_array(h.data(), 16, half4, 0, 0, 0, 16, 1);
  // 1.0, -2.0, 1/3 (0x3555, rounded to nearest), 1.0 in element 1; element 0 untouched.
  EXPECT_EQ(h, (std::vector<uint16_t>{0, 0, 0, 0, 0x3c00, 0xc000, 0x3555, 0x3c00}));
  std::vector<uint8_t> b(4);
  fx.ctx.memcpy_from_array(b.data(), 4, byte2, 0, 0, 0, 4, 1);
  EXPECT_EQ(b, (std::vector<uint8_t>{0, 0, 7, 0xff}));
}

TEST(TextureInstructions, WrongObjectsAndOutOfRangeAccessesFault) {
  Fixture fx;
  const uint64_t a1 = fx.ctx.malloc_array({{1, 32, exec::ChannelKind::Float}, 4, 0, 0});
  const uint64_t surf = fx.ctx.create_surface(a1);
  exec::TextureResource r;
  r.array = a1;
  const uint64_t tex1d = fx.ctx.create_texture(r, exec::TextureDesc{});
  runtime::DevPtr out = fx.ctx.malloc(4);
  std::string f = fault_of([&] { fx.ctx.launch(fx.mod.kernel("fetch2d"), {1}, {1}, surf, out); });
  EXPECT_NE(f.find("is not a live texture object"), std::string::npos) << f;
  EXPECT_NE(f.find("tex_e2e.ptx:29"), std::string::npos) << f;
  f = fault_of([&] { fx.ctx.launch(fx.mod.kernel("fetch2d"), {1}, {1}, tex1d, out); });
  EXPECT_NE(f.find("tex.2d on a 1D object"), std::string::npos) << f;

  fx.ctx.launch(fx.mod.kernel("store_at"), {1}, {1}, surf, 12u);  // the last element: inside
  f = fault_of([&] { fx.ctx.launch(fx.mod.kernel("store_at"), {1}, {1}, surf, 16u); });
  EXPECT_NE(f.find("surface access out of range: byte x 16"), std::string::npos) << f;
  std::vector<float> back(4);
  // The context faulted; a new one sees its own objects only.
  runtime::Context& other = fx.dev.create_context("other");
  runtime::Module& m2 = other.load_module_string(kPtx, "tex_e2e.ptx");
  runtime::DevPtr o2 = other.malloc(4);
  f = fault_of([&] { other.launch(m2.kernel("fetch2d"), {1}, {1}, tex1d, o2); });
  EXPECT_NE(f.find("is not a live texture object"), std::string::npos) << f;
}

}  // namespace
}  // namespace gpumux

namespace gpumux {
namespace {

// Sixteen dependent fetches (each index is the previous texel): on the
// timing model each waits for the one before, so sm.latency.texture adds
// sixteen times over.
constexpr const char* kChainPtx = R"(
.version 9.0
.target sm_80
.address_size 64
.visible .entry chain(.param .u64 tex, .param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, 0;
  mov.u32 %r2, 0;
LOOP:
  tex.1d.v4.s32.s32 {%r1, %r3, %r4, %r5}, [%rd1, {%r1}];
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 16;
  @%p1 bra LOOP;
  st.global.u32 [%rd2], %r1;
  ret;
}
)";

Cycle chain_cycles(uint32_t texture_latency) {
  GpuConfig cfg = gpu::load_config("gtx980").values();
  cfg.sm.latency.texture = texture_latency;
  std::unique_ptr<runtime::Device> dev = timing::make_device(cfg);
  runtime::Context& ctx = dev->create_context("chain");
  runtime::Module& mod = ctx.load_module_string(kChainPtx, "chain.ptx");
  std::vector<int32_t> next(64);
  for (int i = 0; i < 64; ++i) next[size_t(i)] = (i * 5 + 3) % 64;
  exec::TextureResource r;
  r.kind = exec::ResourceKind::Linear;
  r.ptr = ctx.malloc_copy(next);
  r.format = {1, 32, exec::ChannelKind::Signed};
  r.size_bytes = 64 * 4;
  runtime::DevPtr out = ctx.malloc(4);
  ctx.launch(mod.kernel("chain"), {1}, {1}, ctx.create_texture(r, exec::TextureDesc{}), out);
  int32_t want = 0;
  for (int k = 0; k < 16; ++k) want = next[size_t(want)];
  EXPECT_EQ(ctx.read<int32_t>(out, 1)[0], want);
  return timing::backend_of(*dev).busy_cycles();
}

TEST(TextureTiming, TheTextureUnitLatencyDelaysEveryFetch) {
  const Cycle base = chain_cycles(0), slow = chain_cycles(200);
  // Up to a few cycles apart: memory responses align to the memory clock.
  EXPECT_NEAR(double(slow - base), 16.0 * 200, 16);
}

}  // namespace
}  // namespace gpumux
