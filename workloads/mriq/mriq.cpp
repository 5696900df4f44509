// mriq: MRI Q-matrix computation, k-space samples streamed through constant memory.
#include <numbers>

#include "common/fp_checks.h"
#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr int kChunk = 256;  // kernel's K_CHUNK

struct KSample {
  float kx, ky, kz, phi_mag;
};

CheckResult run_mriq(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  // Paper: the Tanasic thesis's 1024 ComputeQ TBs (table 5.2, Parboil's large
  // input: 262144 voxels); the samples set the TB length (docs/workloads.md, "Paper").
  const int num_x = host::by_size(size, 512, 4096, 16384, 65536, 262144);
  const int num_k = host::by_size(size, 320, 1024, 1024, 3072, 32);
  Rng rng(seed);
  // Voxel coordinates of a 32^3 field of view; k-space samples in [-0.5, 0.5)^3.
  std::vector<float> x = host::random_floats(rng, num_x, -16.f, 16.f);
  std::vector<float> y = host::random_floats(rng, num_x, -16.f, 16.f);
  std::vector<float> z = host::random_floats(rng, num_x, -16.f, 16.f);
  std::vector<float> kx = host::random_floats(rng, num_k, -0.5f, 0.5f);
  std::vector<float> ky = host::random_floats(rng, num_k, -0.5f, 0.5f);
  std::vector<float> kz = host::random_floats(rng, num_k, -0.5f, 0.5f);
  std::vector<float> phi_r = host::random_floats(rng, num_k, -1.f, 1.f);
  std::vector<float> phi_i = host::random_floats(rng, num_k, -1.f, 1.f);

  runtime::DevPtr d_phi_r = ctx.malloc_copy(phi_r), d_phi_i = ctx.malloc_copy(phi_i);
  runtime::DevPtr d_phi_mag = ctx.malloc(num_k * sizeof(float));
  host::launch(ctx, mod.kernel("mriq_phi_mag"), host::blocks_for(num_k, 256), 256, d_phi_r,
               d_phi_i, d_phi_mag, num_k);
  // As in the original, the host gathers |phi|^2 with the coordinates into sample records.
  std::vector<float> phi_mag = ctx.read<float>(d_phi_mag, num_k);
  std::vector<KSample> samples(num_k);
  for (int k = 0; k < num_k; ++k) samples[k] = KSample{kx[k], ky[k], kz[k], phi_mag[k]};

  runtime::DevPtr d_x = ctx.malloc_copy(x), d_y = ctx.malloc_copy(y), d_z = ctx.malloc_copy(z);
  runtime::DevPtr d_qr = ctx.malloc(num_x * sizeof(float));
  runtime::DevPtr d_qi = ctx.malloc(num_x * sizeof(float));
  ctx.memset(d_qr, 0, num_x * sizeof(float));
  ctx.memset(d_qi, 0, num_x * sizeof(float));
  runtime::Kernel compute_q = mod.kernel("mriq_compute_q");
  for (int first = 0; first < num_k; first += kChunk) {
    int count = std::min(kChunk, num_k - first);
    ctx.memcpy_to_symbol(mod, "c_samples", &samples[first], count * sizeof(KSample));
    host::launch(ctx, compute_q, host::blocks_for(num_x, 256), 256, d_x, d_y, d_z, d_qr, d_qi,
                 num_x, count);
  }
  std::vector<float> got_r = ctx.read<float>(d_qr, num_x), got_i = ctx.read<float>(d_qi, num_x);

  // Reference in double. Each float term errs by its phase error (a few ulps of
  // the largest product in k.x, times 2 pi) plus a few ulps of sin/cos and
  // |phi|^2; the sum adds one rounding per term.
  std::vector<double> want_r(num_x), want_i(num_x), bound_r(num_x), bound_i(num_x);
  const double two_pi = 2 * std::numbers::pi;
  const double u = fp::kF32Unit;
  for (int v = 0; v < num_x; ++v) {
    double sr = 0, si = 0, mag_r = 0, mag_i = 0, term_err = 0;
    for (int k = 0; k < num_k; ++k) {
      double pm = double(phi_r[k]) * phi_r[k] + double(phi_i[k]) * phi_i[k];
      double ax = double(kx[k]) * x[v], ay = double(ky[k]) * y[v], az = double(kz[k]) * z[v];
      double phase = two_pi * (ax + ay + az);
      double c = pm * std::cos(phase), s = pm * std::sin(phase);
      sr += c;
      si += s;
      mag_r += std::fabs(c);
      mag_i += std::fabs(s);
      term_err += pm * (8 * u * two_pi * (std::fabs(ax) + std::fabs(ay) + std::fabs(az)) + 8 * u);
    }
    want_r[v] = sr;
    want_i[v] = si;
    bound_r[v] = term_err + (num_k + 4) * u * mag_r;
    bound_i[v] = term_err + (num_k + 4) * u * mag_i;
  }
  return host::check_all({fp::check_within(got_r, want_r, bound_r, "Qr"),
                          fp::check_within(got_i, want_i, bound_i, "Qi")});
}

}  // namespace

const WorkloadSpec& mriq_workload() {
  static const WorkloadSpec spec{
      "mriq",
      "MRI Q-matrix: per-voxel sum of |phi|^2 e^(i2pi k.x) over k-space chunks in constant memory",
      "compute",
      embedded::mriq_ptx,
      {"512 voxels, 320 samples (2 chunks)", "4096 voxels, 1024 samples (4 chunks)",
       "16384 voxels, 1024 samples (4 chunks)", "65536 voxels, 3072 samples (12 chunks)",
       "262144 voxels, 32 samples (1024 TBs)"},
      run_mriq};
  return spec;
}

}  // namespace gpumux::workloads
