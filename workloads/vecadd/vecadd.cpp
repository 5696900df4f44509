// vecadd: c = a + b over n floats, one launch (repeated at medium size).
#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

CheckResult run(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed, bool persistent) {
  // Deliberately not a multiple of the block size so the bounds check matters.
  const int n = host::by_size(size, 80000, 1 << 19, 1 << 24, 1 << 25) + 77;
  const int passes = host::passes(size, 50);
  Rng rng(seed);
  std::vector<float> a = host::random_floats(rng, n, -1.f, 1.f);
  std::vector<float> b = host::random_floats(rng, n, -1.f, 1.f);

  runtime::DevPtr d_a = ctx.malloc_copy(a), d_b = ctx.malloc_copy(b);
  runtime::DevPtr d_c = ctx.malloc(size_t(n) * sizeof(float));
  const uint32_t block = 256;
  for (int p = 0; p < passes; ++p)
    if (persistent)
      host::launch(ctx, mod.kernel("vecadd_pt"), {host::persistent_grid(ctx, block, host::blocks_for(n, block))},
                   {block}, d_a, d_b, d_c, n);
    else
      host::launch(ctx, mod.kernel("vecadd"), {host::blocks_for(n, block)}, {block}, d_a, d_b, d_c, n);
  std::vector<float> c = ctx.read<float>(d_c, n);
  for (runtime::DevPtr p : {d_a, d_b, d_c}) ctx.free(p);

  // A single IEEE addition: the device result must match bit for bit.
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = a[i] + b[i];
  return check_exact(c, want, "c");
}

const char* const kSizes[] = {"n=80077", "n=524365, 50 passes", "n=16777293", "n=33554509"};

}  // namespace

const WorkloadSpec& vecadd_workload() {
  static const WorkloadSpec pt{"vecadd-pt",
                               "vecadd with persistent threads: a resident grid strides over the elements",
                               "memory",
                               embedded::vecadd_ptx,
                               {kSizes[0], kSizes[1], kSizes[2], kSizes[3]},
                               run_variant<run, true>};
  static const WorkloadSpec spec{
      "vecadd",
      "element-wise vector addition, one thread per element",
      "memory",
      embedded::vecadd_ptx,
      {kSizes[0], kSizes[1], kSizes[2], kSizes[3]},
      run_variant<run, false>,
      &pt};
  return spec;
}

}  // namespace gpumux::workloads
