// spmv: y = A x with CSR (scalar and vector kernels) and JDS layouts.
#include <algorithm>
#include <numeric>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

struct Csr {
  int rows = 0, cols = 0;
  std::vector<int> row_ptr, col;
  std::vector<float> val;
};

// Mostly short rows with a banded structure plus scattered far columns, and a
// few long rows: the skew JDS sorting and the warp-per-row kernel are for.
// Values are small dyadic rationals (k/4 times m/8) so every product and
// partial sum is exact in float: all kernels must match the reference bitwise
// whatever order they add in.
Csr random_matrix(Rng& rng, int rows, int cols) {
  Csr m;
  m.rows = rows;
  m.cols = cols;
  m.row_ptr.push_back(0);
  std::vector<int> cols_of_row;
  for (int r = 0; r < rows; ++r) {
    int len = rng.below(100) < 4 ? 32 + int(rng.below(224)) : 1 + int(rng.below(16));
    len = std::min(len, cols);
    cols_of_row.clear();
    while (int(cols_of_row.size()) < len) {
      int c = rng.below(100) < 70 ? int(int64_t(r) * cols / rows) - 32 + int(rng.below(64))
                                  : int(rng.below(cols));
      c = std::clamp(c, 0, cols - 1);
      if (std::find(cols_of_row.begin(), cols_of_row.end(), c) == cols_of_row.end())
        cols_of_row.push_back(c);
    }
    std::sort(cols_of_row.begin(), cols_of_row.end());
    for (int c : cols_of_row) {
      int k = int(rng.below(16)) - 8;
      m.col.push_back(c);
      m.val.push_back(float(k >= 0 ? k + 1 : k) / 4.f);
    }
    m.row_ptr.push_back(int(m.col.size()));
  }
  return m;
}

struct Jds {
  std::vector<int> diag_start, sorted_len, perm, col;
  std::vector<float> val;
};

Jds to_jds(const Csr& m) {
  Jds j;
  j.perm.resize(m.rows);
  std::iota(j.perm.begin(), j.perm.end(), 0);
  auto len = [&](int r) { return m.row_ptr[r + 1] - m.row_ptr[r]; };
  std::stable_sort(j.perm.begin(), j.perm.end(), [&](int a, int b) { return len(a) > len(b); });
  for (int p = 0; p < m.rows; ++p) j.sorted_len.push_back(len(j.perm[p]));
  const int diags = m.rows ? j.sorted_len[0] : 0;
  for (int d = 0; d < diags; ++d) {
    j.diag_start.push_back(int(j.col.size()));
    // Diagonal d holds the d-th nonzero of every row at least d+1 long: a
    // prefix of the sorted rows.
    for (int p = 0; p < m.rows && j.sorted_len[p] > d; ++p) {
      int k = m.row_ptr[j.perm[p]] + d;
      j.col.push_back(m.col[k]);
      j.val.push_back(m.val[k]);
    }
  }
  return j;
}

CheckResult run(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  // Paper: the Tanasic thesis's 374 TBs of spmvjds (table 5.2; Parboil's medium
  // input, bcsstk18: 11948 rows, 149K nonzeros) in Parboil's 32-thread blocks.
  const int rows = host::by_size(size, 3000, 10000, 200000, 1000000, 12000);
  const int cols = host::by_size(size, 2500, 9000, 180000, 1000000, 12000);
  const int iters = host::by_size(size, 1, 6, 3, 5, 10);
  Rng rng(seed);
  Csr a = random_matrix(rng, rows, cols);
  Jds jds = to_jds(a);
  std::vector<float> x(cols);
  for (float& v : x) v = float(int(rng.below(33)) - 16) / 8.f;

  runtime::DevPtr d_row_ptr = ctx.malloc_copy(a.row_ptr), d_col = ctx.malloc_copy(a.col),
                  d_val = ctx.malloc_copy(a.val), d_x = ctx.malloc_copy(x);
  runtime::DevPtr d_diag_start = ctx.malloc_copy(jds.diag_start),
                  d_sorted_len = ctx.malloc_copy(jds.sorted_len),
                  d_perm = ctx.malloc_copy(jds.perm), d_jcol = ctx.malloc_copy(jds.col),
                  d_jval = ctx.malloc_copy(jds.val);
  runtime::DevPtr d_y[3];
  for (auto& p : d_y) p = ctx.malloc(size_t(rows) * sizeof(float));

  runtime::Kernel k_scalar = mod.kernel("spmv_csr_scalar"), k_vector = mod.kernel("spmv_csr_vector"),
                  k_jds = mod.kernel("spmv_jds");
  const uint32_t block = size == Size::Paper ? 32 : 128;
  for (int it = 0; it < iters; ++it) {
    host::launch(ctx, k_scalar, {host::blocks_for(rows, block)}, {block}, d_row_ptr, d_col, d_val,
                 d_x, d_y[0], rows);
    host::launch(ctx, k_vector, {host::blocks_for(uint64_t(rows) * 32, block)}, {block}, d_row_ptr,
                 d_col, d_val, d_x, d_y[1], rows);
    host::launch(ctx, k_jds, {host::blocks_for(rows, block)}, {block}, d_diag_start, d_sorted_len,
                 d_perm, d_jcol, d_jval, d_x, d_y[2], rows);
  }
  std::vector<float> y_scalar = ctx.read<float>(d_y[0], rows),
                     y_vector = ctx.read<float>(d_y[1], rows),
                     y_jds = ctx.read<float>(d_y[2], rows);
  for (runtime::DevPtr p : {d_row_ptr, d_col, d_val, d_x, d_diag_start, d_sorted_len, d_perm,
                            d_jcol, d_jval, d_y[0], d_y[1], d_y[2]})
    ctx.free(p);

  std::vector<float> want(rows);
  for (int r = 0; r < rows; ++r) {
    float sum = 0.f;
    for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) sum += a.val[k] * x[a.col[k]];
    want[r] = sum;
  }
  return host::check_all({check_exact(y_scalar, want, "y_csr_scalar"),
                          check_exact(y_vector, want, "y_csr_vector"),
                          check_exact(y_jds, want, "y_jds")});
}

}  // namespace

const WorkloadSpec& spmv_workload() {
  static const WorkloadSpec spec{
      "spmv",
      "sparse matrix-vector product: CSR thread-per-row, CSR warp-per-row with shuffles, JDS",
      "memory",
      embedded::spmv_ptx,
      {"3000x2500, ~30K nonzeros, 1 pass of 3 kernels",
       "10000x9000, 6 passes of 3 kernels",
       "200000x180000, ~2.6M nonzeros, 3 passes of 3 kernels",
       "1000000x1000000, ~13M nonzeros, 5 passes of 3 kernels",
       "12000x12000, ~156K nonzeros, 10 passes of 3 kernels in 32-thread blocks (375 TBs)"},
      run};
  return spec;
}

}  // namespace gpumux::workloads
