// tests/coverage/video_simd.cu on both backends against the CPU: CUDA's SIMD
// intrinsics (some lowered to vabsdiff4, the others to integer code), the PTX
// video instructions through inline asm, and a 64-thread cooperative-groups
// tile reduction whose scratch lives in the reserved shared memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>

#include "backends_test_util.h"
#include "file_test_util.h"

namespace gpumux::test {
namespace {

const std::string& video_ptx() {
  static const std::string ptx = read_file(std::filesystem::path(GPUMUX_SOURCE_DIR) / "tests/coverage/video_simd.ptx");
  return ptx;
}

// Field i of `bits` bits of v, sign- or zero-extended.
int64_t field(uint32_t v, int bits, int i, bool is_signed) {
  const uint32_t x = (v >> (bits * i)) & uint32_t((1ull << bits) - 1);
  return is_signed ? int64_t(int32_t(x << (32 - bits)) >> (32 - bits)) : int64_t(x);
}

// The fields f(a_i, b_i) of `bits` bits, packed (each truncated to its field).
uint32_t per_field(uint32_t a, uint32_t b, int bits, bool is_signed, const std::function<int64_t(int64_t, int64_t)>& f) {
  uint32_t d = 0;
  for (int i = 0; i < 32 / bits; ++i)
    d |= (uint32_t(f(field(a, bits, i, is_signed), field(b, bits, i, is_signed))) & uint32_t((1ull << bits) - 1))
         << (bits * i);
  return d;
}

int64_t field_sum(uint32_t a, uint32_t b, int bits, bool is_signed, const std::function<int64_t(int64_t, int64_t)>& f) {
  int64_t s = 0;
  for (int i = 0; i < 32 / bits; ++i) s += f(field(a, bits, i, is_signed), field(b, bits, i, is_signed));
  return s;
}

std::vector<uint32_t> inputs(uint32_t seed, size_t n) {
  std::vector<uint32_t> v = {0, 0xffffffff, 0x80808080, 0x7f7f7f7f, 0x80007fff, 0x00ff00ff, 0x12345678, 0xfedcba98};
  uint64_t x = seed;
  while (v.size() < n) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    v.push_back(uint32_t(x >> 29));
  }
  return v;
}

auto absdiff = [](int64_t x, int64_t y) { return x > y ? x - y : y - x; };
auto clamp_to = [](int64_t lo, int64_t hi) { return [=](int64_t v) { return std::clamp(v, lo, hi); }; };

// What CUDA's math API documents for each intrinsic of simd_intrinsics.
std::vector<uint32_t> intrinsics_cpu(uint32_t x, uint32_t y) {
  auto u8sat = clamp_to(0, 255);
  return {
      per_field(x, y, 8, false, absdiff),
      uint32_t(field_sum(x, y, 8, false, absdiff)),
      per_field(x, y, 8, true, absdiff),
      per_field(x, y, 8, false, std::plus<int64_t>()),
      per_field(x, y, 16, false, [](int64_t p, int64_t q) { return std::max(p, q); }),
      per_field(x, y, 8, false, [](int64_t p, int64_t q) { return int64_t(p > q); }),
      per_field(x, y, 8, false, [](int64_t p, int64_t q) { return (p + q + 1) >> 1; }),
      per_field(x, y, 8, false, [](int64_t p, int64_t q) { return std::min(p, q); }),
      per_field(x, y, 16, false, std::minus<int64_t>()),
      per_field(x, y, 8, true, [](int64_t p, int64_t q) { return std::max(p, q); }),
      per_field(x, y, 16, true, [](int64_t p, int64_t q) { return int64_t(p >= q); }),
      per_field(x, y, 8, false, [&](int64_t p, int64_t q) { return u8sat(p + q); }),
      per_field(x, y, 16, false, absdiff),
      uint32_t(field_sum(x, y, 16, true, absdiff)),
      per_field(x, y, 8, false, [](int64_t p, int64_t q) { return p == q ? 0xff : 0; }),
      per_field(x, y, 16, false, [](int64_t p, int64_t q) { return (p + q) >> 1; }),
  };
}

// The PTX ISA's semantics of each inline video instruction of video_asm.
std::vector<uint32_t> video_cpu(uint32_t x, uint32_t y, uint32_t z) {
  auto s8 = clamp_to(-128, 127);
  auto s16 = clamp_to(-32768, 32767);
  auto b = [](uint32_t v, int i, bool s) { return field(v, 8, i, s); };
  auto h = [](uint32_t v, int i, bool s) { return field(v, 16, i, s); };
  auto put = [](uint32_t into, int bits, int i, int64_t v) {
    const uint32_t m = uint32_t((1ull << bits) - 1) << (bits * i);
    return (into & ~m) | (uint32_t(v) << (bits * i) & m);
  };
  auto avrg = [](int64_t p, int64_t q) { return p + q >= 0 ? (p + q + 1) >> 1 : (p + q) >> 1; };
  const int64_t shifted = int64_t((uint64_t(x) << std::min<int64_t>(b(y, 0, false), 32)) << 30) >> 30;  // 34 bits
  return {
      per_field(x, y, 8, false, [](int64_t p, int64_t q) { return std::min<int64_t>(p + q, 255); }),
      per_field(x, y, 8, true, [&](int64_t p, int64_t q) { return s8(p - q); }),
      per_field(x, y, 8, false, avrg),
      put(put(z, 8, 0, std::min(b(x, 3, true), b(y, 1, true))), 8, 2, std::min(b(x, 1, true), b(y, 0, true))),
      uint32_t(z + field_sum(x, y, 8, false, [](int64_t p, int64_t q) { return std::max(p, q); })),
      uint32_t(z + field_sum(x, y, 8, false, [](int64_t p, int64_t q) { return int64_t(p < q); })),
      put(put(0, 16, 0, s16(h(x, 1, true) + h(y, 0, true))), 16, 1, s16(h(x, 0, true) + h(y, 1, true))),
      put(z, 16, 1, h(x, 1, false) - h(y, 1, false)),
      per_field(x, y, 16, true, avrg),
      per_field(x, y, 16, true, [](int64_t p, int64_t q) { return int64_t(p >= q); }),
      uint32_t(b(x, 1, false) + b(y, 3, false)),
      uint32_t(std::clamp<int64_t>(int64_t(int32_t(x)) - int32_t(y), INT32_MIN, INT32_MAX)),
      uint32_t(absdiff(h(x, 0, true), h(y, 1, true)) + z),
      put(z, 8, 2, s8(std::max(b(x, 0, false), h(y, 1, true)))),
      uint32_t(std::min<int64_t>(shifted, z)),
      uint32_t(std::max<int64_t>(h(x, 1, false) > b(y, 2, true), z)),
  };
}

TEST(CoverageRun, SimdIntrinsicsMatchTheMathApi) {
  const std::vector<uint32_t> a = inputs(1, 96), bv = inputs(2, 96);
  on_both_backends("video_simd", [&](runtime::Context& ctx) {
    runtime::Module& mod = ctx.load_module_string(video_ptx(), "video_simd.ptx");
    runtime::DevPtr da = upload(ctx, a), db = upload(ctx, bv), out = ctx.malloc(a.size() * 16 * 4);
    ctx.launch(mod.kernel("simd_intrinsics"), {2}, {64}, da, db, out, int32_t(a.size()));
    ctx.synchronize();
    const std::vector<uint32_t> got = read_back<uint32_t>(ctx, out, a.size() * 16);
    for (size_t i = 0; i < a.size(); ++i) {
      const std::vector<uint32_t> want = intrinsics_cpu(a[i], bv[i]);
      for (size_t k = 0; k < 16; ++k)
        ASSERT_EQ(got[i * 16 + k], want[k]) << "intrinsic " << k << " of " << std::hex << a[i] << ", " << bv[i];
    }
  });
}

TEST(CoverageRun, VideoInstructionsMatchThePtxIsa) {
  const std::vector<uint32_t> a = inputs(3, 96), bv = inputs(4, 96), c = inputs(5, 96);
  on_both_backends("video_simd", [&](runtime::Context& ctx) {
    runtime::Module& mod = ctx.load_module_string(video_ptx(), "video_simd.ptx");
    runtime::DevPtr da = upload(ctx, a), db = upload(ctx, bv), dc = upload(ctx, c), out = ctx.malloc(a.size() * 64);
    ctx.launch(mod.kernel("video_asm"), {2}, {64}, da, db, dc, out, int32_t(a.size()));
    ctx.synchronize();
    const std::vector<uint32_t> got = read_back<uint32_t>(ctx, out, a.size() * 16);
    for (size_t i = 0; i < a.size(); ++i) {
      const std::vector<uint32_t> want = video_cpu(a[i], bv[i], c[i]);
      for (size_t k = 0; k < 16; ++k)
        ASSERT_EQ(got[i * 16 + k], want[k])
            << "instruction " << k << " of " << std::hex << a[i] << ", " << bv[i] << ", " << c[i];
    }
  });
}

// The tile's two warps wait for each other by spinning on a word of the
// reserved region: the functional backend must let a spinning warp's partner run.
TEST(CoverageRun, WideTileReduceUsesReservedSharedMemory) {
  constexpr int kBlocks = 3, kThreads = 256;
  std::vector<int32_t> in(kBlocks * kThreads);
  for (size_t i = 0; i < in.size(); ++i) in[i] = int32_t(i * 37 % 101) - 50;
  on_both_backends("video_simd", [&](runtime::Context& ctx) {
    runtime::Module& mod = ctx.load_module_string(video_ptx(), "video_simd.ptx");
    runtime::DevPtr din = upload(ctx, in), out = ctx.malloc(kBlocks * kThreads / 64 * 4);
    ctx.launch(mod.kernel("tile64_reduce"), {kBlocks}, {kThreads}, din, out);
    ctx.synchronize();
    const std::vector<int32_t> got = read_back<int32_t>(ctx, out, kBlocks * kThreads / 64);
    for (size_t t = 0; t < got.size(); ++t) {
      int32_t want = 0;
      for (size_t k = 0; k < 64; ++k) want += in[t * 64 + k];
      ASSERT_EQ(got[t], want) << "tile " << t;
    }
  });
}

}  // namespace
}  // namespace gpumux::test
