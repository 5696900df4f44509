// Cutoff Coulombic potential: the electrostatic potential of a set of charged
// atoms on a 3D lattice, counting only atoms within a cutoff distance and
// smoothing each contribution to zero at the cutoff. Atoms are sorted on the
// host into cubic bins whose side is the side of one block's lattice region
// (8x8x8 points). A block visits the bins near its region: it first compacts
// the list of neighbour bins that exist (ballot + popc), then stages the atoms
// of 8 bins at a time in shared memory, and each thread accumulates 4 points.
#define REGION 8           // lattice points per region side
#define BIN_CAPACITY 16    // atom slots per bin
#define BINS_PER_PASS 8    // bins staged in shared memory per pass
#define THREADS 128        // 8 x 8 x 2; each thread computes 4 points along z
#define POINTS_PER_THREAD 4
#define MAX_NEIGHBORS 128

// Offsets (dx, dy, dz, unused) of the bins that can hold atoms within the
// cutoff of a region, relative to the region's own bin.
__constant__ int4 c_neighbor_offsets[MAX_NEIGHBORS];

extern "C" __global__ void __launch_bounds__(THREADS)
cutcp_lattice(const float4* __restrict__ bin_atoms, const int* __restrict__ bin_counts,
              int bins_per_side, int num_offsets, float spacing, float cutoff2,
              float* __restrict__ lattice) {
  __shared__ int s_bins[MAX_NEIGHBORS];
  __shared__ int s_warp_counts[THREADS / 32];
  __shared__ float4 s_atoms[BINS_PER_PASS * BIN_CAPACITY];

  const int tid = threadIdx.x + REGION * (threadIdx.y + REGION * threadIdx.z);
  const int lane = tid % 32, warp = tid / 32;
  const int bx = blockIdx.x, by = blockIdx.y, bz = blockIdx.z;

  // Stream compaction of the neighbour bins inside the bin grid, keeping their order.
  int nb = -1;
  if (tid < num_offsets) {
    int4 o = c_neighbor_offsets[tid];
    int x = bx + o.x, y = by + o.y, z = bz + o.z;
    if (x >= 0 && x < bins_per_side && y >= 0 && y < bins_per_side && z >= 0 &&
        z < bins_per_side)
      nb = (z * bins_per_side + y) * bins_per_side + x;
  }
  unsigned valid = __ballot_sync(0xffffffffu, nb >= 0);
  if (lane == 0) s_warp_counts[warp] = __popc(valid);
  __syncthreads();
  int base = 0, num_bins = 0;
  for (int w = 0; w < THREADS / 32; ++w) {
    if (w < warp) base += s_warp_counts[w];
    num_bins += s_warp_counts[w];
  }
  if (nb >= 0) s_bins[base + __popc(valid & ((1u << lane) - 1))] = nb;

  const int gx = bx * REGION + threadIdx.x;
  const int gy = by * REGION + threadIdx.y;
  const int gz0 = bz * REGION + threadIdx.z * POINTS_PER_THREAD;
  const float px = gx * spacing, py = gy * spacing, pz0 = gz0 * spacing;
  const float inv_cutoff2 = 1.0f / cutoff2;
  float energy[POINTS_PER_THREAD] = {0.f, 0.f, 0.f, 0.f};

  for (int first = 0; first < num_bins; first += BINS_PER_PASS) {
    __syncthreads();  // s_bins is complete; s_atoms of the previous pass is consumed
    // Each thread stages one atom slot; empty slots get a far-away dummy atom
    // so that the inner loop needs no count.
    int slot = tid % BIN_CAPACITY, which = first + tid / BIN_CAPACITY;
    float4 atom = make_float4(1e10f, 1e10f, 1e10f, 0.f);
    if (which < num_bins) {
      int bin = s_bins[which];
      if (slot < bin_counts[bin]) atom = bin_atoms[bin * BIN_CAPACITY + slot];
    }
    s_atoms[tid] = atom;
    __syncthreads();

    const int staged = min(BINS_PER_PASS, num_bins - first) * BIN_CAPACITY;
    for (int a = 0; a < staged; ++a) {
      float4 at = s_atoms[a];
      float dx = px - at.x, dy = py - at.y;
      float dxy2 = dx * dx + dy * dy;
      if (dxy2 >= cutoff2) continue;
#pragma unroll
      for (int p = 0; p < POINTS_PER_THREAD; ++p) {
        float dz = pz0 + p * spacing - at.z;
        float r2 = dxy2 + dz * dz;
        if (r2 < cutoff2) {
          float s = 1.0f - r2 * inv_cutoff2;
          energy[p] += at.w * s * s * rsqrtf(r2);
        }
      }
    }
  }

  const int side = bins_per_side * REGION;
#pragma unroll
  for (int p = 0; p < POINTS_PER_THREAD; ++p)
    lattice[((size_t)(gz0 + p) * side + gy) * side + gx] = energy[p];
}
