// wmma for the types without their own coverage program: s8, u8, s4, u4, b1
// (xor.popc and and.popc), f64 and bf16 (tests/exec/kernels/wmma_types.cu).
// Each kernel loads A (row-major), B (column-major) and C from memory,
// multiplies and stores D, so the check needs no fragment layout: D against
// the product computed here from small exact values, on both backends.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <functional>
#include <optional>

#include "backends_test_util.h"
#include "file_test_util.h"

namespace gpumux::test {
namespace {

const std::string& wmma_ptx() {
  static const std::string ptx =
      read_file(std::filesystem::path(GPUMUX_SOURCE_DIR) / "tests/exec/kernels/wmma_types.ptx");
  return ptx;
}

// D = A x B + C for an M x N x K tile: a(i, k), b(k, j), c(i, j) give the elements.
template <class T>
std::vector<T> reference(int M, int N, int K, const std::function<T(int, int)>& a, const std::function<T(int, int)>& b,
                         const std::function<T(int, int)>& c) {
  std::vector<T> d(size_t(M) * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      T s = c(i, j);
      for (int k = 0; k < K; ++k) s += a(i, k) * b(k, j);
      d[size_t(i) * N + j] = s;
    }
  return d;
}

// Runs kernel(a, b, c, d[, extra]) with one warp; returns D (M x N of TC).
template <class TC>
std::vector<TC> run(runtime::Context& ctx, const std::string& kernel, const std::vector<uint8_t>& a,
                    const std::vector<uint8_t>& b, const std::vector<TC>& c, std::optional<int32_t> extra = {}) {
  runtime::Module& mod = ctx.load_module_string(wmma_ptx(), "wmma_types.ptx");
  runtime::DevPtr da = upload(ctx, a), db = upload(ctx, b), dc = upload(ctx, c), dd = ctx.malloc(c.size() * sizeof(TC));
  if (extra)
    ctx.launch(mod.kernel(kernel), {1}, {32}, da, db, dc, dd, *extra);
  else
    ctx.launch(mod.kernel(kernel), {1}, {32}, da, db, dc, dd);
  ctx.synchronize();
  return read_back<TC>(ctx, dd, c.size());
}

// Bytes of A (row-major, M x K) or B (column-major, K x N: element (k, j) at j * K + k), `bits` per element.
std::vector<uint8_t> pack(int rows, int cols, int bits, const std::function<int64_t(int, int)>& at) {
  std::vector<uint8_t> out(size_t(rows) * cols * bits / 8, 0);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const uint64_t v = uint64_t(at(r, c)) & ((1ull << bits) - 1), bit = (uint64_t(r) * cols + c) * bits;
      for (int i = 0; i < bits; ++i)
        if (v >> i & 1) out[(bit + i) / 8] |= uint8_t(1u << ((bit + i) % 8));
    }
  return out;
}

template <class T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

void check_integer(const std::string& kernel, int M, int N, int K, int bits, bool is_signed) {
  const int64_t lo = is_signed ? -(1ll << (bits - 1)) : 0, span = 1ll << bits;
  auto A = [&](int i, int k) -> int32_t { return int32_t(lo + (i * 7 + k * 3) % span); };
  auto B = [&](int k, int j) -> int32_t { return int32_t(lo + (k * 5 + j * 11 + 1) % span); };
  auto C = [&](int i, int j) -> int32_t { return (i - j) * 1000; };
  std::vector<int32_t> c(size_t(M) * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) c[size_t(i) * N + j] = C(i, j);
  const std::vector<int32_t> want = reference<int32_t>(M, N, K, A, B, C);
  on_both_backends(kernel, [&](runtime::Context& ctx) {
    const std::vector<uint8_t> a = pack(M, K, bits, A), b = pack(N, K, bits, [&](int j, int k) { return B(k, j); });
    EXPECT_EQ(run(ctx, kernel, a, b, c), want) << kernel;
  });
}

TEST(WmmaTypes, S8AndU8M16n16k16) {
  check_integer("_Z7wmma_s8PKaS0_PKiPi", 16, 16, 16, 8, true);
  check_integer("_Z7wmma_u8PKhS0_PKiPi", 16, 16, 16, 8, false);
}

TEST(WmmaTypes, S4AndU4M8n8k32) {
  check_integer("_Z7wmma_s4PKiS0_S0_Pi", 8, 8, 32, 4, true);
  check_integer("_Z7wmma_u4PKiS0_S0_Pi", 8, 8, 32, 4, false);
}

TEST(WmmaTypes, B1XorAndAndPopcM8n8k128) {
  auto A = [](int i, int k) { return int64_t((i * 13 + k * k + k / 7) % 3 == 0); };
  auto B = [](int k, int j) { return int64_t((k * 5 + j * 17) % 4 < 2); };
  std::vector<int32_t> c(64);
  for (int i = 0; i < 64; ++i) c[i] = i - 20;
  for (int use_and : {0, 1}) {
    std::vector<int32_t> want(64);
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) {
        int32_t s = c[i * 8 + j];
        for (int k = 0; k < 128; ++k) s += use_and ? (A(i, k) & B(k, j)) : (A(i, k) ^ B(k, j));
        want[i * 8 + j] = s;
      }
    on_both_backends("wmma_b1", [&](runtime::Context& ctx) {
      const std::vector<uint8_t> a = pack(8, 128, 1, A), b = pack(8, 128, 1, [&](int j, int k) { return B(k, j); });
      EXPECT_EQ(run(ctx, "_Z7wmma_b1PKiS0_S0_Pii", a, b, c, use_and), want) << (use_and ? "and" : "xor");
    });
  }
}

