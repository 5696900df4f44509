// conv2d: two-stage 7x7 filtering (smoothing, then edge enhancement) of a multi-channel image.
#include <cmath>

#include "common/fp_checks.h"
#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr int kRadius = 3, kTaps = 2 * kRadius + 1, kTile = 16;

std::vector<float> gaussian(double sigma) {
  std::vector<float> f(kTaps * kTaps);
  double total = 0;
  for (int y = -kRadius; y <= kRadius; ++y)
    for (int x = -kRadius; x <= kRadius; ++x) total += std::exp(-(x * x + y * y) / (2 * sigma * sigma));
  for (int y = -kRadius; y <= kRadius; ++y)
    for (int x = -kRadius; x <= kRadius; ++x)
      f[(y + kRadius) * kTaps + x + kRadius] =
          float(std::exp(-(x * x + y * y) / (2 * sigma * sigma)) / total);
  return f;
}

// Reference of one stage from the stage's actual float input; bound: 49
// products and sums, one rounding each.
CheckResult check_stage(const std::vector<float>& got, const std::vector<float>& in,
                        const std::vector<float>& filter, int w, int h, int channels,
                        const char* what) {
  std::vector<fp::Accum> acc(in.size());
  for (int c = 0; c < channels; ++c)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        fp::Accum& a = acc[(size_t(c) * h + y) * w + x];
        for (int fy = 0; fy < kTaps; ++fy)
          for (int fx = 0; fx < kTaps; ++fx) {
            int sx = x + fx - kRadius, sy = y + fy - kRadius;
            if (sx < 0 || sx >= w || sy < 0 || sy >= h) continue;
            a.add(double(filter[fy * kTaps + fx]) * in[(size_t(c) * h + sy) * w + sx]);
          }
      }
  std::vector<double> want, bound;
  fp::split_bounds(acc, kTaps * kTaps + 2, 0, want, bound);
  return fp::check_within(got, want, bound, what);
}

CheckResult run_conv2d(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed, bool persistent) {
  const int w = host::by_size(size, 128, 384, 1024, 2048);
  const int h = host::by_size(size, 128, 384, 512, 2048);
  const int channels = host::by_size(size, 1, 1, 3, 3);
  const int passes = host::passes(size, 11);
  Rng rng(seed);
  std::vector<float> image = host::random_floats(rng, size_t(w) * h * channels, 0.f, 1.f);
  // Stage 1 smooths; stage 2 is a difference of Gaussians (edge enhancement).
  std::vector<float> smooth = gaussian(1.0), wide = gaussian(2.0), dog(kTaps * kTaps);
  for (int i = 0; i < kTaps * kTaps; ++i) dog[i] = 2.f * smooth[i] - wide[i];

  const size_t bytes = image.size() * sizeof(float);
  runtime::DevPtr d_image = ctx.malloc_copy(image), d_smooth = ctx.malloc(bytes),
                  d_edges = ctx.malloc(bytes);
  const runtime::Dim3 grid(host::blocks_for(w, kTile), host::blocks_for(h, kTile), channels);
  const runtime::Dim3 block(kTile, kTile);
  auto filter = [&](runtime::DevPtr in, runtime::DevPtr out) {
    if (persistent)  // the same blocks in a resident 1D grid
      host::launch(ctx, mod.kernel("conv2d_filter_pt"),
                   {host::persistent_grid(ctx, kTile * kTile, uint64_t(grid.x) * grid.y * grid.z)}, block, in, out, w,
                   h, channels);
    else
      host::launch(ctx, mod.kernel("conv2d_filter"), grid, block, in, out, w, h);
  };
  // Repeated passes of a stage recompute the same output from the same input.
  ctx.memcpy_to_symbol(mod, "c_filter", smooth.data(), smooth.size() * sizeof(float));
  for (int p = 0; p < passes; ++p) filter(d_image, d_smooth);
  ctx.memcpy_to_symbol(mod, "c_filter", dog.data(), dog.size() * sizeof(float));
  for (int p = 0; p < passes; ++p) filter(d_smooth, d_edges);
  std::vector<float> got_smooth = ctx.read<float>(d_smooth, image.size());
  std::vector<float> got_edges = ctx.read<float>(d_edges, image.size());
  return host::check_all({check_stage(got_smooth, image, smooth, w, h, channels, "smoothed"),
                          check_stage(got_edges, got_smooth, dog, w, h, channels, "edges")});
}

const char* const kSizes[] = {"128x128, 1 channel, 2 passes", "384x384, 1 channel, 2 passes of 11 launches each",
                              "1024x512, 3 channels, 2 passes", "2048x2048, 3 channels, 2 passes"};

}  // namespace

const WorkloadSpec& conv2d_workload() {
  static const WorkloadSpec pt{"conv2d-pt",
                               "conv2d with persistent threads: a resident grid whose blocks loop over the tiles",
                               "compute",
                               embedded::conv2d_ptx,
                               {kSizes[0], kSizes[1], kSizes[2], kSizes[3]},
                               run_variant<run_conv2d, true>};
  static const WorkloadSpec spec{
      "conv2d",
      "2D 7x7 convolution, filter in constant memory, shared tiles with apron; two filter passes",
      "compute",
      embedded::conv2d_ptx,
      {kSizes[0], kSizes[1], kSizes[2], kSizes[3]},
      run_variant<run_conv2d, false>,
      &pt};
  return spec;
}

}  // namespace gpumux::workloads
