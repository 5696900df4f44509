// binomial: CRR binomial-tree pricing of European calls in double, one block per option.
#include <algorithm>
#include <cmath>

#include "common/fp_checks.h"
#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr int kNodesPerThread = 8;
constexpr double kRiskFree = 0.02, kVolatility = 0.30;

double reference_price(double s, double x, double years, int steps) {
  double dt = years / steps, vdt = kVolatility * std::sqrt(dt);
  double growth = std::exp(kRiskFree * dt), up = std::exp(vdt), down = std::exp(-vdt);
  double p_up = (growth - down) / (up - down), discount = std::exp(-kRiskFree * dt);
  double w_up = p_up * discount, w_down = (1 - p_up) * discount;
  std::vector<double> v(steps + 1);
  for (int i = 0; i <= steps; ++i) v[i] = std::max(s * std::exp(vdt * (2 * i - steps)) - x, 0.0);
  for (int n = steps; n > 0; --n)
    for (int i = 0; i < n; ++i) v[i] = w_up * v[i + 1] + w_down * v[i];
  return v[0];
}

CheckResult run_binomial(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed, bool persistent) {
  const int options = host::by_size(size, 16, 256, 1024, 2048);
  const int steps = host::by_size(size, 255, 511, 511, 1023);
  const uint32_t threads = uint32_t((steps + 1 + kNodesPerThread * 32 - 1) / (kNodesPerThread * 32) * 32);
  Rng rng(seed);
  std::vector<double> spot(options), strike(options), years(options);
  for (int i = 0; i < options; ++i) {
    spot[i] = rng.uniform_d(5, 30);
    strike[i] = rng.uniform_d(1, 100);
    years[i] = rng.uniform_d(0.25, 10);
  }
  runtime::DevPtr d_spot = ctx.malloc_copy(spot), d_strike = ctx.malloc_copy(strike),
                  d_years = ctx.malloc_copy(years);
  runtime::DevPtr d_price = ctx.malloc(options * sizeof(double));
  runtime::KernelArgs args;
  args.add(d_spot).add(d_strike).add(d_years).add(kRiskFree).add(kVolatility).add(steps).add(d_price);
  if (persistent) args.add(options);
  // Dynamic shared memory: the double-buffered first node of every thread.
  ctx.launch(mod.kernel(persistent ? "binomial_price_pt" : "binomial_price"),
             persistent ? host::persistent_grid(ctx, threads, uint64_t(options)) : uint32_t(options), threads,
             2 * threads * sizeof(double), runtime::Stream{}, args);
  std::vector<double> got = ctx.read<double>(d_price, options);

  // The backward induction averages, so rounding errors do not grow beyond a
  // few ulps per step; exp() may differ by an ulp between the two libraries.
  std::vector<double> want(options), bound(options);
  for (int i = 0; i < options; ++i) {
    want[i] = reference_price(spot[i], strike[i], years[i], steps);
    bound[i] = (steps + 64) * 8 * fp::kF64Unit * std::max(spot[i], strike[i]);
  }
  return fp::check_within(got, want, bound, "call price");
}

const char* const kSizes[] = {"16 options, 255 steps", "256 options, 511 steps", "1024 options, 511 steps",
                              "2048 options, 1023 steps"};

}  // namespace

const WorkloadSpec& binomial_workload() {
  static const WorkloadSpec pt{"binomial-pt",
                               "binomial with persistent threads: a resident grid whose blocks loop over the options",
                               "compute",
                               embedded::binomial_ptx,
                               {kSizes[0], kSizes[1], kSizes[2], kSizes[3]},
                               run_variant<run_binomial, true>};
  static const WorkloadSpec spec{
      "binomial",
      "binomial-tree option pricing in f64, one block per option, register nodes + shared exchange",
      "compute",
      embedded::binomial_ptx,
      {kSizes[0], kSizes[1], kSizes[2], kSizes[3]},
      run_variant<run_binomial, false>,
      &pt};
  return spec;
}

}  // namespace gpumux::workloads
