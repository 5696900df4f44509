// histo: shared-memory privatized histogram with a global merge, repeated.
#include <algorithm>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr int kBins = 1024, kLevelShift = 2;  // as in the kernel

CheckResult run(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed, bool persistent) {
  // Paper: Parboil's default 996 x 1040 image and 20 iterations (Tanasic thesis, table 5.2).
  const int width = host::by_size(size, 256, 1024, 4096, 8192, 996);
  const int height = host::by_size(size, 192, 768, 3072, 8192, 1040);
  const int iters = host::by_size(size, 2, 32, 8, 8, 20);
  const int n = width * height;
  Rng rng(seed);
  // A synthetic 12-bit image: a few bright blobs (hot bins, heavy atomic
  // contention) over a noisy dark background.
  int peaks[4];
  for (int& p : peaks) p = int(rng.below(4096));
  std::vector<uint16_t> pixels(n);
  for (auto& px : pixels) {
    int v;
    if (rng.below(100) < 60) {
      int center = peaks[rng.below(4)];
      int spread = int(rng.below(64)) + int(rng.below(64)) - 64;  // triangular around the peak
      v = center + spread;
    } else {
      v = int(rng.below(4096)) / 8;  // dark background
    }
    px = uint16_t(std::clamp(v, 0, 4095));
  }

  runtime::DevPtr d_pixels = ctx.malloc_copy(pixels);
  runtime::DevPtr d_hist = ctx.malloc(kBins * sizeof(uint32_t)), d_hist8 = ctx.malloc(kBins);
  runtime::Kernel k_private = mod.kernel("histo_private"), k_saturate = mod.kernel("histo_saturate");
  const uint32_t block = 256;
  // A fixed grid that does not cover the image: each thread strides over many pixels.
  // Medium keeps tiny's 16 blocks: each pass then lasts long against its launch latency.
  // Paper: 4 x the 84 TBs of the thesis's main kernel (table 5.2), which brings
  // each TB's share of the image to the thesis's TB length (docs/workloads.md,
  // "Paper"). The kernel is persistent already: the -pt variant only sizes the
  // grid to stay resident.
  const uint32_t grid =
      persistent ? host::persistent_grid(ctx, block, host::blocks_for(n, block))
                 : std::min<uint32_t>(host::blocks_for(n, block), host::by_size(size, 16u, 16u, 64u, 128u, 336u));
  for (int it = 0; it < iters; ++it) {
    ctx.memset(d_hist, 0, kBins * sizeof(uint32_t));
    host::launch(ctx, k_private, {grid}, {block}, d_pixels, n, d_hist);
    host::launch(ctx, k_saturate, {host::blocks_for(kBins, block)}, {block}, d_hist, d_hist8, kBins);
  }
  std::vector<uint32_t> hist = ctx.read<uint32_t>(d_hist, kBins);
  std::vector<uint8_t> hist8 = ctx.read<uint8_t>(d_hist8, kBins);
  for (runtime::DevPtr p : {d_pixels, d_hist, d_hist8}) ctx.free(p);

  std::vector<uint32_t> want(kBins, 0);
  for (uint16_t px : pixels) ++want[px >> kLevelShift];
  std::vector<uint8_t> want8(kBins);
  for (int b = 0; b < kBins; ++b) want8[b] = uint8_t(std::min<uint32_t>(want[b], 255));
  // uint8_t would print as characters: compare the saturated bins as ints.
  std::vector<int> got8_i(hist8.begin(), hist8.end()), want8_i(want8.begin(), want8.end());
  return host::check_all({check_exact(hist, want, "hist"), check_exact(got8_i, want8_i, "hist8")});
}

const char* const kSizes[] = {"256x192 image, 2 passes", "1024x768 image, 32 passes", "4096x3072 image, 8 passes",
                              "8192x8192 image, 8 passes", "996x1040 image, 20 passes, 336 TBs"};

}  // namespace

const WorkloadSpec& histo_workload() {
  static const WorkloadSpec pt{"histo-pt",
                               "histo with persistent threads: the privatizing kernel's grid sized to stay resident",
                               "memory",
                               embedded::histo_ptx,
                               {kSizes[0], kSizes[1], kSizes[2], kSizes[3], kSizes[4]},
                               run_variant<run, true>};
  static const WorkloadSpec spec{
      "histo",
      "1024-bin histogram: per-block shared-memory atomics, global atomic merge, saturation kernel",
      "memory",
      embedded::histo_ptx,
      {kSizes[0], kSizes[1], kSizes[2], kSizes[3], kSizes[4]},
      run_variant<run, false>,
      &pt};
  return spec;
}

}  // namespace gpumux::workloads
