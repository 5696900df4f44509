// grid-points: random points binned into a grid whose per-cell lists come
// from device malloc (in the spirit of the Halloc allocator's grid example
// that the thesis's figure 6.14 runs); each cell's sorted list is summarized.
#include <algorithm>
#include <cmath>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

struct Point {
  float x, y;
};

CheckResult run(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  const int n = host::by_size(size, 16384, 262144, 2097152, 8388608);
  const int grid = int(std::sqrt(double(n) / 8));  // about 8 points per cell
  const int cells = grid * grid;
  Rng rng(seed);
  std::vector<Point> points(n);
  for (Point& p : points) p = {rng.uniform(0.f, 1.f), rng.uniform(0.f, 1.f)};
  ctx.set_device_heap_limit(uint64_t(n) * sizeof(int) + uint64_t(cells) * 16);

  runtime::DevPtr d_points = ctx.malloc_copy(points);
  runtime::DevPtr d_counts = ctx.malloc(size_t(cells) * sizeof(int));
  ctx.memset(d_counts, 0, size_t(cells) * sizeof(int));
  runtime::DevPtr d_lists = ctx.malloc(size_t(cells) * sizeof(uint64_t));
  runtime::DevPtr d_fill = ctx.malloc(size_t(cells) * sizeof(int));
  runtime::DevPtr d_summary = ctx.malloc(size_t(cells) * 2 * sizeof(int));
  const uint32_t block = 128, point_grid = host::blocks_for(n, block), cell_grid = host::blocks_for(cells, block);
  host::launch(ctx, mod.kernel("count_points"), {point_grid}, {block}, d_points, n, grid, d_counts);
  host::launch(ctx, mod.kernel("allocate_cells"), {cell_grid}, {block}, d_counts, cells, d_lists, d_fill);
  host::launch(ctx, mod.kernel("bin_points"), {point_grid}, {block}, d_points, n, grid, d_lists, d_fill);
  host::launch(ctx, mod.kernel("summarize_cells"), {cell_grid}, {block}, d_counts, cells, d_lists, d_summary);
  std::vector<int> summary = ctx.read<int>(d_summary, size_t(cells) * 2);
  for (runtime::DevPtr p : {d_points, d_counts, d_lists, d_fill, d_summary}) ctx.free(p);

  // The cell of each point, as the kernels compute it (the same float products).
  std::vector<std::vector<int>> lists(cells);
  for (int i = 0; i < n; ++i) {
    const int cx = std::min(int(points[i].x * float(grid)), grid - 1);
    const int cy = std::min(int(points[i].y * float(grid)), grid - 1);
    lists[cy * grid + cx].push_back(i);  // in increasing id: sorted
  }
  std::vector<int> want(size_t(cells) * 2);
  for (int c = 0; c < cells; ++c) {
    uint32_t hash = 0;
    for (size_t k = 0; k < lists[c].size(); ++k) hash += uint32_t(lists[c][k]) * uint32_t(k + 1);
    want[2 * c] = int(lists[c].size());
    want[2 * c + 1] = int(hash);
  }
  return check_exact(summary, want, "cell summaries");
}

}  // namespace

const WorkloadSpec& gridpoints_workload() {
  static const WorkloadSpec spec{
      "grid-points",
      "random points binned into grid cells whose lists come from device malloc, sorted and summarized per cell",
      "memory",
      embedded::gridpoints_ptx,
      {"16384 points", "262144 points", "2097152 points", "8388608 points"},
      run};
  return spec;
}

}  // namespace gpumux::workloads
