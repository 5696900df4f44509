// lavamd: particle interactions between neighbouring boxes of a 3D grid.
#include <cmath>

#include "common/fp_checks.h"
#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr int kMaxNeighbors = 27;
constexpr float kA2 = 0.5f;  // Gaussian width parameter of the potential

struct Float4 {
  float x, y, z, w;
};

CheckResult run_lavamd(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  const int side = host::by_size(size, 2, 4, 5, 10);  // boxes per dimension
  const int per_box = host::by_size(size, 40, 100, 100, 100);
  const int boxes = side * side * side;
  Rng rng(seed);
  // Unit boxes; particles uniformly inside their box.
  std::vector<Float4> particles(size_t(boxes) * per_box);
  std::vector<float> charges(particles.size());
  for (int b = 0; b < boxes; ++b)
    for (int p = 0; p < per_box; ++p) {
      float x = float(b % side) + rng.uniform(), y = float(b / side % side) + rng.uniform(),
            z = float(b / (side * side)) + rng.uniform();
      particles[size_t(b) * per_box + p] = Float4{x * x + y * y + z * z, x, y, z};
      charges[size_t(b) * per_box + p] = rng.uniform(0.1f, 1.f);
    }
  // The box itself and every adjacent box inside the grid.
  std::vector<int> counts(boxes, 0), neighbors(size_t(boxes) * kMaxNeighbors, 0);
  for (int b = 0; b < boxes; ++b) {
    int bx = b % side, by = b / side % side, bz = b / (side * side);
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          int x = bx + dx, y = by + dy, z = bz + dz;
          if (x < 0 || x >= side || y < 0 || y >= side || z < 0 || z >= side) continue;
          neighbors[size_t(b) * kMaxNeighbors + counts[b]++] = (z * side + y) * side + x;
        }
  }

  runtime::DevPtr d_particles = ctx.malloc_copy(particles), d_charges = ctx.malloc_copy(charges),
                  d_counts = ctx.malloc_copy(counts), d_neighbors = ctx.malloc_copy(neighbors);
  runtime::DevPtr d_forces = ctx.malloc(particles.size() * sizeof(Float4));
  host::launch(ctx, mod.kernel("lavamd_forces"), boxes, 128, d_particles, d_charges, d_counts,
               d_neighbors, per_box, kA2, d_forces);
  std::vector<Float4> forces = ctx.read<Float4>(d_forces, particles.size());

  // Reference in double from the same float inputs. Each float term errs by
  // the cancellation in r^2 (a few ulps of the v's and products, magnified by
  // a2 in the exponent) plus a few ulps; the sums add one rounding per term.
  const size_t n = particles.size();
  const double u = fp::kF32Unit;
  std::vector<double> want[4], bound[4];
  for (auto& v : want) v.assign(n, 0.0);
  for (auto& v : bound) v.assign(n, 0.0);
  for (int b = 0; b < boxes; ++b)
    for (int i = 0; i < per_box; ++i) {
      const Float4& me = particles[size_t(b) * per_box + i];
      double sum[4] = {}, mag[4] = {}, term_err[4] = {};
      int terms = 0;
      for (int k = 0; k < counts[b]; ++k) {
        int other = neighbors[size_t(b) * kMaxNeighbors + k];
        for (int j = 0; j < per_box; ++j) {
          const Float4& o = particles[size_t(other) * per_box + j];
          double q = charges[size_t(other) * per_box + j];
          double dot = double(me.y) * o.y + double(me.z) * o.z + double(me.w) * o.w;
          double r2 = double(me.x) + o.x - 2 * dot;
          double vij = std::exp(-kA2 * r2), fs = 2 * kA2 * vij;
          double r2_err = 8 * u * (double(me.x) + o.x + 2 * (std::fabs(double(me.y) * o.y) +
                                                             std::fabs(double(me.z) * o.z) +
                                                             std::fabs(double(me.w) * o.w)));
          double rel = kA2 * r2_err + kA2 * std::fabs(r2) * u + 8 * u;
          double t[4] = {q * vij, q * fs * (double(me.y) - o.y), q * fs * (double(me.z) - o.z),
                         q * fs * (double(me.w) - o.w)};
          for (int c = 0; c < 4; ++c) {
            sum[c] += t[c];
            mag[c] += std::fabs(t[c]);
            term_err[c] += std::fabs(t[c]) * rel;
          }
          ++terms;
        }
      }
      for (int c = 0; c < 4; ++c) {
        want[c][size_t(b) * per_box + i] = sum[c];
        bound[c][size_t(b) * per_box + i] = term_err[c] + (terms + 2) * u * mag[c];
      }
    }
  std::vector<float> got[4];
  for (int c = 0; c < 4; ++c) got[c].resize(n);
  for (size_t i = 0; i < n; ++i) {
    got[0][i] = forces[i].x, got[1][i] = forces[i].y, got[2][i] = forces[i].z, got[3][i] = forces[i].w;
  }
  return host::check_all({fp::check_within(got[0], want[0], bound[0], "potential"),
                          fp::check_within(got[1], want[1], bound[1], "fx"),
                          fp::check_within(got[2], want[2], bound[2], "fy"),
                          fp::check_within(got[3], want[3], bound[3], "fz")});
}

}  // namespace

const WorkloadSpec& lavamd_workload() {
  static const WorkloadSpec spec{
      "lavamd",
      "particle interactions with the 27 neighbour boxes, neighbour particles staged in shared memory, expf",
      "compute",
      embedded::lavamd_ptx,
      {"2^3 boxes x 40 particles", "4^3 boxes x 100 particles",
       "5^3 boxes x 100 particles", "10^3 boxes x 100 particles"},
      run_lavamd};
  return spec;
}

}  // namespace gpumux::workloads
