// leukocyte: detection of cells in the first frame of a synthetic video
// microscopy sequence (GICOV scores, then a disk dilation to find their local
// maxima) and tracking of the detected cells through the next frames (one
// IMGVF block per cell and frame).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "common/fp_checks.h"
#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr int kTile = 16;                                   // GICOV and dilation blocks: 16x16
constexpr int kMaxRadii = 7, kMaxPoints = 150, kMaxDilate = 12;  // as the kernels' tables
constexpr int kImgvfThreads = 320, kImgvfWarps = kImgvfThreads / 32, kMaxSubPixels = 41 * 81;
constexpr int kMinRadius = 6, kMaxRadius = 12;              // circles GICOV tries
constexpr float kDetectThreshold = 2.f;                     // GICOV score of a cell
// IMGVF: mu / lambda and 1 / lambda of the update (mu 0.5, lambda 8: the eight
// Heaviside-weighted differences move a pixel by at most half of their sum,
// which keeps the explicit iteration stable), Heaviside smoothing, and how
// much the cell's last displacement biases the flow toward its direction.
constexpr float kMuOverLambda = 0.0625f, kInvLambda = 0.125f, kEps = 0.01f, kMotion = 0.01f;
// Cells roll along the vessel: a common drift (pixels per frame, the tracker's
// prior for a cell's first displacement) plus a velocity of their own.
constexpr float kDriftX = 1.5f, kDriftY = 0.f;
// Unit directions of the eight neighbours, in the kernel's order N, S, W, E, NW, NE, SW, SE.
constexpr int kDirX[8] = {0, 0, -1, 1, -1, 1, -1, 1}, kDirY[8] = {-1, 1, 0, 0, -1, -1, 1, 1};

struct Shape {
  int width, height;     // frame
  int cells, frames;     // cells drawn; frame 0 detects, the others track
  int radii, points;     // GICOV circles and samples per circle
  int dilate;            // radius of the dilation's disk
  int sub_rows, sub_cols, max_iters;  // IMGVF sub-image and iteration cap
  float tol;             // IMGVF convergence: mean |change| per iteration
};

Shape shape_of(Size s) {
  switch (s) {
    case Size::Tiny: return {72, 56, 2, 2, 3, 16, 4, 21, 41, 40, 5e-3f};
    case Size::Medium: return {208, 144, 48, 2, 7, 24, 12, 41, 81, 24, 4e-3f};
    case Size::Small: return {192, 144, 32, 2, 7, 150, 12, 41, 81, 80, 1e-3f};
    case Size::Large: return {320, 240, 64, 3, 7, 150, 12, 41, 81, 200, 5e-4f};
    // Shaped like Rodinia's default input as we recall it (an estimate, not
    // checked against the suite: 640-pixel-wide frames cropped to 219 rows, a
    // few dozen cells, circles of 150 points, IMGVF capped at 500 iterations).
    case Size::Paper: return {640, 219, 36, 2, 7, 150, 12, 41, 81, 500, 1e-3f};
  }
  return {};
}

// Radius of GICOV circle r of sh.radii, evenly spaced over [kMinRadius, kMaxRadius].
double circle_radius(const Shape& sh, int r) {
  return sh.radii == 1 ? kMaxRadius : kMinRadius + double(kMaxRadius - kMinRadius) * r / (sh.radii - 1);
}

struct Cell {
  float x, y, vx, vy, r;
};

