// kmeans: device assignment, host centroid update, host loop until converged.
#include <cmath>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

struct Result {
  std::vector<int> membership;
  std::vector<float> centroids;
  int iterations = 0;
};

// New centroids: means of their members in point order (an empty cluster
// keeps its centroid). Host and reference share this code.
void update_centroids(const std::vector<float>& points, const std::vector<int>& membership,
                      int nfeatures, std::vector<float>& centroids) {
  const int k = int(centroids.size()) / nfeatures;
  std::vector<float> sum(centroids.size(), 0.f);
  std::vector<int> count(k, 0);
  for (size_t i = 0; i < membership.size(); ++i) {
    int c = membership[i];
    ++count[c];
    for (int f = 0; f < nfeatures; ++f) sum[c * nfeatures + f] += points[i * nfeatures + f];
  }
  for (int c = 0; c < k; ++c)
    if (count[c])
      for (int f = 0; f < nfeatures; ++f)
        centroids[c * nfeatures + f] = sum[c * nfeatures + f] / float(count[c]);
}

CheckResult run(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  const int npoints = host::by_size(size, 2048, 16384, 65536, 262144);
  const int nfeatures = host::by_size(size, 8, 16, 16, 32);
  const int k = host::by_size(size, 8, 16, 16, 32);
  const int max_iters = 30;
  const unsigned threshold = unsigned(npoints / 1000);  // stop when <= 0.1% of points move
  Rng rng(seed);
  // Points scattered around k random blob centres, point-major as read from a file.
  std::vector<float> blob = host::random_floats(rng, size_t(k) * nfeatures, 0.f, 10.f);
  std::vector<float> points(size_t(npoints) * nfeatures);
  for (int i = 0; i < npoints; ++i) {
    int b = int(rng.below(k));
    for (int f = 0; f < nfeatures; ++f)
      points[size_t(i) * nfeatures + f] = blob[b * nfeatures + f] + rng.uniform(-2.5f, 2.5f);
  }
  // Initial centroids: the first k points.
  const std::vector<float> initial(points.begin(), points.begin() + size_t(k) * nfeatures);

  runtime::DevPtr d_points = ctx.malloc_copy(points);
  runtime::DevPtr d_features_t = ctx.malloc(points.size() * sizeof(float));
  std::vector<int> membership(npoints, -1);
  runtime::DevPtr d_membership = ctx.malloc_copy(membership);
  runtime::DevPtr d_changed = ctx.malloc(sizeof(unsigned));
  const uint32_t block = 256, grid = host::blocks_for(npoints, block);
  host::launch(ctx, mod.kernel("kmeans_transpose"), {grid}, {block}, d_points, d_features_t,
               npoints, nfeatures);
  runtime::Kernel k_assign = mod.kernel("kmeans_assign");

  Result gpu;
  gpu.centroids = initial;
  for (gpu.iterations = 1;; ++gpu.iterations) {
    ctx.memcpy_to_symbol(mod, "centroids", gpu.centroids.data(), gpu.centroids.size() * sizeof(float));
    ctx.memset(d_changed, 0, sizeof(unsigned));
    host::launch(ctx, k_assign, {grid}, {block}, d_features_t, npoints, nfeatures, k, d_membership,
                 d_changed);
    unsigned changed = 0;
    ctx.memcpy_d2h(&changed, d_changed, sizeof(unsigned));
    gpu.membership = ctx.read<int>(d_membership, npoints);
    update_centroids(points, gpu.membership, nfeatures, gpu.centroids);
    if (changed <= threshold || gpu.iterations == max_iters) break;
  }
  for (runtime::DevPtr p : {d_points, d_features_t, d_membership, d_changed}) ctx.free(p);

  // Reference: identical fused-multiply-add distances, so identical choices.
  Result ref;
  ref.centroids = initial;
  ref.membership = membership;
  for (ref.iterations = 1;; ++ref.iterations) {
    unsigned changed = 0;
    for (int i = 0; i < npoints; ++i) {
      float best_dist = 3.0e38f;
      int best = 0;
      for (int c = 0; c < k; ++c) {
        float dist = 0.f;
        for (int f = 0; f < nfeatures; ++f) {
          float d = points[size_t(i) * nfeatures + f] - ref.centroids[c * nfeatures + f];
          dist = std::fma(d, d, dist);
        }
        if (dist < best_dist) best_dist = dist, best = c;
      }
      changed += ref.membership[i] != best;
      ref.membership[i] = best;
    }
    update_centroids(points, ref.membership, nfeatures, ref.centroids);
    if (changed <= threshold || ref.iterations == max_iters) break;
  }
  if (gpu.iterations != ref.iterations)
    return {false, fmt::format("converged after {} iterations, expected {}", gpu.iterations,
                               ref.iterations)};
  CheckResult r = host::check_all({check_exact(gpu.membership, ref.membership, "membership"),
                                   check_close(gpu.centroids, ref.centroids, 0, 0, "centroids")});
  if (r.passed) r.detail += fmt::format(", {} iterations", gpu.iterations);
  return r;
}

}  // namespace

const WorkloadSpec& kmeans_workload() {
  static const WorkloadSpec spec{
      "kmeans",
      "k-means: transpose kernel, nearest-centroid kernel (constant-memory centroids, ballot + "
      "atomic change count), host update and convergence loop",
      "memory",
      embedded::kmeans_ptx,
      {"2048 points, 8 features, k=8", "16384 points, 16 features, k=16",
       "65536 points, 16 features, k=16", "262144 points, 32 features, k=32"},
      run};
  return spec;
}

}  // namespace gpumux::workloads
