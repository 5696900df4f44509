// pc: pure compute, one load and one store around a long arithmetic chain per thread.
#include <bit>
#include <cmath>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

uint32_t reference(uint32_t h, int iterations) {
  float acc = float(h & 0xffffu) * (1.f / 65536);
  for (int k = 0; k < iterations; ++k) {
    h ^= h << 13;
    h ^= h >> 17;
    h ^= h << 5;
    h = h * 0x9e3779b1u + uint32_t(k);
    acc = std::fma(acc, 0.999f, float(h >> 8) * (1.f / 16777216));
  }
  return h ^ std::bit_cast<uint32_t>(acc);
}

CheckResult run(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed, bool persistent) {
  const int n = host::by_size(size, 4096, 16384, 65536, 262144);
  const int iterations = host::by_size(size, 150, 1000, 1000, 4000);
  Rng rng(seed);
  std::vector<uint32_t> in(n);
  for (uint32_t& x : in) x = rng.u32() | 1u;  // xorshift needs a non-zero state
  runtime::DevPtr d_in = ctx.malloc_copy(in), d_out = ctx.malloc(n * sizeof(uint32_t));
  if (persistent)
    host::launch(ctx, mod.kernel("pc_compute_pt"), host::persistent_grid(ctx, 256, host::blocks_for(n, 256)), 256,
                 d_in, d_out, n, iterations);
  else
    host::launch(ctx, mod.kernel("pc_compute"), host::blocks_for(n, 256), 256, d_in, d_out, n, iterations);
  std::vector<uint32_t> got = ctx.read<uint32_t>(d_out, n), want(n);
  for (int i = 0; i < n; ++i) want[i] = reference(in[i], iterations);
  return check_exact(got, want, "output");
}

const char* const kSizes[] = {"4096 threads x 150 iterations", "16384 threads x 1000 iterations",
                              "65536 threads x 1000 iterations", "262144 threads x 4000 iterations"};

}  // namespace

const WorkloadSpec& pc_workload() {
  static const WorkloadSpec pt{"pc-pt",
                               "pc with persistent threads: a resident grid strides over the elements",
                               "compute",
                               embedded::pc_ptx,
                               {kSizes[0], kSizes[1], kSizes[2], kSizes[3]},
                               run_variant<run, true>};
  static const WorkloadSpec spec{
      "pc",
      "pure compute: one load, a long dependent integer/f32 chain, one store per thread",
      "compute",
      embedded::pc_ptx,
      {kSizes[0], kSizes[1], kSizes[2], kSizes[3]},
      run_variant<run, false>,
      &pt};
  return spec;
}

}  // namespace gpumux::workloads
