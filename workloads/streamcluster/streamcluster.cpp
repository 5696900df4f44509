// streamcluster: facility-location local search; per candidate centre a gain
// kernel with per-block double reductions, a host decision, and an apply kernel.
#include <array>
#include <cmath>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr int kThreads = 256;  // EVAL_THREADS in the kernel
constexpr int kMaxSlots = 64;

struct Points {
  int n, dim;
  std::vector<float> coords;  // coordinate-major: coords[f * n + i]
  std::vector<float> weight;
  float sqdist(int i, int j) const {
    float d2 = 0.f;
    for (int f = 0; f < dim; ++f) {
      float diff = coords[size_t(f) * n + i] - coords[size_t(f) * n + j];
      d2 = std::fma(diff, diff, d2);
    }
    return d2;
  }
};

struct Solution {
  std::vector<int> assign;
  std::vector<float> cost;
  std::vector<int> slot_point;  // centre point of each slot
  std::vector<bool> active;
  int opened = 0, closed = 0;
};

// Host decision from the per-slot sums (index nslots: the switching points).
// Returns whether to open the candidate and which open centres to close.
bool decide(const std::vector<double>& sums, const std::vector<bool>& active, double open_cost,
            std::vector<int>& closing) {
  const int nslots = int(active.size());
  double change = open_cost + sums[nslots];
  closing.assign(nslots, 0);
  for (int j = 0; j < nslots; ++j)
    if (active[j] && sums[j] - open_cost < 0) {
      change += sums[j] - open_cost;
      closing[j] = 1;
    }
  return change < 0;
}

void commit(Solution& s, const std::vector<int>& closing, int candidate) {
  for (size_t j = 0; j < closing.size(); ++j)
    if (closing[j]) s.active[j] = false, ++s.closed;
  s.slot_point.push_back(candidate);
  s.active.push_back(true);
  ++s.opened;
}

// The kernel's arithmetic and reduction order, block by block.
std::vector<double> slot_sums_reference(const Points& p, const Solution& s, int candidate,
                                        std::vector<float>& cand_cost) {
  const int nslots = int(s.active.size());
  std::vector<double> total(nslots + 1, 0.0);
  const int blocks = int(host::blocks_for(p.n, kThreads));
  std::array<double, kThreads> delta;
  std::array<int, kThreads> slot;
  for (int b = 0; b < blocks; ++b) {
    for (int t = 0; t < kThreads; ++t) {
      int i = b * kThreads + t;
      delta[t] = 0.0;
      slot[t] = -1;
      if (i >= p.n) continue;
      cand_cost[i] = p.weight[i] * p.sqdist(i, candidate);
      delta[t] = double(cand_cost[i]) - double(s.cost[i]);
      slot[t] = delta[t] < 0.0 ? nslots : s.assign[i];
    }
    for (int target = 0; target <= nslots; ++target) {
      std::array<double, 32> lane{};
      for (int l = 0; l < 32; ++l)
        for (int k = l; k < kThreads; k += 32) lane[l] += slot[k] == target ? delta[k] : 0.0;
      for (int offset = 16; offset > 0; offset >>= 1) {
        std::array<double, 32> next = lane;
        for (int l = 0; l + offset < 32; ++l) next[l] = lane[l] + lane[l + offset];
        lane = next;
      }
      total[target] += lane[0];
    }
  }
  return total;
}

