// blackscholes: f32 Black-Scholes call and put prices, one launch per trading day.
#include <cmath>

#include "common/fp_checks.h"
#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr float kRiskFree = 0.02f, kVolatility = 0.30f;

// The kernel's CDF approximation in double: the reference differs from the
// kernel by rounding only.
double normal_cdf(double d) {
  const double b1 = 0.31938153, b2 = -0.356563782, b3 = 1.781477937, b4 = -1.821255978,
               b5 = 1.330274429, p = 0.2316419, inv_sqrt_2pi = 0.39894228040143267794;
  double k = 1.0 / (1.0 + p * std::fabs(d));
  double tail = inv_sqrt_2pi * std::exp(-0.5 * d * d) * (k * (b1 + k * (b2 + k * (b3 + k * (b4 + k * b5)))));
  return d > 0 ? 1.0 - tail : tail;
}

CheckResult run_blackscholes(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  const int n = host::by_size(size, 8192, 1 << 16, 2 << 20, 8 << 20);
  const int days = 4;
  const int passes = host::passes(size, 12);
  Rng rng(seed);
  std::vector<float> spot = host::random_floats(rng, n, 5.f, 30.f);
  std::vector<float> strike = host::random_floats(rng, n, 1.f, 100.f);
  std::vector<float> years = host::random_floats(rng, n, 0.25f, 10.f);
  runtime::DevPtr d_spot = ctx.malloc_copy(spot), d_strike = ctx.malloc_copy(strike),
                  d_years = ctx.malloc_copy(years);
  runtime::DevPtr d_call = ctx.malloc(uint64_t(n) * days * sizeof(float));
  runtime::DevPtr d_put = ctx.malloc(uint64_t(n) * days * sizeof(float));
  runtime::Kernel kernel = mod.kernel("blackscholes_price");
  const uint32_t blocks = host::by_size(size, 32u, 120u, 480u, 480u);
  for (int p = 0; p < passes; ++p)  // each pass prices every day again from the same inputs
    for (int day = 0; day < days; ++day) {
      uint64_t off = uint64_t(day) * n * sizeof(float);
      host::launch(ctx, kernel, blocks, 128, d_spot, d_strike, d_years, float(day) / 252.f,
                   kRiskFree, kVolatility, d_call + off, d_put + off, n);
    }
  std::vector<float> got_call = ctx.read<float>(d_call, size_t(n) * days);
  std::vector<float> got_put = ctx.read<float>(d_put, size_t(n) * days);

  // Error budget of the f32 evaluation: d1 and d2 inherit a few ulps of the
  // log and the drift term, scaled by 1/(v sqrt t); the CDF's slope is at most
  // 0.4; the final products and difference add a few ulps of their terms.
  const double u = fp::kF32Unit;
  std::vector<double> want_call(got_call.size()), want_put(got_put.size()),
      bound_call(got_call.size()), bound_put(got_put.size());
  for (int day = 0; day < days; ++day)
    for (int i = 0; i < n; ++i) {
      double s = spot[i], x = strike[i], t = double(float(years[i] - float(day) / 252.f));
      double v = kVolatility, r = kRiskFree, vst = v * std::sqrt(t);
      double log_sx = std::log(s / x), drift = (r + 0.5 * v * v) * t;
      double d1 = (log_sx + drift) / vst, d2 = d1 - vst;
      double c1 = normal_cdf(d1), c2 = normal_cdf(d2), disc = x * std::exp(-r * t);
      size_t k = size_t(day) * n + i;
      want_call[k] = s * c1 - disc * c2;
      want_put[k] = disc * (1 - c2) - s * (1 - c1);
      double d_err = 16 * u * (std::fabs(log_sx) + drift + std::fabs(d1) * vst + vst) / vst;
      double cdf_err = 0.4 * d_err + 16 * u;
      bound_call[k] = (s + disc) * cdf_err + 16 * u * (s * c1 + disc * c2);
      bound_put[k] = (s + disc) * cdf_err + 16 * u * (disc * (1 - c2) + s * (1 - c1));
    }
  return host::check_all({fp::check_within(got_call, want_call, bound_call, "call"),
                          fp::check_within(got_put, want_put, bound_put, "put")});
}

}  // namespace

const WorkloadSpec& blackscholes_workload() {
  static const WorkloadSpec spec{
      "blackscholes",
      "Black-Scholes call/put pricing in f32 (log, exp, sqrt, CDF polynomial), grid-stride, one launch per day",
      "compute",
      embedded::blackscholes_ptx,
      {"8192 options x 4 days", "65536 options x 4 days, 12 passes",
       "2M options x 4 days", "8M options x 4 days"},
      run_blackscholes};
  return spec;
}

}  // namespace gpumux::workloads
