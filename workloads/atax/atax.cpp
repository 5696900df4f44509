// atax: y = A^T (A x), a row-walking kernel followed by a column-walking kernel.
#include <cmath>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

CheckResult run(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed, bool persistent) {
  const int rows = host::by_size(size, 512, 1024, 8192, 16384);
  const int cols = host::by_size(size, 384, 1024, 8192, 12288);
  Rng rng(seed);
  std::vector<float> a = host::random_floats(rng, size_t(rows) * cols, -1.f, 1.f);
  std::vector<float> x = host::random_floats(rng, cols, -1.f, 1.f);

  runtime::DevPtr d_a = ctx.malloc_copy(a), d_x = ctx.malloc_copy(x);
  runtime::DevPtr d_tmp = ctx.malloc(size_t(rows) * sizeof(float));
  runtime::DevPtr d_y = ctx.malloc(size_t(cols) * sizeof(float));
  const uint32_t block = 128;
  const uint32_t row_blocks = host::blocks_for(rows, block), col_blocks = host::blocks_for(cols, block);
  if (persistent) {
    host::launch(ctx, mod.kernel("atax_rows_pt"), {host::persistent_grid(ctx, block, row_blocks)}, {block}, d_a,
                 d_x, d_tmp, rows, cols);
    host::launch(ctx, mod.kernel("atax_cols_pt"), {host::persistent_grid(ctx, block, col_blocks)}, {block}, d_a,
                 d_tmp, d_y, rows, cols);
  } else {
    host::launch(ctx, mod.kernel("atax_rows"), {row_blocks}, {block}, d_a, d_x, d_tmp, rows, cols);
    host::launch(ctx, mod.kernel("atax_cols"), {col_blocks}, {block}, d_a, d_tmp, d_y, rows, cols);
  }
  std::vector<float> y = ctx.read<float>(d_y, cols);
  for (runtime::DevPtr p : {d_a, d_x, d_tmp, d_y}) ctx.free(p);

  // The kernels use explicit fmaf in index order; the reference does the same,
  // so results agree to the last bit (the tolerance only absorbs nothing).
  std::vector<float> tmp(rows, 0.f), want(cols, 0.f);
  for (int i = 0; i < rows; ++i) {
    float acc = 0.f;
    for (int j = 0; j < cols; ++j) acc = std::fma(a[size_t(i) * cols + j], x[j], acc);
    tmp[i] = acc;
  }
  for (int j = 0; j < cols; ++j) {
    float acc = 0.f;
    for (int i = 0; i < rows; ++i) acc = std::fma(a[size_t(i) * cols + j], tmp[i], acc);
    want[j] = acc;
  }
  return check_close(y, want, 1e-6, 1e-6, "y");
}

const char* const kSizes[] = {"A 512x384", "A 1024x1024", "A 8192x8192", "A 16384x12288"};

}  // namespace

const WorkloadSpec& atax_workload() {
  static const WorkloadSpec pt{"atax-pt",
                               "atax with persistent threads: resident grids loop over the blocks of rows and columns",
                               "memory",
                               embedded::atax_ptx,
                               {kSizes[0], kSizes[1], kSizes[2], kSizes[3]},
                               run_variant<run, true>};
  static const WorkloadSpec spec{
      "atax",
      "y = A^T(Ax): row-per-thread kernel (x tiled in shared memory) then column-per-thread kernel",
      "memory",
      embedded::atax_ptx,
      {kSizes[0], kSizes[1], kSizes[2], kSizes[3]},
      run_variant<run, false>,
      &pt};
  return spec;
}

}  // namespace gpumux::workloads
