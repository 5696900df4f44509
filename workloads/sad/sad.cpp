// sad: H.264 motion-estimation SADs of every partition over a +-16 search window.
#include <algorithm>
#include <cmath>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr int kRange = 16, kSide = 2 * kRange + 1, kPositions = kSide * kSide;
constexpr int kPartitions = 41;

// A textured reference frame, and a current frame that is the reference moved
// by a global motion vector plus sensor noise, so the SAD surface has a minimum.
void make_frames(Rng& rng, int w, int h, std::vector<uint8_t>& cur, std::vector<uint8_t>& ref) {
  double fx[3], fy[3], amp[3];
  for (int i = 0; i < 3; ++i) {
    fx[i] = rng.uniform_d(0.02, 0.3);
    fy[i] = rng.uniform_d(0.02, 0.3);
    amp[i] = rng.uniform_d(15, 40);
  }
  auto texture = [&](int x, int y) {
    double v = 128;
    for (int i = 0; i < 3; ++i) v += amp[i] * std::sin(fx[i] * x + fy[i] * y * (i + 1));
    return v;
  };
  const int mvx = int(rng.below(9)) - 4, mvy = int(rng.below(9)) - 4;
  ref.resize(size_t(w) * h);
  cur.resize(size_t(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      ref[size_t(y) * w + x] = uint8_t(std::clamp(texture(x, y) + rng.uniform_d(-8, 8), 0.0, 255.0));
      cur[size_t(y) * w + x] =
          uint8_t(std::clamp(texture(x + mvx, y + mvy) + rng.uniform_d(-8, 8), 0.0, 255.0));
    }
}

std::vector<uint16_t> reference_sads(const std::vector<uint8_t>& cur,
                                     const std::vector<uint8_t>& ref, int w, int h) {
  const int mbs_x = w / 16, mbs_y = h / 16;
  std::vector<uint16_t> out(size_t(mbs_x) * mbs_y * kPartitions * kPositions);
  auto ref_at = [&](int x, int y) {
    return int(ref[size_t(std::clamp(y, 0, h - 1)) * w + std::clamp(x, 0, w - 1)]);
  };
  for (int my = 0; my < mbs_y; ++my)
    for (int mx = 0; mx < mbs_x; ++mx) {
      uint16_t* mb_out = &out[size_t(my * mbs_x + mx) * kPartitions * kPositions];
      for (int pos = 0; pos < kPositions; ++pos) {
        int dy = pos / kSide - kRange, dx = pos % kSide - kRange;
        unsigned s4[4][4] = {};
        for (int y = 0; y < 16; ++y)
          for (int x = 0; x < 16; ++x) {
            int c = cur[size_t(my * 16 + y) * w + mx * 16 + x];
            s4[y / 4][x / 4] += std::abs(c - ref_at(mx * 16 + x + dx, my * 16 + y + dy));
          }
        // Partition sums by area, in the kernel's numbering.
        auto put = [&](int part, unsigned v) { mb_out[size_t(part) * kPositions + pos] = uint16_t(v); };
        auto area = [&](int y0, int x0, int hh, int ww) {
          unsigned s = 0;
          for (int y = y0; y < y0 + hh; ++y)
            for (int x = x0; x < x0 + ww; ++x) s += s4[y][x];
          return s;
        };
        for (int b = 0; b < 16; ++b) put(b, s4[b / 4][b % 4]);
        for (int b = 0; b < 8; ++b) put(16 + b, area(b / 2, (b % 2) * 2, 1, 2));   // 8x4
        for (int b = 0; b < 8; ++b) put(24 + b, area((b / 4) * 2, b % 4, 2, 1));   // 4x8
        for (int b = 0; b < 4; ++b) put(32 + b, area((b / 2) * 2, (b % 2) * 2, 2, 2));
        for (int b = 0; b < 2; ++b) put(36 + b, area(b * 2, 0, 2, 4));             // 16x8
        for (int b = 0; b < 2; ++b) put(38 + b, area(0, b * 2, 4, 2));             // 8x16
        put(40, area(0, 0, 4, 4));
      }
    }
  return out;
}

CheckResult run_sad(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  const int w = host::by_size(size, 32, 128, 640, 1280);
  const int h = host::by_size(size, 32, 96, 480, 720);
  const int passes = host::passes(size, 7);
  Rng rng(seed);
  std::vector<uint8_t> cur, ref;
  make_frames(rng, w, h, cur, ref);

  const int mbs_x = w / 16, mbs_y = h / 16, mbs = mbs_x * mbs_y;
  const uint64_t out_count = uint64_t(mbs) * kPartitions * kPositions;
  runtime::DevPtr d_cur = ctx.malloc_copy(cur), d_ref = ctx.malloc_copy(ref);
  runtime::DevPtr d_sads = ctx.malloc(out_count * sizeof(uint16_t));
  const runtime::Dim3 grid(host::blocks_for(kPositions, 128), mbs);
  for (int p = 0; p < passes; ++p) {  // each pass recomputes every SAD from the frames
    host::launch(ctx, mod.kernel("sad_4x4"), runtime::Dim3(mbs_x, mbs_y), 128, d_cur, d_ref, w, h,
                 d_sads);
    host::launch(ctx, mod.kernel("sad_8x8"), grid, 128, d_sads);
    host::launch(ctx, mod.kernel("sad_16x16"), grid, 128, d_sads);
  }
  std::vector<uint16_t> got = ctx.read<uint16_t>(d_sads, out_count);
  return check_exact(got, reference_sads(cur, ref, w, h), "SAD");
}

}  // namespace

const WorkloadSpec& sad_workload() {
  static const WorkloadSpec spec{
      "sad",
      "H.264 motion estimation: SADs of all 41 partitions per macroblock over a +-16 window (3 kernels)",
      "compute",
      embedded::sad_ptx,
      {"32x32 frame (4 macroblocks)", "128x96 frame (48 macroblocks), 7 passes",
       "640x480 VGA frame (1200 macroblocks)", "1280x720 frame (3600 macroblocks)"},
      run_sad};
  return spec;
}

}  // namespace gpumux::workloads