// Bright, unevenly lit background with sensor noise; each cell a darker disc
// with a soft two-pixel rim, so the gradient on its rim points outward.
std::vector<float> render(const std::vector<Cell>& cells, int frame, int w, int h, Rng& rng) {
  std::vector<float> img(size_t(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      img[size_t(y) * w + x] = 0.6f + 0.1f * float(x) / float(w) + rng.uniform(-0.04f, 0.04f);
  for (const Cell& c : cells) {
    const float cx = c.x + float(frame) * c.vx, cy = c.y + float(frame) * c.vy;
    for (int y = std::max(0, int(cy - c.r - 2)); y <= std::min(h - 1, int(cy + c.r + 2)); ++y)
      for (int x = std::max(0, int(cx - c.r - 2)); x <= std::min(w - 1, int(cx + c.r + 2)); ++x) {
        const float dist = std::hypot(float(x) - cx, float(y) - cy);
        img[size_t(y) * w + x] -= 0.3f * std::clamp((c.r + 1.f - dist) * 0.5f, 0.f, 1.f);
      }
  }
  return img;
}

// Central differences, one-sided at the frame's border.
void gradient(const std::vector<float>& img, int w, int h, std::vector<float>& gx, std::vector<float>& gy) {
  gx.resize(img.size());
  gy.resize(img.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      auto at = [&](int yy, int xx) {
        return img[size_t(std::clamp(yy, 0, h - 1)) * w + std::clamp(xx, 0, w - 1)];
      };
      gx[size_t(y) * w + x] = 0.5f * (at(y, x + 1) - at(y, x - 1));
      gy[size_t(y) * w + x] = 0.5f * (at(y + 1, x) - at(y - 1, x));
    }
}

struct Tables {
  std::vector<float> cos, sin;
  std::vector<int32_t> offsets;  // (dx, dy) pairs, radius-major, kMaxPoints per radius
  std::vector<int32_t> span;     // dilation disk half widths, rows -R..R
};

Tables make_tables(const Shape& sh) {
  Tables t{std::vector<float>(kMaxPoints), std::vector<float>(kMaxPoints),
           std::vector<int32_t>(2 * kMaxRadii * kMaxPoints), std::vector<int32_t>(2 * kMaxDilate + 1)};
  for (int p = 0; p < sh.points; ++p) {
    const double theta = 2 * std::numbers::pi * p / sh.points;
    t.cos[p] = float(std::cos(theta));
    t.sin[p] = float(std::sin(theta));
    for (int r = 0; r < sh.radii; ++r) {
      const double radius = circle_radius(sh, r);
      t.offsets[2 * (r * kMaxPoints + p)] = int32_t(std::lround(radius * std::cos(theta)));
      t.offsets[2 * (r * kMaxPoints + p) + 1] = int32_t(std::lround(radius * std::sin(theta)));
    }
  }
  for (int dy = -sh.dilate; dy <= sh.dilate; ++dy) {
    int half = 0;
    while ((half + 1) * (half + 1) + dy * dy <= sh.dilate * sh.dilate) ++half;
    t.span[dy + sh.dilate] = half;
  }
  return t;
}

// GICOV reference in double with the error bound of the kernel's float
// evaluation. With a_i = |gx c| + |gy s| of sample i (M their sum), n samples:
// each projection errs by 2u a_i, their float sum by n u M more, so the mean
// by dm = (n + 2) u M / n + 2u |m|; each deviation d_i then by
// e_i = 2u a_i + dm + u |d_i|, the sum of squares by sum(2 |d_i| e_i + e_i^2)
// + n u sum (|d_i| + e_i)^2, the variance by that over n - 1 plus u v. The
// score m / sqrt(v) (correctly rounded sqrt and division) follows by first
// order perturbation; the maximum over circles errs by at most the largest
// of the circles' errors. A factor 2 covers the dropped second-order terms.
void gicov_reference(const std::vector<float>& gx, const std::vector<float>& gy, const Shape& sh,
                     const Tables& t, std::vector<double>& want, std::vector<double>& bound) {
  const int w = sh.width, h = sh.height, n = sh.points;
  const double u = fp::kF32Unit;
  want.assign(size_t(w) * h, 0.0);
  bound.assign(size_t(w) * h, 0.0);
  std::vector<double> proj(n), mag(n);
  for (int y = kMaxRadius; y < h - kMaxRadius; ++y)
    for (int x = kMaxRadius; x < w - kMaxRadius; ++x) {
      double best = -1e300, best_err = 0;
      for (int r = 0; r < sh.radii; ++r) {
        double sum = 0, m_abs = 0;
        for (int p = 0; p < n; ++p) {
          const int* off = &t.offsets[2 * (r * kMaxPoints + p)];
          const size_t i = size_t(y + off[1]) * w + x + off[0];
          const double a = double(gx[i]) * t.cos[p], b = double(gy[i]) * t.sin[p];
          proj[p] = a + b;
          mag[p] = std::fabs(a) + std::fabs(b);
          sum += proj[p];
          m_abs += mag[p];
        }
        const double mean = sum / n, dm = (n + 2) * u * m_abs / n + 2 * u * std::fabs(mean);
        double sq = 0, sq_err = 0, sq_mag = 0;
        for (int p = 0; p < n; ++p) {
          const double d = proj[p] - mean, e = 2 * u * mag[p] + dm + u * std::fabs(d);
          sq += d * d;
          sq_err += 2 * std::fabs(d) * e + e * e;
          sq_mag += (std::fabs(d) + e) * (std::fabs(d) + e);
        }
        const double var = sq / (n - 1), dv = (sq_err + n * u * sq_mag) / (n - 1) + u * var;
        double g = 0, dg = 0;
        if (var - dv > 0) {
          g = mean / std::sqrt(var);
          dg = dm / std::sqrt(var - dv) + std::fabs(mean) * dv / (2 * std::pow(var - dv, 1.5)) +
               3 * u * std::fabs(g);
        } else {
          dg = 1e300;  // a flat circle: the variance has no correct digits (noise makes this unreachable)
        }
        best = std::max(best, g);
        best_err = std::max(best_err, dg);
      }
      want[size_t(y) * w + x] = best;
      bound[size_t(y) * w + x] = 2 * best_err;
    }
}

std::vector<float> dilate_reference(const std::vector<float>& in, const Shape& sh, const Tables& t) {
  const int w = sh.width, h = sh.height, rad = sh.dilate;
  std::vector<float> out(in.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float best = -3.0e38f;
      for (int yy = std::max(y - rad, 0); yy <= std::min(y + rad, h - 1); ++yy) {
        const int span = t.span[yy - y + rad];
        for (int xx = std::max(x - span, 0); xx <= std::min(x + span, w - 1); ++xx)
          best = std::max(best, in[size_t(yy) * w + xx]);
      }
      out[size_t(y) * w + x] = best;
    }
  return out;
}

// The kernel's flow term, operation for operation (plain IEEE float arithmetic
// on the host, no contraction: the build targets baseline x86-64).
float flow_term(float u, float neighbour, float bias) {
  const float d = neighbour - u, a = d + bias;
  const float h = 0.5f + 0.5f * (a / (std::fabs(a) + kEps));
  return h * d;
}

// IMGVF of one cell exactly as its block computes it, including the order of
// the convergence sum (per thread, then the warp's shuffle tree, then warps in
// order), so that the iteration count and every value match bit for bit. An
// exact check is possible and necessary here: where a block stops depends on
// a float comparison with the tolerance, and a bound on the values would not
// survive hundreds of nonlinear iterations.
int imgvf_reference(const float* img, const float* bias, const Shape& sh, std::vector<float>& u) {
  const int rows = sh.sub_rows, cols = sh.sub_cols, n = rows * cols;
  u.assign(img, img + n);
  std::vector<float> next(n);
  for (int iter = 1;; ++iter) {
    float change[kImgvfThreads] = {};
    for (int i = 0; i < n; ++i) {
      const int r = i / cols, c = i % cols;
      const int up = std::max(r - 1, 0) * cols, mid = r * cols, down = std::min(r + 1, rows - 1) * cols;
      const int left = std::max(c - 1, 0), right = std::min(c + 1, cols - 1);
      const float v = u[mid + c];
      float sum = flow_term(v, u[up + c], bias[0]);
      sum = sum + flow_term(v, u[down + c], bias[1]);
      sum = sum + flow_term(v, u[mid + left], bias[2]);
      sum = sum + flow_term(v, u[mid + right], bias[3]);
      sum = sum + flow_term(v, u[up + left], bias[4]);
      sum = sum + flow_term(v, u[up + right], bias[5]);
      sum = sum + flow_term(v, u[down + left], bias[6]);
      sum = sum + flow_term(v, u[down + right], bias[7]);
      const float pull = (img[i] * kInvLambda) * (v - img[i]);
      next[i] = (v + kMuOverLambda * sum) - pull;
      change[i % kImgvfThreads] = change[i % kImgvfThreads] + std::fabs(next[i] - v);
    }
    u.swap(next);
    float total = 0.f;
    for (int wp = 0; wp < kImgvfWarps; ++wp) {
      float lane[32];
      std::copy_n(change + wp * 32, 32, lane);
      for (int off = 16; off > 0; off /= 2)  // shfl_down: lanes past the end read their own value
        for (int l = 0; l < 32; ++l) lane[l] = lane[l] + (l + off < 32 ? lane[l + off] : lane[l]);
      total = total + lane[0];
    }
    if (total / float(n) < sh.tol || iter >= sh.max_iters) return iter;
  }
}

CheckResult run(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  const Shape sh = shape_of(size);
  const int w = sh.width, h = sh.height, n_sub = sh.sub_rows * sh.sub_cols;
  if (sh.radii > kMaxRadii || sh.points > kMaxPoints || sh.dilate > kMaxDilate || n_sub > kMaxSubPixels)
    throw std::logic_error("leukocyte: shape exceeds the kernels' tables");
  Rng rng(seed);
  // Cells of about the radius of one of the circles, far enough apart that
  // their rims do not touch and the dilation's disk never holds two centres.
  std::vector<Cell> cells;
  const float edge = float(kMaxRadius) + 3.f;
  for (int attempt = 0; attempt < 4000 && int(cells.size()) < sh.cells; ++attempt) {
    Cell c{rng.uniform(edge, float(w) - edge), rng.uniform(edge, float(h) - edge),
           kDriftX + rng.uniform(-1.f, 1.f), kDriftY + rng.uniform(-1.f, 1.f), 0.f};
    c.r = float(circle_radius(sh, int(rng.below(uint32_t(sh.radii))))) + rng.uniform(-0.4f, 0.4f);
    auto apart = [&](const Cell& o) {
      return std::hypot(o.x - c.x, o.y - c.y) >= std::max(o.r + c.r + 4.f, float(sh.dilate) + 1.f);
    };
    if (std::all_of(cells.begin(), cells.end(), apart)) cells.push_back(c);
  }

  // Detection on frame 0.
  const Tables t = make_tables(sh);
  ctx.memcpy_to_symbol(mod, "c_cos", t.cos.data(), t.cos.size() * sizeof(float));
  ctx.memcpy_to_symbol(mod, "c_sin", t.sin.data(), t.sin.size() * sizeof(float));
  ctx.memcpy_to_symbol(mod, "c_offsets", t.offsets.data(), t.offsets.size() * sizeof(int32_t));
  ctx.memcpy_to_symbol(mod, "c_span", t.span.data(), t.span.size() * sizeof(int32_t));
  std::vector<float> gx, gy;
  gradient(render(cells, 0, w, h, rng), w, h, gx, gy);
  const size_t pixels = size_t(w) * h;
  runtime::DevPtr d_gx = ctx.malloc_copy(gx), d_gy = ctx.malloc_copy(gy);
  runtime::DevPtr d_score = ctx.malloc(pixels * sizeof(float)), d_dilated = ctx.malloc(pixels * sizeof(float));
  const runtime::Dim3 grid(host::blocks_for(w, kTile), host::blocks_for(h, kTile)), block(kTile, kTile);
  host::launch(ctx, mod.kernel("gicov"), grid, block, d_gx, d_gy, w, h, kMaxRadius, sh.radii, sh.points, d_score);
  host::launch(ctx, mod.kernel("dilate"), grid, block, d_score, w, h, sh.dilate, d_dilated);
  const std::vector<float> score = ctx.read<float>(d_score, pixels), dilated = ctx.read<float>(d_dilated, pixels);
  for (runtime::DevPtr p : {d_gx, d_gy, d_score, d_dilated}) ctx.free(p);

  std::vector<double> want, bound;
  gicov_reference(gx, gy, sh, t, want, bound);
  CheckResult score_check = fp::check_within(score, want, bound, "GICOV");
  if (!score_check.passed) return score_check;
  // The dilation of the kernel's own scores, so that its check is exact.
  CheckResult dilate_check = check_exact(dilated, dilate_reference(score, sh, t), "dilation");
  if (!dilate_check.passed) return dilate_check;

  // Cells: interior local maxima of the score (equal to their dilation) above the threshold.
  std::vector<Cell> tracked;
  for (int y = kMaxRadius; y < h - kMaxRadius; ++y)
    for (int x = kMaxRadius; x < w - kMaxRadius; ++x) {
      const size_t i = size_t(y) * w + x;
      if (score[i] > kDetectThreshold && score[i] == dilated[i])
        tracked.push_back({float(x), float(y), kDriftX, kDriftY, 0.f});
    }
  if (tracked.empty()) return {false, "no cell detected in frame 0"};
  const int num = int(tracked.size());

  // Tracking: every frame, each cell's IMGVF on the normalised gradient
  // magnitude of the sub-image around its last position.
  const size_t sub_bytes = size_t(num) * n_sub * sizeof(float);
  runtime::DevPtr d_images = ctx.malloc(sub_bytes), d_flow = ctx.malloc(sub_bytes);
  runtime::DevPtr d_bias = ctx.malloc(size_t(num) * 8 * sizeof(float)), d_iters = ctx.malloc(num * sizeof(int));
  runtime::Kernel k_imgvf = mod.kernel("imgvf");
  int min_iters = sh.max_iters, max_iters = 0;
  for (int f = 1; f < sh.frames; ++f) {
    gradient(render(cells, f, w, h, rng), w, h, gx, gy);
    std::vector<float> images(size_t(num) * n_sub), biases(size_t(num) * 8);
    std::vector<int> origin_x(num), origin_y(num);
    for (int c = 0; c < num; ++c) {
      origin_x[c] = std::clamp(int(std::lround(tracked[c].x)) - sh.sub_cols / 2, 0, w - sh.sub_cols);
      origin_y[c] = std::clamp(int(std::lround(tracked[c].y)) - sh.sub_rows / 2, 0, h - sh.sub_rows);
      float* sub = images.data() + size_t(c) * n_sub;
      float top = 0.f;
      for (int r = 0; r < sh.sub_rows; ++r)
        for (int k = 0; k < sh.sub_cols; ++k) {
          const size_t i = size_t(origin_y[c] + r) * w + origin_x[c] + k;
          sub[r * sh.sub_cols + k] = std::sqrt(gx[i] * gx[i] + gy[i] * gy[i]);
          top = std::max(top, sub[r * sh.sub_cols + k]);
        }
      for (int i = 0; i < n_sub; ++i) sub[i] = top > 0.f ? sub[i] / top : 0.f;
      for (int k = 0; k < 8; ++k)
        biases[size_t(c) * 8 + k] = kMotion * (tracked[c].vx * float(kDirX[k]) + tracked[c].vy * float(kDirY[k])) /
                                    std::sqrt(float(kDirX[k] * kDirX[k] + kDirY[k] * kDirY[k]));
    }
    ctx.memcpy_h2d(d_images, images.data(), images.size() * sizeof(float));
    ctx.memcpy_h2d(d_bias, biases.data(), biases.size() * sizeof(float));
    host::launch(ctx, k_imgvf, {uint32_t(num)}, {uint32_t(kImgvfThreads)}, d_images, d_bias, sh.sub_rows,
                 sh.sub_cols, kMuOverLambda, kInvLambda, kEps, sh.tol, sh.max_iters, d_flow, d_iters);
    const std::vector<float> flow = ctx.read<float>(d_flow, size_t(num) * n_sub);
    const std::vector<int> iters = ctx.read<int>(d_iters, num);

    std::vector<float> want_flow(flow.size()), u;
    std::vector<int> want_iters(num);
    for (int c = 0; c < num; ++c) {
      want_iters[c] = imgvf_reference(images.data() + size_t(c) * n_sub, biases.data() + size_t(c) * 8, sh, u);
      std::copy(u.begin(), u.end(), want_flow.begin() + size_t(c) * n_sub);
      min_iters = std::min(min_iters, want_iters[c]);
      max_iters = std::max(max_iters, want_iters[c]);
    }
    CheckResult iter_check = check_exact(iters, want_iters, fmt::format("frame {} iterations", f));
    if (!iter_check.passed) return iter_check;
    CheckResult flow_check = check_exact(flow, want_flow, fmt::format("frame {} IMGVF", f));
    if (!flow_check.passed) return flow_check;

    // New position: centroid of the flow above its mean (the cell's rim),
    // from the kernel's output; the displacement biases the next frame's flow.
    for (int c = 0; c < num; ++c) {
      const float* fl = flow.data() + size_t(c) * n_sub;
      double mean = 0, sw = 0, sx = 0, sy = 0;
      for (int i = 0; i < n_sub; ++i) mean += fl[i];
      mean /= n_sub;
      for (int i = 0; i < n_sub; ++i) {
        const double wt = std::max(0.0, fl[i] - mean);
        sw += wt, sx += wt * (i % sh.sub_cols), sy += wt * (i / sh.sub_cols);
      }
      if (sw <= 0) continue;
      const float nx = float(origin_x[c] + sx / sw), ny = float(origin_y[c] + sy / sw);
      tracked[c].vx = nx - tracked[c].x, tracked[c].vy = ny - tracked[c].y;
      tracked[c].x = nx, tracked[c].y = ny;
    }
  }
  for (runtime::DevPtr p : {d_images, d_flow, d_bias, d_iters}) ctx.free(p);
  return {true, fmt::format("{}; dilation exact; {} of {} cells detected and tracked through {} frame(s), "
                            "IMGVF exact, {}-{} iterations per cell",
                            score_check.detail, num, cells.size(), sh.frames - 1, min_iters, max_iters)};
}

}  // namespace

const WorkloadSpec& leukocyte_workload() {
  static const WorkloadSpec spec{
      "leukocyte",
      "cell detection (GICOV scores of circles, disk dilation) and tracking (one IMGVF block per cell "
      "iterating to convergence in shared memory)",
      "compute",
      embedded::leukocyte_ptx,
      {"72x56 frames, 2 cells, 3 radii x 16 points, dilation radius 4, 1 tracking frame (21x41 sub-images, "
       "<= 40 iterations)",
       "208x144 frames, 48 cells, 7 radii x 24 points, 1 tracking frame (41x81, <= 24 iterations)",
       "192x144 frames, 32 cells, 7 radii x 150 points, 1 tracking frame (41x81, <= 80 iterations)",
       "320x240 frames, 64 cells, 7 radii x 150 points, 2 tracking frames (41x81, <= 200 iterations)",
       "640x219 frames (Rodinia's cropped video), 36 cells, 7 radii x 150 points, 1 tracking frame (41x81, "
       "<= 500 iterations)"},
      run};
  return spec;
}

}  // namespace gpumux::workloads
