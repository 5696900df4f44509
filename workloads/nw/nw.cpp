// nw: Needleman-Wunsch alignment, one kernel launch per diagonal of tiles.
#include <algorithm>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr int kTile = 32, kAlphabet = 24, kPenalty = 10;

CheckResult run(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  const int n = host::by_size(size, 256, 1024, 4096, 8192);  // sequence length, a multiple of the tile
  const int passes = host::passes(size, 4);
  const int width = n + 1, tiles = n / kTile;
  Rng rng(seed);
  // A random symmetric substitution table: positive on the diagonal (matches),
  // mostly negative elsewhere.
  int table[kAlphabet][kAlphabet];
  for (int i = 0; i < kAlphabet; ++i)
    for (int j = 0; j <= i; ++j)
      table[i][j] = table[j][i] = i == j ? 4 + int(rng.below(8)) : int(rng.below(9)) - 5;
  std::vector<int> seq1(n), seq2(n);
  for (int& c : seq1) c = int(rng.below(kAlphabet));
  // The second sequence is a mutated copy of the first, so the alignment has structure.
  for (int i = 0; i < n; ++i) seq2[i] = rng.below(100) < 70 ? seq1[i] : int(rng.below(kAlphabet));

  std::vector<int> similarity(size_t(width) * width, 0), score(size_t(width) * width, 0);
  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= n; ++j) similarity[size_t(i) * width + j] = table[seq1[i - 1]][seq2[j - 1]];
  for (int i = 0; i <= n; ++i) score[size_t(i) * width] = score[i] = -i * kPenalty;

  runtime::DevPtr d_score = ctx.malloc_copy(score), d_sim = ctx.malloc_copy(similarity);
  runtime::Kernel k_upper = mod.kernel("nw_upper"), k_lower = mod.kernel("nw_lower");
  // Every pass recomputes the interior from the fixed borders: the same scores.
  for (int p = 0; p < passes; ++p) {
    for (int d = 0; d < tiles; ++d)
      host::launch(ctx, k_upper, {uint32_t(d + 1)}, {uint32_t(kTile)}, d_score, d_sim, width,
                   kPenalty, d);
    for (int d = 1; d < tiles; ++d)
      host::launch(ctx, k_lower, {uint32_t(tiles - d)}, {uint32_t(kTile)}, d_score, d_sim, width,
                   kPenalty, d, tiles);
  }
  std::vector<int> got = ctx.read<int>(d_score, score.size());
  ctx.free(d_score);
  ctx.free(d_sim);

  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= n; ++j) {
      size_t c = size_t(i) * width + j;
      score[c] = std::max({score[c - width - 1] + similarity[c], score[c - width] - kPenalty,
                           score[c - 1] - kPenalty});
    }
  return check_exact(got, score, "score");
}

}  // namespace

const WorkloadSpec& nw_workload() {
  static const WorkloadSpec spec{
      "nw",
      "Needleman-Wunsch: tile wavefront in shared memory, two kernels, host loop over tile "
      "diagonals",
      "memory",
      embedded::nw_ptx,
      {"256 x 256 alignment, 15 launches", "1024 x 1024 alignment, 4 passes of 63 launches",
       "4096 x 4096 alignment, 255 launches", "8192 x 8192 alignment, 511 launches"},
      run};
  return spec;
}

}  // namespace gpumux::workloads
