// tpacf: two-point angular correlation histograms (DD, DR, RR) of points on the sphere.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr int kThreads = 128;
constexpr int kNumEdges = 21;  // kernel's NUM_EDGES
constexpr int kNumBins = kNumEdges + 1;

struct Points {
  std::vector<float> x, y, z;
};

// A unit vector from spherical angles.
void add_point(Points& p, double theta, double phi) {
  p.x.push_back(float(std::sin(theta) * std::cos(phi)));
  p.y.push_back(float(std::sin(theta) * std::sin(phi)));
  p.z.push_back(float(std::cos(theta)));
}

Points uniform_points(Rng& rng, int n) {
  Points p;
  for (int i = 0; i < n; ++i)
    add_point(p, std::acos(rng.uniform_d(-1, 1)), rng.uniform_d(0, 2 * std::numbers::pi));
  return p;
}

// Galaxy-like data: points scattered a few degrees around a handful of cluster centres.
Points clustered_points(Rng& rng, int n) {
  const int clusters = 8;
  std::vector<double> ct(clusters), cp(clusters);
  for (int c = 0; c < clusters; ++c) {
    ct[c] = std::acos(rng.uniform_d(-1, 1));
    cp[c] = rng.uniform_d(0, 2 * std::numbers::pi);
  }
  Points p;
  const double spread = 5.0 * std::numbers::pi / 180;
  for (int i = 0; i < n; ++i) {
    int c = int(rng.below(clusters));
    double t = std::clamp(ct[c] + rng.uniform_d(-spread, spread), 0.0, std::numbers::pi);
    add_point(p, t, cp[c] + rng.uniform_d(-spread, spread));
  }
  return p;
}

// The kernel's binning, with the same rounding.
int bin_of(float dot, const std::vector<float>& edges) {
  int lo = 0, hi = kNumEdges;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (dot < edges[mid]) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

void reference_pairs(const Points& a, const Points& b, bool self, const std::vector<float>& edges,
                     std::vector<uint64_t>& hist) {
  for (size_t i = 0; i < a.x.size(); ++i)
    for (size_t j = self ? i + 1 : 0; j < b.x.size(); ++j) {
      float dot = std::fma(a.z[i], b.z[j], std::fma(a.y[i], b.y[j], a.x[i] * b.x[j]));
      ++hist[bin_of(dot, edges)];
    }
}

struct DevPoints {
  runtime::DevPtr x, y, z;
  int n;
};

CheckResult run_tpacf(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  const int n = host::by_size(size, 256, 1024, 1536, 8192);
  const int num_random = host::by_size(size, 1, 2, 3, 4);
  Rng rng(seed);
  Points data = clustered_points(rng, n);
  std::vector<Points> randoms;
  for (int r = 0; r < num_random; ++r) randoms.push_back(uniform_points(rng, n));

  // Bin edges logarithmic in angle, from 0.1 to 100 degrees.
  std::vector<float> edges(kNumEdges);
  for (int e = 0; e < kNumEdges; ++e) {
    double degrees = 0.1 * std::pow(1000.0, double(e) / (kNumEdges - 1));
    edges[e] = float(std::cos(degrees * std::numbers::pi / 180));
  }
  ctx.memcpy_to_symbol(mod, "c_edge_cos", edges.data(), edges.size() * sizeof(float));

  auto upload = [&](const Points& p) {
    return DevPoints{ctx.malloc_copy(p.x), ctx.malloc_copy(p.y), ctx.malloc_copy(p.z),
                     int(p.x.size())};
  };
  const uint32_t blocks = host::blocks_for(n, kThreads);
  runtime::DevPtr d_partial = ctx.malloc(uint64_t(blocks) * kNumBins * sizeof(uint32_t));
  runtime::DevPtr d_dd = ctx.malloc(kNumBins * 8), d_dr = ctx.malloc(kNumBins * 8),
                  d_rr = ctx.malloc(kNumBins * 8);
  for (runtime::DevPtr h : {d_dd, d_dr, d_rr}) ctx.memset(h, 0, kNumBins * 8);
  runtime::Kernel pairs = mod.kernel("tpacf_pairs"), reduce = mod.kernel("tpacf_reduce");
  auto correlate = [&](const DevPoints& a, const DevPoints& b, bool self, runtime::DevPtr hist) {
    host::launch(ctx, pairs, blocks, kThreads, a.x, a.y, a.z, a.n, b.x, b.y, b.z, b.n,
                 int(self), d_partial);
    host::launch(ctx, reduce, kNumBins, kThreads, d_partial, int(blocks), hist);
  };

  DevPoints d_data = upload(data);
  correlate(d_data, d_data, true, d_dd);
  for (const Points& r : randoms) {
    DevPoints d_rand = upload(r);
    correlate(d_data, d_rand, false, d_dr);
    correlate(d_rand, d_rand, true, d_rr);
  }
  std::vector<uint64_t> got_dd = ctx.read<uint64_t>(d_dd, kNumBins);
  std::vector<uint64_t> got_dr = ctx.read<uint64_t>(d_dr, kNumBins);
  std::vector<uint64_t> got_rr = ctx.read<uint64_t>(d_rr, kNumBins);

  std::vector<uint64_t> dd(kNumBins), dr(kNumBins), rr(kNumBins);
  reference_pairs(data, data, true, edges, dd);
  for (const Points& r : randoms) {
    reference_pairs(data, r, false, edges, dr);
    reference_pairs(r, r, true, edges, rr);
  }
  return host::check_all({check_exact(got_dd, dd, "DD"), check_exact(got_dr, dr, "DR"),
                          check_exact(got_rr, rr, "RR")});
}

}  // namespace

const WorkloadSpec& tpacf_workload() {
  static const WorkloadSpec spec{
      "tpacf",
      "two-point angular correlation: pair dot products, binary search of bins, shared-atomic histograms",
      "compute",
      embedded::tpacf_ptx,
      {"256 points, 1 random set", "1024 points, 2 random sets",
       "1536 points, 3 random sets", "8192 points, 4 random sets"},
      run_tpacf};
  return spec;
}

}  // namespace gpumux::workloads
