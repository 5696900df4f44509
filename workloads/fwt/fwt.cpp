// fwt: dyadic convolution through fast Walsh-Hadamard transforms
// (global radix-4/radix-2 passes, then shared-memory chunk passes).
#include <cmath>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr int kChunk = 1024;  // CHUNK in the kernel

void transform(runtime::Context& ctx, runtime::Module& mod, runtime::DevPtr data, int n) {
  const uint32_t block = 256;
  int stride = n / 2;
  // Wide strides, two stages per pass while two are left above the chunk size.
  for (; stride >= 2 * kChunk; stride /= 4)
    host::launch(ctx, mod.kernel("fwt_radix4"), {host::blocks_for(n / 4, block)}, {block}, data,
                 stride / 2, n);
  if (stride >= kChunk)
    host::launch(ctx, mod.kernel("fwt_radix2"), {host::blocks_for(n / 2, block)}, {block}, data,
                 stride, n);
  host::launch(ctx, mod.kernel("fwt_chunk"), {uint32_t(n / kChunk)}, {block}, data);
}

void transform_reference(std::vector<double>& v) {
  for (size_t s = 1; s < v.size(); s *= 2)
    for (size_t i = 0; i < v.size(); i += 2 * s)
      for (size_t j = i; j < i + s; ++j) {
        double u = v[j], w = v[j + s];
        v[j] = u + w;
        v[j + s] = u - w;
      }
}

CheckResult run(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  const int log2n = host::by_size(size, 13, 18, 22, 24);
  const int passes = host::passes(size, 2);
  const int n = 1 << log2n;
  Rng rng(seed);
  std::vector<float> data = host::random_floats(rng, n, -1.f, 1.f);
  // A short filter: a few taps at random positions, zero elsewhere.
  std::vector<float> filter(n, 0.f);
  for (int t = 0; t < 64; ++t) filter[rng.below(n)] = rng.uniform(-1.f, 1.f);

  runtime::DevPtr d_data = ctx.malloc_copy(data), d_filter = ctx.malloc_copy(filter);
  // The transforms work in place: repeated passes start again from device
  // copies of the inputs.
  const uint64_t bytes = uint64_t(n) * sizeof(float);
  runtime::DevPtr d_data0 = 0, d_filter0 = 0;
  if (passes > 1) {
    d_data0 = ctx.malloc(bytes);
    d_filter0 = ctx.malloc(bytes);
    ctx.memcpy_d2d(d_data0, d_data, bytes);
    ctx.memcpy_d2d(d_filter0, d_filter, bytes);
  }
  for (int p = 0; p < passes; ++p) {
    if (p > 0) {
      ctx.memcpy_d2d(d_data, d_data0, bytes);
      ctx.memcpy_d2d(d_filter, d_filter0, bytes);
    }
    transform(ctx, mod, d_data, n);
    transform(ctx, mod, d_filter, n);
    host::launch(ctx, mod.kernel("fwt_modulate"), {host::by_size(size, 32u, 128u, 256u, 512u)},
                 {256u}, d_data, d_filter, n);
    transform(ctx, mod, d_data, n);
  }
  std::vector<float> got = ctx.read<float>(d_data, n);
  for (runtime::DevPtr p : {d_data, d_filter, d_data0, d_filter0})
    if (p) ctx.free(p);

  // Reference in double: result = H(H(d) . H(k)) / n, the dyadic convolution.
  std::vector<double> hd(data.begin(), data.end()), hk(filter.begin(), filter.end());
  transform_reference(hd);
  transform_reference(hk);
  double sum_d = 0, sum_k = 0, sum_p = 0, sum_dk = 0, sum_kd = 0;
  for (float v : data) sum_d += std::fabs(v);
  for (float v : filter) sum_k += std::fabs(v);
  std::vector<double> want(n);
  for (int j = 0; j < n; ++j) {
    want[j] = hd[j] * hk[j] / n;
    sum_p += std::fabs(want[j]);
    sum_dk += std::fabs(hd[j]) * sum_k / n;
    sum_kd += std::fabs(hk[j]) * sum_d / n;
  }
  transform_reference(want);
  // Rounding analysis: a float transform of m stages is off by at most
  // m*u*sum|input| in every output (each stage rounds values whose
  // magnitudes, over the inputs an output depends on, sum to at most
  // sum|input|). Propagating the spectra's errors through the product (two
  // more roundings) and the last transform gives, for every output,
  //   m*u*(sum|P| + sum_j |Hd_j| K/n + |Hk_j| D/n) + 2u*sum|P|,
  // doubled for second-order terms.
  const double u = 1.0 / 16777216.0, m = log2n;
  const double bound = 2 * (m * u * (sum_p + sum_dk + sum_kd) + 2 * u * sum_p);
  std::vector<float> want_f(want.begin(), want.end());
  return check_close(got, want_f, 0, bound, "convolution");
}

}  // namespace

const WorkloadSpec& fwt_workload() {
  static const WorkloadSpec spec{
      "fwt",
      "dyadic convolution by fast Walsh transforms: global radix-4/radix-2 stages, "
      "shared-memory chunk stages, modulation kernel",
      "memory",
      embedded::fwt_ptx,
      {"n=2^13, 3 transforms", "n=2^18, 3 transforms, 2 passes",
       "n=2^22, 3 transforms", "n=2^24, 3 transforms"},
      run};
  return spec;
}

}  // namespace gpumux::workloads
