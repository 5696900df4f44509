// mm: naive n x n single-precision matrix multiply, one thread per output.
#include <cmath>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

CheckResult run(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed, bool persistent) {
  const int n = host::by_size(size, 64, 256, 512, 1024);
  Rng rng(seed);
  std::vector<float> a = host::random_floats(rng, size_t(n) * n, -1.f, 1.f);
  std::vector<float> b = host::random_floats(rng, size_t(n) * n, -1.f, 1.f);

  runtime::DevPtr d_a = ctx.malloc_copy(a), d_b = ctx.malloc_copy(b);
  runtime::DevPtr d_c = ctx.malloc(size_t(n) * n * sizeof(float));
  const runtime::Dim3 block(16, 16);
  const runtime::Dim3 grid(host::blocks_for(n, block.x), host::blocks_for(n, block.y));
  if (persistent)  // the same 16 x 16 blocks in a resident 1D grid
    host::launch(ctx, mod.kernel("mm_pt"), {host::persistent_grid(ctx, 256, uint64_t(grid.x) * grid.y)}, block, d_a,
                 d_b, d_c, n);
  else
    host::launch(ctx, mod.kernel("mm"), grid, block, d_a, d_b, d_c, n);
  std::vector<float> c = ctx.read<float>(d_c, size_t(n) * n);
  for (runtime::DevPtr p : {d_a, d_b, d_c}) ctx.free(p);

  // Same fused multiply-adds in the same k order as the kernel: bitwise equal.
  std::vector<float> want(size_t(n) * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float acc = 0.f;
      for (int k = 0; k < n; ++k) acc = std::fma(a[size_t(i) * n + k], b[size_t(k) * n + j], acc);
      want[size_t(i) * n + j] = acc;
    }
  return check_close(c, want, 1e-6, 1e-6, "c");
}

const char* const kSizes[] = {"n=64", "n=256", "n=512", "n=1024"};

}  // namespace

const WorkloadSpec& mm_workload() {
  static const WorkloadSpec pt{"mm-pt",
                               "mm with persistent threads: a resident grid of 16x16 blocks walks the output tiles",
                               "memory",
                               embedded::mm_ptx,
                               {kSizes[0], kSizes[1], kSizes[2], kSizes[3]},
                               run_variant<run, true>};
  static const WorkloadSpec spec{
      "mm",
      "naive dense matrix multiply, one thread per output element, no tiling",
      "memory",
      embedded::mm_ptx,
      {kSizes[0], kSizes[1], kSizes[2], kSizes[3]},
      run_variant<run, false>,
      &pt};
  return spec;
}

}  // namespace gpumux::workloads
