// dxtc: DXT1 compression of an RGBA image, 16 lanes per 4x4 block.
#include <algorithm>
#include <cmath>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

unsigned to565(int r, int g, int b) {
  return unsigned((r * 31 + 127) / 255) << 11 | unsigned((g * 63 + 127) / 255) << 5 |
         unsigned((b * 31 + 127) / 255);
}
void expand565(unsigned c, int& r, int& g, int& b) {
  int r5 = int(c >> 11), g6 = int(c >> 5) & 63, b5 = int(c) & 31;
  r = r5 << 3 | r5 >> 2;
  g = g6 << 2 | g6 >> 4;
  b = b5 << 3 | b5 >> 2;
}

// The kernel's algorithm for one block, with the same float roundings
// (std::fma for its fused operations, plain * and / for its _rn ones).
uint64_t compress_block(const uint32_t px[16]) {
  int r[16], g[16], b[16], sr = 0, sg = 0, sb = 0;
  for (int p = 0; p < 16; ++p) {
    r[p] = int(px[p] & 255), g[p] = int(px[p] >> 8 & 255), b[p] = int(px[p] >> 16 & 255);
    sr += r[p], sg += g[p], sb += b[p];
  }
  int cr[16], cg[16], cb[16], s00 = 0, s01 = 0, s02 = 0, s11 = 0, s12 = 0, s22 = 0;
  for (int p = 0; p < 16; ++p) {
    cr[p] = 16 * r[p] - sr, cg[p] = 16 * g[p] - sg, cb[p] = 16 * b[p] - sb;
    s00 += cr[p] * cr[p], s01 += cr[p] * cg[p], s02 += cr[p] * cb[p];
    s11 += cg[p] * cg[p], s12 += cg[p] * cb[p], s22 += cb[p] * cb[p];
  }
  const float k = 1.f / 256;
  float c00 = float(s00) * k, c01 = float(s01) * k, c02 = float(s02) * k, c11 = float(s11) * k,
        c12 = float(s12) * k, c22 = float(s22) * k;
  float v0 = 1, v1 = 1, v2 = 1;
  for (int it = 0; it < 4; ++it) {
    float w0 = std::fma(c02, v2, std::fma(c01, v1, c00 * v0));
    float w1 = std::fma(c12, v2, std::fma(c11, v1, c01 * v0));
    float w2 = std::fma(c22, v2, std::fma(c12, v1, c02 * v0));
    float m = std::fmax(std::fabs(w0), std::fmax(std::fabs(w1), std::fabs(w2)));
    if (m > 0.f) v0 = w0 / m, v1 = w1 / m, v2 = w2 / m;
  }
  int hi_p = 0, lo_p = 0;
  float hi = 0, lo = 0;
  for (int p = 0; p < 16; ++p) {
    float proj = std::fma(float(cb[p]), v2, std::fma(float(cg[p]), v1, float(cr[p]) * v0));
    if (p == 0 || proj > hi) hi = proj, hi_p = p;
    if (p == 0 || proj < lo) lo = proj, lo_p = p;
  }
  unsigned c0 = to565(r[hi_p], g[hi_p], b[hi_p]), c1 = to565(r[lo_p], g[lo_p], b[lo_p]);
  if (c0 < c1) std::swap(c0, c1);
  uint32_t bits = 0;
  if (c0 != c1) {
    int pr[4], pg[4], pb[4];
    expand565(c0, pr[0], pg[0], pb[0]);
    expand565(c1, pr[1], pg[1], pb[1]);
    pr[2] = (2 * pr[0] + pr[1]) / 3, pg[2] = (2 * pg[0] + pg[1]) / 3, pb[2] = (2 * pb[0] + pb[1]) / 3;
    pr[3] = (pr[0] + 2 * pr[1]) / 3, pg[3] = (pg[0] + 2 * pg[1]) / 3, pb[3] = (pb[0] + 2 * pb[1]) / 3;
    for (int p = 0; p < 16; ++p) {
      int best = 1 << 30;
      uint32_t index = 0;
      for (int i = 0; i < 4; ++i) {
        int d = (r[p] - pr[i]) * (r[p] - pr[i]) + (g[p] - pg[i]) * (g[p] - pg[i]) +
                (b[p] - pb[i]) * (b[p] - pb[i]);
        if (d < best) best = d, index = uint32_t(i);
      }
      bits |= index << (2 * p);
    }
  }
  return uint64_t(c0 | c1 << 16) | uint64_t(bits) << 32;
}

