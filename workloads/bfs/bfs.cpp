// bfs: level-synchronous frontier BFS, one launch per level, host loop on the
// device's next-frontier size.
#include <algorithm>
#include <deque>
#include <utility>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

struct Graph {
  int nodes = 0;
  std::vector<int> row_ptr, adj;
};

// An undirected small-world graph: every vertex links to a few vertices a
// short distance ahead (long chains of levels), and rarely to a random far
// vertex (shortcuts that make frontiers grow and merge irregularly).
Graph random_graph(Rng& rng, int nodes) {
  std::vector<std::pair<int, int>> edges;
  for (int v = 0; v < nodes; ++v) {
    int local = 1 + int(rng.below(4));
    for (int k = 0; k < local; ++k) {
      int u = v + 1 + int(rng.below(24));
      if (u < nodes) edges.emplace_back(v, u);
    }
    if (rng.below(100) < 3) edges.emplace_back(v, int(rng.below(nodes)));
  }
  Graph g;
  g.nodes = nodes;
  std::vector<int> degree(nodes, 0);
  for (auto [a, b] : edges) ++degree[a], ++degree[b];
  g.row_ptr.assign(nodes + 1, 0);
  for (int v = 0; v < nodes; ++v) g.row_ptr[v + 1] = g.row_ptr[v] + degree[v];
  g.adj.resize(g.row_ptr[nodes]);
  std::vector<int> fill(g.row_ptr.begin(), g.row_ptr.end() - 1);
  for (auto [a, b] : edges) g.adj[fill[a]++] = b, g.adj[fill[b]++] = a;
  return g;
}

CheckResult run(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  const int nodes = host::by_size(size, 6000, 1 << 18, 1 << 22, 1 << 24);
  Rng rng(seed);
  Graph g = random_graph(rng, nodes);
  const int source = int(rng.below(nodes));

  std::vector<int> level(nodes, -1);
  level[source] = 0;
  runtime::DevPtr d_row_ptr = ctx.malloc_copy(g.row_ptr), d_adj = ctx.malloc_copy(g.adj);
  runtime::DevPtr d_level = ctx.malloc_copy(level);
  runtime::DevPtr d_frontier = ctx.malloc(size_t(nodes) * sizeof(int));
  runtime::DevPtr d_next = ctx.malloc(size_t(nodes) * sizeof(int));
  runtime::DevPtr d_next_size = ctx.malloc(sizeof(int));
  ctx.memcpy_h2d(d_frontier, &source, sizeof(int));

  runtime::Kernel k = mod.kernel("bfs_expand");
  const uint32_t block = 256;
  int frontier_size = 1, depth = 0;
  while (frontier_size > 0) {
    ctx.memset(d_next_size, 0, sizeof(int));
    host::launch(ctx, k, {host::blocks_for(frontier_size, block)}, {block}, d_row_ptr, d_adj,
                 d_level, d_frontier, frontier_size, d_next, d_next_size, depth);
    ctx.memcpy_d2h(&frontier_size, d_next_size, sizeof(int));
    std::swap(d_frontier, d_next);
    ++depth;
    if (depth > nodes) return {false, "BFS did not terminate"};
  }
  std::vector<int> got = ctx.read<int>(d_level, nodes);
  for (runtime::DevPtr p : {d_row_ptr, d_adj, d_level, d_frontier, d_next, d_next_size}) ctx.free(p);

  // Levels are unique whatever order vertices were discovered in.
  std::deque<int> queue{source};
  while (!queue.empty()) {
    int v = queue.front();
    queue.pop_front();
    for (int e = g.row_ptr[v]; e < g.row_ptr[v + 1]; ++e)
      if (level[g.adj[e]] < 0) level[g.adj[e]] = level[v] + 1, queue.push_back(g.adj[e]);
  }
  CheckResult r = check_exact(got, level, "level");
  if (r.passed) r.detail += fmt::format(", {} levels", depth);
  return r;
}

}  // namespace

const WorkloadSpec& bfs_workload() {
  static const WorkloadSpec spec{
      "bfs",
      "frontier BFS: kernel per level, CAS-claimed vertices, shared-memory block queues, "
      "host loop on the device frontier size",
      "memory",
      embedded::bfs_ptx,
      {"6000 vertices, ~30K directed edges", "262144 vertices, ~1.3M directed edges",
       "4M vertices, ~20M directed edges", "16M vertices, ~80M directed edges"},
      run};
  return spec;
}

}  // namespace gpumux::workloads
