// lud: blocked LU decomposition (diagonal, perimeter, internal kernels per block step).
#include <cmath>

#include "common/fp_checks.h"
#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr int kB = 16;  // B in the kernel

CheckResult run(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  const int n = host::by_size(size, 128, 512, 1024, 2048);
  const int nb = n / kB;
  Rng rng(seed);
  // Diagonally dominant, so elimination without pivoting is stable.
  std::vector<float> a = host::random_floats(rng, size_t(n) * n, -1.f, 1.f);
  for (int i = 0; i < n; ++i) a[size_t(i) * n + i] += float(n);

  runtime::DevPtr d_a = ctx.malloc_copy(a);
  runtime::Kernel k_diag = mod.kernel("lud_diagonal"), k_perim = mod.kernel("lud_perimeter"),
                  k_internal = mod.kernel("lud_internal");
  const runtime::Dim3 block(kB, kB);
  for (int k = 0; k < nb; ++k) {
    host::launch(ctx, k_diag, {1}, block, d_a, n, k);
    const uint32_t m = uint32_t(nb - k - 1);
    if (m == 0) break;
    host::launch(ctx, k_perim, {2 * m}, block, d_a, n, k);
    host::launch(ctx, k_internal, {m, m}, block, d_a, n, k);
  }
  std::vector<float> lu = ctx.read<float>(d_a, a.size());
  ctx.free(d_a);

  // Backward-error check: any LU factorization computed in floating point
  // (blocked or not, with or without fused multiply-adds) satisfies
  // L U = A + E with |E| <= gamma_n (|A| + |L||U|), gamma_n = n u / (1 - n u).
  // A wrong factor does not reconstruct A within that bound.
  const double u = fp::kF32Unit, gamma = n * u / (1 - n * u);
  std::vector<double> product(a.size()), want(a.size()), bound(a.size());
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0, mag = 0;
      for (int p = 0; p <= std::min(i, j); ++p) {
        double l = p == i ? 1.0 : lu[size_t(i) * n + p];
        double term = l * lu[size_t(p) * n + j];
        sum += term;
        mag += std::fabs(term);
      }
      size_t c = size_t(i) * n + j;
      product[c] = sum;
      want[c] = a[c];
      bound[c] = gamma * (std::fabs(a[c]) + mag);
    }
  return fp::check_within(product, want, bound, "LU product");
}

}  // namespace

const WorkloadSpec& lud_workload() {
  static const WorkloadSpec spec{
      "lud",
      "blocked LU decomposition: diagonal, perimeter and internal kernels per block step, "
      "shared-memory tiles",
      "memory",
      embedded::lud_ptx,
      {"n=128 (8 block steps)", "n=512 (32 block steps)",
       "n=1024 (64 block steps)", "n=2048 (128 block steps)"},
      run};
  return spec;
}

}  // namespace gpumux::workloads
