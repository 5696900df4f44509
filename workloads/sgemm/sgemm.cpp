// sgemm: C = alpha * A * B + beta * C with the register/shared-tiled kernel,
// checked against a double-precision product with the float error bound.
#include <algorithm>
#include <cmath>
#include <vector>

#include "common/fp_checks.h"
#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

CheckResult run_sgemm(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  // Paper: the Tanasic thesis's 528 TBs (table 5.2, Parboil's medium input) as 24 x 22 tiles;
  // k sets the TB length (docs/workloads.md, "Paper").
  const int m = host::by_size(size, 128, 256, 1024, 2048, 1536);
  const int n = host::by_size(size, 128, 256, 1024, 2048, 1408);
  const int k = host::by_size(size, 128, 512, 512, 2048, 144);
  const int passes = host::passes(size, 5);
  const float alpha = 1.5f, beta = -0.5f;
  Rng rng(seed);
  std::vector<float> a = host::random_floats(rng, size_t(m) * k, -1.f, 1.f);
  std::vector<float> b = host::random_floats(rng, size_t(k) * n, -1.f, 1.f);
  std::vector<float> c = host::random_floats(rng, size_t(m) * n, -1.f, 1.f);

  runtime::DevPtr d_a = ctx.malloc_copy(a), d_b = ctx.malloc_copy(b), d_c = ctx.malloc_copy(c);
  // C is updated in place: repeated passes start again from a device copy of the original.
  const uint64_t c_bytes = c.size() * sizeof(float);
  runtime::DevPtr d_c0 = passes > 1 ? ctx.malloc(c_bytes) : runtime::DevPtr{};
  if (passes > 1) ctx.memcpy_d2d(d_c0, d_c, c_bytes);
  for (int p = 0; p < passes; ++p) {
    if (p > 0) ctx.memcpy_d2d(d_c, d_c0, c_bytes);
    host::launch(ctx, mod.kernel("sgemm_tiled"), runtime::Dim3(n / 64, m / 64), runtime::Dim3(256),
                 d_a, d_b, d_c, m, n, k, alpha, beta);
  }
  std::vector<float> got = ctx.read<float>(d_c, size_t(m) * n);

  // Reference: each element is a k-term dot product plus two scaled terms; a
  // float evaluation makes at most k + 3 roundings along any path.
  // Row by row, the k terms of every element of a row summed in the same
  // order as a dot product would, but over j innermost: the compiler
  // vectorizes it (a dot product's sum is a serial chain).
  std::vector<fp::Accum> acc(size_t(m) * n);
  std::vector<double> s(n), mag(n);
  for (int i = 0; i < m; ++i) {
    std::fill(s.begin(), s.end(), 0.0);
    std::fill(mag.begin(), mag.end(), 0.0);
    for (int p = 0; p < k; ++p) {
      const double a_ip = a[size_t(i) * k + p];
      const float* b_row = &b[size_t(p) * n];
      for (int j = 0; j < n; ++j) {
        double t = a_ip * double(b_row[j]);
        s[j] += t;
        mag[j] += std::fabs(t);
      }
    }
    for (int j = 0; j < n; ++j) {
      fp::Accum& e = acc[size_t(i) * n + j];
      e.sum = alpha * s[j] + beta * double(c[size_t(i) * n + j]);
      e.magnitude = std::fabs(alpha) * mag[j] + std::fabs(beta * c[size_t(i) * n + j]);
    }
  }
  std::vector<double> want, bound;
  fp::split_bounds(acc, k + 3, 0, want, bound);
  return fp::check_within(got, want, bound, "C");
}

}  // namespace

const WorkloadSpec& sgemm_workload() {
  static const WorkloadSpec spec{
      "sgemm",
      "dense matrix multiply C = aAB + bC, 64x64 block tiles in shared memory, 4x4 per thread in registers",
      "compute",
      embedded::sgemm_ptx,
      {"m=n=k=128", "m=n=256, k=512, 5 passes", "m=n=1024, k=512", "m=n=k=2048", "m=1536, n=1408, k=144 (528 TBs)"},
      run_sgemm};
  return spec;
}

}  // namespace gpumux::workloads
