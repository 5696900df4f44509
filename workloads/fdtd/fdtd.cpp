// fdtd: 2D FDTD, three kernels (ey, ex, hz) per timestep.
#include <cmath>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

CheckResult run(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  const int nx = host::by_size(size, 64, 256, 1024, 2048);
  const int ny = host::by_size(size, 80, 256, 1024, 2048);
  const int steps = host::by_size(size, 6, 40, 20, 50);
  const size_t cells = size_t(nx) * ny;
  Rng rng(seed);
  std::vector<float> ex = host::random_floats(rng, cells, -1.f, 1.f);
  std::vector<float> ey = host::random_floats(rng, cells, -1.f, 1.f);
  std::vector<float> hz = host::random_floats(rng, cells, -1.f, 1.f);
  std::vector<float> source(steps);
  for (int t = 0; t < steps; ++t) source[t] = std::sin(0.3f * float(t));

  runtime::DevPtr d_ex = ctx.malloc_copy(ex), d_ey = ctx.malloc_copy(ey), d_hz = ctx.malloc_copy(hz);
  runtime::DevPtr d_src = ctx.malloc_copy(source);
  const runtime::Dim3 block(32, 8);
  const runtime::Dim3 grid(host::blocks_for(ny, block.x), host::blocks_for(nx, block.y));
  runtime::Kernel k_ey = mod.kernel("fdtd_update_ey"), k_ex = mod.kernel("fdtd_update_ex"),
                  k_hz = mod.kernel("fdtd_update_hz");
  for (int t = 0; t < steps; ++t) {
    host::launch(ctx, k_ey, grid, block, d_ey, d_hz, d_src, t, nx, ny);
    host::launch(ctx, k_ex, grid, block, d_ex, d_hz, nx, ny);
    host::launch(ctx, k_hz, grid, block, d_hz, d_ex, d_ey, nx, ny);
  }
  std::vector<float> got_ex = ctx.read<float>(d_ex, cells), got_ey = ctx.read<float>(d_ey, cells),
                     got_hz = ctx.read<float>(d_hz, cells);
  for (runtime::DevPtr p : {d_ex, d_ey, d_hz, d_src}) ctx.free(p);

  // Same operations and explicit fmas as the kernels: the fields match bitwise.
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < nx; ++i)
      for (int j = 0; j < ny; ++j) {
        size_t idx = size_t(i) * ny + j;
        ey[idx] = i == 0 ? source[t] : std::fma(-0.5f, hz[idx] - hz[idx - ny], ey[idx]);
      }
    for (int i = 0; i < nx; ++i)
      for (int j = 1; j < ny; ++j) {
        size_t idx = size_t(i) * ny + j;
        ex[idx] = std::fma(-0.5f, hz[idx] - hz[idx - 1], ex[idx]);
      }
    for (int i = 0; i < nx - 1; ++i)
      for (int j = 0; j < ny - 1; ++j) {
        size_t idx = size_t(i) * ny + j;
        float curl = ex[idx + 1] - ex[idx] + ey[idx + ny] - ey[idx];
        hz[idx] = std::fma(-0.7f, curl, hz[idx]);
      }
  }
  return host::check_all({check_close(got_ex, ex, 1e-6, 1e-6, "ex"),
                            check_close(got_ey, ey, 1e-6, 1e-6, "ey"),
                            check_close(got_hz, hz, 1e-6, 1e-6, "hz")});
}

}  // namespace

const WorkloadSpec& fdtd_workload() {
  static const WorkloadSpec spec{
      "fdtd",
      "2D FDTD electromagnetic solver: ey, ex and hz update kernels per timestep",
      "memory",
      embedded::fdtd_ptx,
      {"64x80 grid, 6 steps", "256x256 grid, 40 steps",
       "1024x1024 grid, 20 steps", "2048x2048 grid, 50 steps"},
      run};
  return spec;
}

}  // namespace gpumux::workloads
