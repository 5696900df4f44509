// stencil: 3D 7-point Jacobi iterations with ping-pong buffers.
#include <cmath>
#include <utility>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr float kCenter = 0.4f, kNeighbor = 0.1f;  // weights sum to 1: a stable average

void sweep_reference(const std::vector<float>& in, std::vector<float>& out, int nx, int ny, int nz) {
  const size_t plane = size_t(nx) * ny;
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        size_t c = z * plane + size_t(y) * nx + x;
        if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
          out[c] = in[c];
          continue;
        }
        // Same summation order and fused multiply-add as the kernel.
        float sum = in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx] + in[c - plane] + in[c + plane];
        out[c] = std::fma(kNeighbor, sum, kCenter * in[c]);
      }
}

CheckResult run(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  // Paper: the Tanasic thesis's 256 TBs per sweep (table 5.2) as 8 x 32 tiles.
  const int nx = host::by_size(size, 64, 128, 256, 512, 256);
  const int ny = host::by_size(size, 30, 64, 256, 512, 256);  // tiny: a partial tile row in y
  const int nz = host::by_size(size, 16, 32, 64, 128, 8);
  const int iters = host::by_size(size, 4, 44, 10, 20, 10);
  const size_t cells = size_t(nx) * ny * nz;
  Rng rng(seed);
  std::vector<float> grid = host::random_floats(rng, cells, 0.f, 1.f);

  runtime::DevPtr d_a = ctx.malloc_copy(grid), d_b = ctx.malloc(cells * sizeof(float));
  runtime::Kernel k = mod.kernel("stencil7");
  const runtime::Dim3 block(32, 8);
  const runtime::Dim3 grid_dim(host::blocks_for(nx, 32), host::blocks_for(ny, 8));
  for (int it = 0; it < iters; ++it) {
    host::launch(ctx, k, grid_dim, block, d_a, d_b, nx, ny, nz, kCenter, kNeighbor);
    std::swap(d_a, d_b);
  }
  std::vector<float> got = ctx.read<float>(d_a, cells);
  ctx.free(d_a);
  ctx.free(d_b);

  std::vector<float> next(cells);
  for (int it = 0; it < iters; ++it) {
    sweep_reference(grid, next, nx, ny, nz);
    std::swap(grid, next);
  }
  // Bitwise equal in principle; the tolerance is a few ulps of values in [0, 1].
  return check_close(got, grid, 1e-6, 1e-7, "grid");
}

}  // namespace

const WorkloadSpec& stencil_workload() {
  static const WorkloadSpec spec{
      "stencil",
      "3D 7-point Jacobi stencil: z-marching columns, shared-memory plane tile, ping-pong buffers",
      "memory",
      embedded::stencil_ptx,
      {"64x30x16 grid, 4 sweeps", "128x64x32 grid, 44 sweeps",
       "256x256x64 grid, 10 sweeps", "512x512x128 grid, 20 sweeps",
       "256x256x8 grid, 10 sweeps (256 TBs)"},
      run};
  return spec;
}

}  // namespace gpumux::workloads
