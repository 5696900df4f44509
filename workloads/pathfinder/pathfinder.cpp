// pathfinder: row-by-row dynamic programming of the cheapest path, several rows per launch.
#include <algorithm>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr int kThreads = 256;

CheckResult run_pathfinder(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed, bool persistent) {
  const int cols = host::by_size(size, 2048, 10000, 100000, 1000000);
  const int rows = host::by_size(size, 81, 101, 201, 401);
  const int pyramid = host::by_size(size, 10, 20, 20, 20);
  const int passes = host::passes(size, 12);
  Rng rng(seed);
  std::vector<int32_t> weights = host::random_ints(rng, size_t(rows) * cols, 0, 9);

  runtime::DevPtr d_weights = ctx.malloc_copy(weights);
  runtime::DevPtr d_cost[2] = {ctx.malloc(cols * sizeof(int32_t)), ctx.malloc(cols * sizeof(int32_t))};
  runtime::Kernel kernel = mod.kernel(persistent ? "pathfinder_rows_pt" : "pathfinder_rows");
  int cur = 0;
  for (int p = 0; p < passes; ++p) {  // each pass solves the whole grid again
    // The first row's costs are its weights.
    ctx.memcpy_d2d(d_cost[0], d_weights, cols * sizeof(int32_t));
    cur = 0;
    for (int row = 1; row < rows; row += pyramid) {
      int n = std::min(pyramid, rows - row);
      const uint32_t slices = host::blocks_for(cols, kThreads - 2 * n);
      host::launch(ctx, kernel, persistent ? host::persistent_grid(ctx, kThreads, slices) : slices, kThreads,
                   d_weights, d_cost[cur], d_cost[1 - cur], cols, row, n);
      cur = 1 - cur;
    }
  }
  std::vector<int32_t> got = ctx.read<int32_t>(d_cost[cur], cols);

  std::vector<int32_t> cost(weights.begin(), weights.begin() + cols), next(cols);
  for (int r = 1; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      int best = cost[c];
      if (c > 0) best = std::min(best, cost[c - 1]);
      if (c < cols - 1) best = std::min(best, cost[c + 1]);
      next[c] = weights[size_t(r) * cols + c] + best;
    }
    cost.swap(next);
  }
  return check_exact(got, cost, "path cost");
}

const char* const kSizes[] = {"2048 columns x 81 rows, 10 rows per launch", "10000 x 101, 20 per launch, 12 passes",
                              "100000 x 201, 20 per launch", "1000000 x 401, 20 per launch"};

}  // namespace

const WorkloadSpec& pathfinder_workload() {
  static const WorkloadSpec pt{"pathfinder-pt",
                               "pathfinder with persistent threads: a resident grid whose blocks loop over the column slices",
                               "compute",
                               embedded::pathfinder_ptx,
                               {kSizes[0], kSizes[1], kSizes[2], kSizes[3]},
                               run_variant<run_pathfinder, true>};
  static const WorkloadSpec spec{
      "pathfinder",
      "grid dynamic programming row by row, shared-memory rows, several rows per launch (pyramid)",
      "compute",
      embedded::pathfinder_ptx,
      {kSizes[0], kSizes[1], kSizes[2], kSizes[3]},
      run_variant<run_pathfinder, false>,
      &pt};
  return spec;
}

}  // namespace gpumux::workloads
