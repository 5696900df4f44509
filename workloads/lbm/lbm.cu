// D3Q19 lattice Boltzmann (BGK) on a periodic nx x ny x nz box with solid
// obstacle cells. One launch per timestep fuses streaming and collision in
// "pull" form: each cell gathers the 19 distributions arriving from its
// upstream neighbours, then either relaxes them towards the local equilibrium
// (fluid) or reflects them (solid, bounce-back). Distributions are stored as
// structure of arrays, f[q * cells + cell], so each direction is a coalesced
// (off-by-one) stream; source and destination lattices ping-pong.
#define Q 19

// Lattice velocities (x, y, z), weights and opposite directions.
__constant__ int lattice_dir[Q][3] = {
    {0, 0, 0},  {1, 0, 0},  {-1, 0, 0}, {0, 1, 0},   {0, -1, 0},  {0, 0, 1},   {0, 0, -1},
    {1, 1, 0},  {-1, -1, 0}, {1, -1, 0}, {-1, 1, 0}, {1, 0, 1},   {-1, 0, -1}, {1, 0, -1},
    {-1, 0, 1}, {0, 1, 1},  {0, -1, -1}, {0, 1, -1}, {0, -1, 1}};
__constant__ float lattice_weight[Q] = {
    1.f / 3,  1.f / 18, 1.f / 18, 1.f / 18, 1.f / 18, 1.f / 18, 1.f / 18,
    1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36,
    1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36};
__constant__ int lattice_opposite[Q] = {0, 2, 1, 4, 3, 6, 5, 8, 7, 10, 9, 12, 11, 14, 13, 16, 15, 18, 17};

__device__ __forceinline__ int wrap(int i, int n) { return i < 0 ? i + n : (i >= n ? i - n : i); }

extern "C" __global__ void lbm_stream_collide(const float* __restrict__ src, float* __restrict__ dst,
                                              const unsigned char* __restrict__ solid, int nx,
                                              int ny, int nz, float omega) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y, z = blockIdx.z;
  if (x >= nx) return;
  const size_t cells = (size_t)nx * ny * nz;
  const size_t cell = ((size_t)z * ny + y) * nx + x;

  float f[Q];
#pragma unroll
  for (int q = 0; q < Q; ++q) {
    int ux = wrap(x - lattice_dir[q][0], nx);
    int uy = wrap(y - lattice_dir[q][1], ny);
    int uz = wrap(z - lattice_dir[q][2], nz);
    f[q] = src[q * cells + ((size_t)uz * ny + uy) * nx + ux];
  }

  if (solid[cell]) {
    // Bounce-back: what arrived moving along q leaves moving along opposite(q).
#pragma unroll
    for (int q = 0; q < Q; ++q) dst[lattice_opposite[q] * cells + cell] = f[q];
    return;
  }

  float rho = 0.f, mx = 0.f, my = 0.f, mz = 0.f;
#pragma unroll
  for (int q = 0; q < Q; ++q) {
    rho += f[q];
    mx += lattice_dir[q][0] * f[q];
    my += lattice_dir[q][1] * f[q];
    mz += lattice_dir[q][2] * f[q];
  }
  const float inv_rho = 1.f / rho;
  const float ux = mx * inv_rho, uy = my * inv_rho, uz = mz * inv_rho;
  const float usq = 1.5f * (ux * ux + uy * uy + uz * uz);
#pragma unroll
  for (int q = 0; q < Q; ++q) {
    float cu = 3.f * (lattice_dir[q][0] * ux + lattice_dir[q][1] * uy + lattice_dir[q][2] * uz);
    float feq = lattice_weight[q] * rho * (1.f + cu + 0.5f * cu * cu - usq);
    dst[q * cells + cell] = f[q] + omega * (feq - f[q]);
  }
}
