// random-graph: a random graph whose adjacency lists come from device malloc
// (in the spirit of the Halloc allocator's graph example that the thesis's
// figure 6.14 runs); per vertex, the sum of its neighbours' degrees.
#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr int kMaxDegree = 16;

// The kernels' hash (randomgraph.cu), on the host.
uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

CheckResult run(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  const int vertices = host::by_size(size, 4096, 65536, 524288, 2097152);
  const uint32_t graph_seed = uint32_t(Rng(seed).next());
  ctx.set_device_heap_limit(uint64_t(vertices) * kMaxDegree * sizeof(int));

  runtime::DevPtr d_lists = ctx.malloc(size_t(vertices) * sizeof(uint64_t));
  runtime::DevPtr d_degrees = ctx.malloc(size_t(vertices) * sizeof(int));
  runtime::DevPtr d_sums = ctx.malloc(size_t(vertices) * sizeof(int64_t));
  const uint32_t block = 128, grid = host::blocks_for(vertices, block);
  host::launch(ctx, mod.kernel("build_graph"), {grid}, {block}, graph_seed, vertices, kMaxDegree, d_lists, d_degrees);
  host::launch(ctx, mod.kernel("neighbour_degrees"), {grid}, {block}, d_lists, d_degrees, vertices, d_sums);
  std::vector<int> degrees = ctx.read<int>(d_degrees, vertices);
  std::vector<int64_t> sums = ctx.read<int64_t>(d_sums, vertices);
  for (runtime::DevPtr p : {d_lists, d_degrees, d_sums}) ctx.free(p);

  std::vector<int> want_degrees(vertices);
  std::vector<uint32_t> hashes(vertices);
  for (int v = 0; v < vertices; ++v) {
    hashes[v] = mix(graph_seed ^ mix(uint32_t(v)));
    want_degrees[v] = 1 + int(hashes[v] % kMaxDegree);
  }
  std::vector<int64_t> want_sums(vertices, 0);
  for (int v = 0; v < vertices; ++v)
    for (int k = 0; k < want_degrees[v]; ++k)
      want_sums[v] += want_degrees[mix(hashes[v] + uint32_t(k) * 0x9e3779b9u) % uint32_t(vertices)];
  return host::check_all({check_exact(degrees, want_degrees, "degrees"), check_exact(sums, want_sums, "sums")});
}

}  // namespace

const WorkloadSpec& randomgraph_workload() {
  static const WorkloadSpec spec{
      "random-graph",
      "random graph with adjacency lists from device malloc; per vertex the sum of its neighbours' degrees",
      "memory",
      embedded::randomgraph_ptx,
      {"4096 vertices", "65536 vertices", "524288 vertices", "2097152 vertices"},
      run};
  return spec;
}

}  // namespace gpumux::workloads
