// hotspot: RC thermal simulation of a chip, several time steps per launch (pyramid).
#include <algorithm>
#include <cmath>

#include "common/fp_checks.h"
#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr int kBlock = 16;

// Model constants (per-step, already divided by the cell's heat capacity):
// lateral conductances, vertical conductance to the heat sink, ambient (K).
constexpr float kStepDivCap = 0.5f, kRxInv = 0.2f, kRyInv = 0.2f, kRzInv = 0.02f;
constexpr float kAmbient = 320.f;

CheckResult run_hotspot(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  const int n = host::by_size(size, 64, 320, 512, 1024);  // grid side
  const int total_steps = host::by_size(size, 8, 52, 20, 60);
  const int pyramid = 2;
  Rng rng(seed);
  // Hot functional units on a cooler background, and temperatures around ambient.
  std::vector<float> power(size_t(n) * n), temp = host::random_floats(rng, size_t(n) * n, 320.f, 345.f);
  for (size_t i = 0; i < power.size(); ++i) power[i] = rng.uniform(0.f, 0.2f);
  for (int unit = 0; unit < 12; ++unit) {
    int x0 = int(rng.below(n)), y0 = int(rng.below(n)), w = 1 + int(rng.below(n / 4)),
        h = 1 + int(rng.below(n / 4));
    float p = rng.uniform(0.5f, 2.f);
    for (int y = y0; y < std::min(n, y0 + h); ++y)
      for (int x = x0; x < std::min(n, x0 + w); ++x) power[size_t(y) * n + x] = p;
  }

  runtime::DevPtr d_power = ctx.malloc_copy(power);
  runtime::DevPtr d_temp[2] = {ctx.malloc_copy(temp), ctx.malloc(temp.size() * sizeof(float))};
  runtime::Kernel kernel = mod.kernel("hotspot_pyramid");
  int cur = 0;
  for (int done = 0; done < total_steps; done += pyramid) {
    int steps = std::min(pyramid, total_steps - done);
    uint32_t blocks = host::blocks_for(n, kBlock - 2 * steps);
    host::launch(ctx, kernel, runtime::Dim3(blocks, blocks), runtime::Dim3(kBlock, kBlock),
                 d_power, d_temp[cur], d_temp[1 - cur], n, n, steps, kStepDivCap, kRxInv, kRyInv,
                 kRzInv, kAmbient);
    cur = 1 - cur;
  }
  std::vector<float> got = ctx.read<float>(d_temp[cur], temp.size());

  // Reference in double, one step at a time over the whole grid.
  std::vector<double> t(temp.begin(), temp.end()), next(t.size());
  for (int s = 0; s < total_steps; ++s) {
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        size_t i = size_t(y) * n + x;
        double c = t[i];
        double north = y > 0 ? t[i - n] : c, south = y < n - 1 ? t[i + n] : c;
        double west = x > 0 ? t[i - 1] : c, east = x < n - 1 ? t[i + 1] : c;
        next[i] = c + double(kStepDivCap) * (power[i] + (north + south - 2 * c) * double(kRyInv) +
                                             (east + west - 2 * c) * double(kRxInv) +
                                             (double(kAmbient) - c) * double(kRzInv));
      }
    t.swap(next);
  }
  // Each float step rounds a handful of values of the temperatures' magnitude;
  // diffusion averages errors rather than amplifying them, so they add up linearly.
  double t_max = *std::max_element(t.begin(), t.end());
  std::vector<double> bound(t.size(), total_steps * 24 * fp::kF32Unit * t_max);
  return fp::check_within(got, t, bound, "temperature");
}

}  // namespace

const WorkloadSpec& hotspot_workload() {
  static const WorkloadSpec spec{
      "hotspot",
      "2D thermal stencil, 16x16 shared tiles, 2 time steps per launch (pyramid), ping-pong launches",
      "compute",
      embedded::hotspot_ptx,
      {"64x64 grid, 8 steps (4 launches)", "320x320 grid, 52 steps (26 launches)",
       "512x512 grid, 20 steps (10 launches)", "1024x1024 grid, 60 steps (30 launches)"},
      run_hotspot};
  return spec;
}

}  // namespace gpumux::workloads