// A photo-like test image: smooth colour gradients and soft discs with
// noise, plus flat patches (which exercise the equal-endpoint case).
std::vector<uint32_t> make_image(Rng& rng, int w, int h) {
  struct Disc {
    double x, y, radius, r, g, b;
  };
  std::vector<Disc> discs(12);
  for (Disc& d : discs)
    d = {rng.uniform_d(0, w), rng.uniform_d(0, h), rng.uniform_d(4, w / 3.0 + 4),
         rng.uniform_d(0, 255), rng.uniform_d(0, 255), rng.uniform_d(0, 255)};
  std::vector<uint32_t> img(size_t(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double c[3] = {255.0 * x / w, 255.0 * y / h, 128.0};
      for (const Disc& d : discs) {
        double dist = std::hypot(x - d.x, y - d.y), a = std::clamp(d.radius - dist, 0.0, 1.0);
        c[0] += a * (d.r - c[0]), c[1] += a * (d.g - c[1]), c[2] += a * (d.b - c[2]);
      }
      bool flat = (x / 16 + y / 16) % 7 == 0;
      uint32_t px = 0xff000000u;
      for (int k = 0; k < 3; ++k) {
        double v = flat ? 90.0 + 40 * k : c[k] + rng.uniform_d(-6, 6);
        px |= uint32_t(std::clamp(v, 0.0, 255.0)) << (8 * k);
      }
      img[size_t(y) * w + x] = px;
    }
  return img;
}

CheckResult run_dxtc(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed, bool persistent) {
  const int w = host::by_size(size, 128, 512, 2048, 4096);
  const int h = host::by_size(size, 128, 256, 1024, 4096);
  const int passes = host::passes(size, 8);
  Rng rng(seed);
  std::vector<uint32_t> image = make_image(rng, w, h);
  const int num_blocks = (w / 4) * (h / 4);  // a multiple of the kernel's 4 blocks per TB

  runtime::DevPtr d_image = ctx.malloc_copy(image);
  runtime::DevPtr d_out = ctx.malloc(uint64_t(num_blocks) * 8);
  const int tbs = num_blocks / 4;
  for (int p = 0; p < passes; ++p)
    if (persistent)
      host::launch(ctx, mod.kernel("dxtc_compress_pt"), host::persistent_grid(ctx, 64, uint64_t(tbs)), 64, d_image,
                   w, d_out, tbs);
    else
      host::launch(ctx, mod.kernel("dxtc_compress"), uint32_t(tbs), 64, d_image, w, d_out);
  std::vector<uint64_t> got = ctx.read<uint64_t>(d_out, num_blocks);

  std::vector<uint64_t> want(num_blocks);
  for (int blk = 0; blk < num_blocks; ++blk) {
    int bx = blk % (w / 4), by = blk / (w / 4);
    uint32_t px[16];
    for (int p = 0; p < 16; ++p) px[p] = image[size_t(by * 4 + p / 4) * w + bx * 4 + p % 4];
    want[blk] = compress_block(px);
  }
  return check_exact(got, want, "DXT1 block");
}

const char* const kSizes[] = {"128x128 RGBA image (1024 blocks)", "512x256, 8 passes", "2048x1024 (131072 blocks)",
                              "4096x4096"};

}  // namespace

const WorkloadSpec& dxtc_workload() {
  static const WorkloadSpec pt{"dxtc-pt",
                               "dxtc with persistent threads: a resident grid whose TBs loop over the 4x4 blocks",
                               "compute",
                               embedded::dxtc_ptx,
                               {kSizes[0], kSizes[1], kSizes[2], kSizes[3]},
                               run_variant<run_dxtc, true>};
  static const WorkloadSpec spec{
      "dxtc",
      "DXT1 texture compression: 16 lanes per 4x4 block, shuffle reductions, f32 principal axis, bit packing",
      "compute",
      embedded::dxtc_ptx,
      {kSizes[0], kSizes[1], kSizes[2], kSizes[3]},
      run_variant<run_dxtc, false>,
      &pt};
  return spec;
}

}  // namespace gpumux::workloads
