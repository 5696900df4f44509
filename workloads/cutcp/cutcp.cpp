// cutcp: cutoff Coulombic potential on a lattice from binned atoms.
#include "common/fp_checks.h"
#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr int kRegion = 8;          // lattice points per bin side (kernel's REGION)
constexpr int kBinCapacity = 16;    // kernel's BIN_CAPACITY
constexpr float kSpacing = 0.5f;    // lattice spacing (Angstrom)
constexpr float kCutoff = 5.0f;     // interaction cutoff (Angstrom)

struct Atom {
  float x, y, z, q;
};
struct Offset {
  int dx, dy, dz, unused;
};

CheckResult run_cutcp(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  const int bins = host::by_size(size, 2, 6, 8, 12);  // bins per side
  const int side = bins * kRegion;                   // lattice points per side
  const float bin_side = kRegion * kSpacing;
  const int num_bins = bins * bins * bins;

  // Atoms, generated bin by bin (4 to 12 per bin) as the host binning would leave them.
  Rng rng(seed);
  std::vector<Atom> bin_atoms(size_t(num_bins) * kBinCapacity, Atom{0, 0, 0, 0});
  std::vector<int> bin_counts(num_bins);
  for (int b = 0; b < num_bins; ++b) {
    int x = b % bins, y = (b / bins) % bins, z = b / (bins * bins);
    bin_counts[b] = 4 + int(rng.below(9));
    for (int s = 0; s < bin_counts[b]; ++s)
      bin_atoms[size_t(b) * kBinCapacity + s] =
          Atom{(float(x) + rng.uniform()) * bin_side, (float(y) + rng.uniform()) * bin_side,
               (float(z) + rng.uniform()) * bin_side, rng.uniform(-1.f, 1.f)};
  }

  // Bins whose box comes closer than the cutoff to some point of the region.
  std::vector<Offset> offsets;
  for (int dz = -2; dz <= 2; ++dz)
    for (int dy = -2; dy <= 2; ++dy)
      for (int dx = -2; dx <= 2; ++dx) {
        auto gap = [&](int d) { return std::max(0, std::abs(d) - 1) * bin_side; };
        float g2 = gap(dx) * gap(dx) + gap(dy) * gap(dy) + gap(dz) * gap(dz);
        if (g2 < kCutoff * kCutoff) offsets.push_back(Offset{dx, dy, dz, 0});
      }

  ctx.memcpy_to_symbol(mod, "c_neighbor_offsets", offsets.data(), offsets.size() * sizeof(Offset));
  runtime::DevPtr d_atoms = ctx.malloc_copy(bin_atoms), d_counts = ctx.malloc_copy(bin_counts);
  const size_t points = size_t(side) * side * side;
  runtime::DevPtr d_lattice = ctx.malloc(points * sizeof(float));
  host::launch(ctx, mod.kernel("cutcp_lattice"), runtime::Dim3(bins, bins, bins),
               runtime::Dim3(8, 8, 2), d_atoms, d_counts, bins, int(offsets.size()), kSpacing,
               kCutoff * kCutoff, d_lattice);
  std::vector<float> got = ctx.read<float>(d_lattice, points);

  // Reference in double over the same neighbour bins. A float term carries a
  // few ulps of error (differences, squares, rsqrt); the sum adds one rounding per term.
  std::vector<fp::Accum> acc(points);
  const double c2 = double(kCutoff) * kCutoff;
  int max_terms = 0;
  for (int gz = 0; gz < side; ++gz)
    for (int gy = 0; gy < side; ++gy)
      for (int gx = 0; gx < side; ++gx) {
        fp::Accum& e = acc[(size_t(gz) * side + gy) * side + gx];
        double px = gx * double(kSpacing), py = gy * double(kSpacing), pz = gz * double(kSpacing);
        int terms = 0;
        for (const Offset& o : offsets) {
          int x = gx / kRegion + o.dx, y = gy / kRegion + o.dy, z = gz / kRegion + o.dz;
          if (x < 0 || x >= bins || y < 0 || y >= bins || z < 0 || z >= bins) continue;
          int b = (z * bins + y) * bins + x;
          for (int s = 0; s < bin_counts[b]; ++s) {
            const Atom& a = bin_atoms[size_t(b) * kBinCapacity + s];
            double dx = px - a.x, dy = py - a.y, dz = pz - a.z;
            double r2 = dx * dx + dy * dy + dz * dz;
            if (r2 >= c2) continue;
            double sm = 1.0 - r2 / c2;
            e.add(a.q * sm * sm / std::sqrt(r2));
            ++terms;
          }
        }
        max_terms = std::max(max_terms, terms);
      }
  std::vector<double> want, bound;
  fp::split_bounds(acc, max_terms + 32, 1e-6, want, bound);
  return fp::check_within(got, want, bound, "potential");
}

}  // namespace

const WorkloadSpec& cutcp_workload() {
  static const WorkloadSpec spec{
      "cutcp",
      "cutoff Coulombic potential on a 3D lattice; atom bins staged in shared memory, ballot compaction",
      "compute",
      embedded::cutcp_ptx,
      {"16^3 lattice, 8 bins of 4-12 atoms", "48^3 lattice, 216 bins",
       "64^3 lattice, 512 bins", "96^3 lattice, 1728 bins"},
      run_cutcp};
  return spec;
}

}  // namespace gpumux::workloads
