// btree: B+tree point and range lookups, one block per query stream.
#include <algorithm>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr int kFanout = 64;  // FANOUT in the kernel

struct Tree {
  int height = 0;
  std::vector<int> keys, link, count, leaf_rank;  // per node (keys/link: kFanout slots)
};

struct Level {  // nodes of one level, children as indices into the level below
  std::vector<std::vector<int>> keys, link;
};

// Splits `items` into groups of kFanout/2..kFanout (the last may be smaller).
std::vector<int> group_sizes(Rng& rng, int items) {
  std::vector<int> sizes;
  while (items > kFanout) {
    int s = std::min(items, kFanout / 2 + int(rng.below(kFanout / 2 + 1)));
    sizes.push_back(s);
    items -= s;
  }
  sizes.push_back(items);
  return sizes;
}

Tree build(Rng& rng, const std::vector<int>& rec_keys, const std::vector<int>& rec_values) {
  std::vector<Level> levels(1);  // levels[0]: leaves
  int next = 0;
  for (int s : group_sizes(rng, int(rec_keys.size()))) {
    levels[0].keys.emplace_back(rec_keys.begin() + next, rec_keys.begin() + next + s);
    levels[0].link.emplace_back(rec_values.begin() + next, rec_values.begin() + next + s);
    next += s;
  }
  while (levels.back().keys.size() > 1) {
    const Level& below = levels.back();
    Level up;
    int child = 0;
    for (int s : group_sizes(rng, int(below.keys.size()))) {
      std::vector<int> k, l;
      for (int c = child; c < child + s; ++c) k.push_back(below.keys[c][0]), l.push_back(c);
      up.keys.push_back(k);
      up.link.push_back(l);
      child += s;
    }
    levels.push_back(std::move(up));
  }
  // Number nodes from the root down, level by level.
  Tree t;
  t.height = int(levels.size());
  std::vector<int> first(levels.size() + 1, 0);
  int nodes = 0;
  for (int lv = t.height - 1; lv >= 0; --lv) first[lv] = nodes, nodes += int(levels[lv].keys.size());
  t.keys.assign(size_t(nodes) * kFanout, 0);
  t.link.assign(size_t(nodes) * kFanout, 0);
  t.count.assign(nodes, 0);
  t.leaf_rank.assign(nodes, 0);
  int rank = 0;
  for (int lv = 0; lv < t.height; ++lv)
    for (size_t j = 0; j < levels[lv].keys.size(); ++j) {
      const int v = first[lv] + int(j), m = int(levels[lv].keys[j].size());
      t.count[v] = m;
      for (int s = 0; s < m; ++s) {
        t.keys[size_t(v) * kFanout + s] = levels[lv].keys[j][s];
        t.link[size_t(v) * kFanout + s] = lv == 0 ? levels[lv].link[j][s] : first[lv - 1] + levels[lv].link[j][s];
      }
      if (lv == 0) t.leaf_rank[v] = rank, rank += m;
    }
  return t;
}

CheckResult run(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  const int records = host::by_size(size, 20000, 100000, 2000000, 8000000);
  const int npoint = host::by_size(size, 512, 28000, 100000, 400000);
  const int nrange = host::by_size(size, 256, 12000, 40000, 160000);
  const uint32_t grid = host::by_size(size, 32u, 128u, 256u, 512u);
  Rng rng(seed);
  std::vector<int> rec_keys(records), rec_values(records);
  int key = int(rng.below(100));
  for (int i = 0; i < records; ++i) {
    key += 1 + int(rng.below(8));
    rec_keys[i] = key;
    rec_values[i] = int(rng.below(1 << 30));
  }
  Tree tree = build(rng, rec_keys, rec_values);
  const int lo_key = rec_keys.front(), hi_key = rec_keys.back();

  std::vector<int> points(npoint);
  for (int& q : points)  // half present keys, half anything (mostly misses)
    q = rng.below(2) ? rec_keys[rng.below(records)] : lo_key - 50 + int(rng.below(uint32_t(hi_key - lo_key + 100)));
  std::vector<int> ranges(2 * size_t(nrange));
  for (int q = 0; q < nrange; ++q) {
    int lo = lo_key - 100 + int(rng.below(uint32_t(hi_key - lo_key + 100)));
    ranges[2 * q] = lo;
    ranges[2 * q + 1] = lo + int(rng.below(4000));
  }

  runtime::DevPtr d_keys = ctx.malloc_copy(tree.keys), d_link = ctx.malloc_copy(tree.link),
                  d_count = ctx.malloc_copy(tree.count), d_rank = ctx.malloc_copy(tree.leaf_rank),
                  d_values = ctx.malloc_copy(rec_values), d_points = ctx.malloc_copy(points),
                  d_ranges = ctx.malloc_copy(ranges);
  runtime::DevPtr d_found = ctx.malloc(size_t(npoint) * 4), d_rcount = ctx.malloc(size_t(nrange) * 4),
                  d_rsum = ctx.malloc(size_t(nrange) * 4);
  host::launch(ctx, mod.kernel("btree_find"), {grid}, {uint32_t(kFanout)}, d_keys, d_link, d_count,
               tree.height, d_points, npoint, d_found);
  host::launch(ctx, mod.kernel("btree_range"), {grid}, {uint32_t(kFanout)}, d_keys, d_link, d_count,
               d_rank, tree.height, d_values, d_ranges, nrange, d_rcount, d_rsum);
  std::vector<int> found = ctx.read<int>(d_found, npoint), rcount = ctx.read<int>(d_rcount, nrange);
  std::vector<uint32_t> rsum = ctx.read<uint32_t>(d_rsum, nrange);
  for (runtime::DevPtr p : {d_keys, d_link, d_count, d_rank, d_values, d_points, d_ranges, d_found,
                            d_rcount, d_rsum})
    ctx.free(p);

  std::vector<int> want_found(npoint), want_count(nrange);
  std::vector<uint32_t> want_sum(nrange, 0);
  for (int q = 0; q < npoint; ++q) {
    auto it = std::lower_bound(rec_keys.begin(), rec_keys.end(), points[q]);
    want_found[q] = it != rec_keys.end() && *it == points[q] ? rec_values[it - rec_keys.begin()] : -1;
  }
  for (int q = 0; q < nrange; ++q) {
    size_t first = std::lower_bound(rec_keys.begin(), rec_keys.end(), ranges[2 * q]) - rec_keys.begin();
    size_t last = std::upper_bound(rec_keys.begin(), rec_keys.end(), ranges[2 * q + 1]) - rec_keys.begin();
    want_count[q] = int(last - first);
    for (size_t r = first; r < last; ++r) want_sum[q] += uint32_t(rec_values[r]);
  }
  CheckResult r = host::check_all({check_exact(found, want_found, "point"),
                                   check_exact(rcount, want_count, "range count"),
                                   check_exact(rsum, want_sum, "range sum")});
  if (r.passed) r.detail += fmt::format(", tree height {}", tree.height);
  return r;
}

}  // namespace

const WorkloadSpec& btree_workload() {
  static const WorkloadSpec spec{
      "btree",
      "B+tree point and range queries: a block walks the levels per query, parallel key "
      "comparison, __syncthreads_count ranks, strided range sums",
      "memory",
      embedded::btree_ptx,
      {"20000 records, 512 point + 256 range queries",
       "100000 records, 28000 point + 12000 range queries",
       "2M records, 100K point + 40K range queries", "8M records, 400K point + 160K range queries"},
      run};
  return spec;
}

}  // namespace gpumux::workloads