TEST(WmmaTypes, F64M8n8k4) {
  auto A = [](int i, int k) { return double(i - 2 * k) / 4; };
  auto B = [](int k, int j) { return double(k * j + 1) / 2; };
  auto C = [](int i, int j) { return double(i + j) * 0.125; };
  std::vector<double> a(32), b(32), c(64);
  for (int i = 0; i < 8; ++i)
    for (int k = 0; k < 4; ++k) a[i * 4 + k] = A(i, k), b[i * 4 + k] = B(k, i);
  for (int i = 0; i < 64; ++i) c[i] = C(i / 8, i % 8);
  const std::vector<double> want = reference<double>(8, 8, 4, A, B, C);
  on_both_backends("wmma_f64", [&](runtime::Context& ctx) {
    EXPECT_EQ(run(ctx, "_Z8wmma_f64PKdS0_S0_Pd", bytes_of(a), bytes_of(b), c), want);
  });
}

TEST(WmmaTypes, Bf16M16n16k16) {
  // Values exact in bf16 (8 significant bits); the products and sums exact in f32.
  auto A = [](int i, int k) { return float((i * 3 + k) % 9 - 4) / 2; };
  auto B = [](int k, int j) { return float((k + 2 * j) % 7 - 3) * 4; };
  auto C = [](int i, int j) { return float(i * 16 + j) / 8; };
  auto bf16 = [](float x) { return uint16_t(std::bit_cast<uint32_t>(x) >> 16); };
  std::vector<uint16_t> a(256), b(256);
  std::vector<float> c(256);
  for (int i = 0; i < 16; ++i)
    for (int k = 0; k < 16; ++k) a[i * 16 + k] = bf16(A(i, k)), b[i * 16 + k] = bf16(B(k, i));
  for (int i = 0; i < 256; ++i) c[i] = C(i / 16, i % 16);
  const std::vector<float> want = reference<float>(16, 16, 16, A, B, C);
  on_both_backends("wmma_bf16", [&](runtime::Context& ctx) {
    EXPECT_EQ(run(ctx, "_Z9wmma_bf16PK13__nv_bfloat16S1_PKfPf", bytes_of(a), bytes_of(b), c), want);
  });
}

}  // namespace
}  // namespace gpumux::test