CheckResult run(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  Points p{host::by_size(size, 2048, 16384, 65536, 262144), host::by_size(size, 8, 32, 16, 32), {}, {}};
  const int candidates = host::by_size(size, 10, 30, 40, 80);
  const int blobs = 12, initial_centres = 2;
  Rng rng(seed);
  std::vector<float> blob_centre = host::random_floats(rng, size_t(blobs) * p.dim, -20.f, 20.f);
  p.coords.resize(size_t(p.n) * p.dim);
  for (int i = 0; i < p.n; ++i) {
    int b = int(rng.below(blobs));
    for (int f = 0; f < p.dim; ++f)
      p.coords[size_t(f) * p.n + i] = blob_centre[b * p.dim + f] + rng.uniform(-3.f, 3.f);
  }
  p.weight = host::random_floats(rng, p.n, 1.f, 2.f);

  // Initial solution: a couple of random centres, every point at its nearest.
  Solution init;
  for (int c = 0; c < initial_centres; ++c) init.slot_point.push_back(int(rng.below(p.n)));
  init.active.assign(initial_centres, true);
  init.assign.resize(p.n);
  init.cost.resize(p.n);
  double total_cost = 0;
  for (int i = 0; i < p.n; ++i) {
    init.cost[i] = 3.0e38f;
    for (int c = 0; c < initial_centres; ++c) {
      float cost = p.weight[i] * p.sqdist(i, init.slot_point[c]);
      if (cost < init.cost[i]) init.cost[i] = cost, init.assign[i] = c;
    }
    total_cost += init.cost[i];
  }
  const double open_cost = total_cost / 40;  // facility cost z
  std::vector<int> cand(candidates);
  for (int& c : cand) c = int(rng.below(p.n));

  runtime::DevPtr d_coords = ctx.malloc_copy(p.coords), d_weight = ctx.malloc_copy(p.weight),
                  d_cost = ctx.malloc_copy(init.cost), d_assign = ctx.malloc_copy(init.assign);
  runtime::DevPtr d_cand_cost = ctx.malloc(size_t(p.n) * sizeof(float));
  const uint32_t blocks = host::blocks_for(p.n, kThreads);
  runtime::DevPtr d_partials = ctx.malloc(size_t(blocks) * (kMaxSlots + 1) * sizeof(double));
  runtime::DevPtr d_closing = ctx.malloc(kMaxSlots * sizeof(int));
  runtime::Kernel k_eval = mod.kernel("pgain_eval"), k_apply = mod.kernel("pgain_apply");

  auto is_centre = [](const Solution& s, int point) {
    for (size_t j = 0; j < s.slot_point.size(); ++j)
      if (s.active[j] && s.slot_point[j] == point) return true;
    return false;
  };

  Solution gpu = init;
  for (int x : cand) {
    if (int(gpu.active.size()) >= kMaxSlots || is_centre(gpu, x)) continue;
    const int nslots = int(gpu.active.size());
    host::launch(ctx, k_eval, {blocks}, {uint32_t(kThreads)}, d_coords, d_weight, d_cost, d_assign,
                 p.n, p.dim, x, nslots, d_cand_cost, d_partials);
    std::vector<double> partials = ctx.read<double>(d_partials, size_t(blocks) * (nslots + 1));
    std::vector<double> sums(nslots + 1, 0.0);
    for (uint32_t b = 0; b < blocks; ++b)
      for (int t = 0; t <= nslots; ++t) sums[t] += partials[size_t(b) * (nslots + 1) + t];
    std::vector<int> closing;
    if (!decide(sums, gpu.active, open_cost, closing)) continue;
    ctx.memcpy_h2d(d_closing, closing.data(), closing.size() * sizeof(int));
    host::launch(ctx, k_apply, {host::blocks_for(p.n, 256)}, {256u}, d_cand_cost, d_cost, d_assign,
                 d_closing, p.n, nslots);
    commit(gpu, closing, x);
  }
  gpu.assign = ctx.read<int>(d_assign, p.n);
  gpu.cost = ctx.read<float>(d_cost, p.n);
  for (runtime::DevPtr q : {d_coords, d_weight, d_cost, d_assign, d_cand_cost, d_partials, d_closing})
    ctx.free(q);

  // Reference: same float distances, same double reduction order, same decisions.
  Solution ref = init;
  std::vector<float> cand_cost(p.n);
  for (int x : cand) {
    if (int(ref.active.size()) >= kMaxSlots || is_centre(ref, x)) continue;
    std::vector<double> sums = slot_sums_reference(p, ref, x, cand_cost);
    std::vector<int> closing;
    if (!decide(sums, ref.active, open_cost, closing)) continue;
    const int new_slot = int(ref.active.size());
    for (int i = 0; i < p.n; ++i)
      if (cand_cost[i] < ref.cost[i] || closing[ref.assign[i]])
        ref.assign[i] = new_slot, ref.cost[i] = cand_cost[i];
    commit(ref, closing, x);
  }
  if (gpu.opened != ref.opened || gpu.closed != ref.closed)
    return {false, fmt::format("opened/closed {}/{} centres, expected {}/{}", gpu.opened,
                               gpu.closed, ref.opened, ref.closed)};
  CheckResult r = host::check_all(
      {check_exact(gpu.assign, ref.assign, "assign"), check_exact(gpu.cost, ref.cost, "cost")});
  if (r.passed) r.detail += fmt::format(", {} centres opened, {} closed", gpu.opened, gpu.closed);
  return r;
}

}  // namespace

const WorkloadSpec& streamcluster_workload() {
  static const WorkloadSpec spec{
      "streamcluster",
      "facility-location local search: gain kernel with per-block f64 slot reductions (shuffles), "
      "host decision per candidate, apply kernel",
      "memory",
      embedded::streamcluster_ptx,
      {"2048 points, 8 dims, 10 candidates", "16384 points, 32 dims, 30 candidates",
       "65536 points, 16 dims, 40 candidates", "262144 points, 32 dims, 80 candidates"},
      run};
  return spec;
}

}  // namespace gpumux::workloads
