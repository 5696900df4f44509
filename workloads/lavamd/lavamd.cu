// LavaMD: pairwise particle interactions in a 3D grid of boxes. Every
// particle interacts with all particles of its own box and of the (up to 26)
// adjacent boxes through a Gaussian potential exp(-a2 r^2), accumulating the
// potential and the force vector weighted by the other particle's charge.
// One block per home box: threads own the home box's particles (the last
// warp is partly idle when the box holds fewer than 128), and each neighbour
// box's particles are staged in shared memory in turn.
#define THREADS 128
#define MAX_NEIGHBORS 27

// A particle is a float4 holding (v, x, y, z) in its (.x, .y, .z, .w) fields,
// with v = x^2 + y^2 + z^2 so that r^2 = v_i + v_j - 2 r_i.r_j needs only a
// dot product. A force is a float4 (potential, fx, fy, fz).
extern "C" __global__ void __launch_bounds__(THREADS)
lavamd_forces(const float4* __restrict__ particles, const float* __restrict__ charges,
              const int* __restrict__ neighbor_count, const int* __restrict__ neighbors,
              int per_box, float a2, float4* __restrict__ forces) {
  __shared__ float4 s_other[THREADS];
  __shared__ float s_charge[THREADS];
  const int box = blockIdx.x, t = threadIdx.x;
  const bool owns = t < per_box;
  float4 me = owns ? particles[box * per_box + t] : make_float4(0.f, 0.f, 0.f, 0.f);
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);  // potential, force x, y, z

  const int count = neighbor_count[box];
  for (int k = 0; k < count; ++k) {
    const int other = neighbors[box * MAX_NEIGHBORS + k];
    __syncthreads();  // previous neighbour consumed
    if (owns) {
      s_other[t] = particles[other * per_box + t];
      s_charge[t] = charges[other * per_box + t];
    }
    __syncthreads();
    if (!owns) continue;
    for (int j = 0; j < per_box; ++j) {
      float4 o = s_other[j];
      float r2 = me.x + o.x - 2.f * (me.y * o.y + me.z * o.z + me.w * o.w);
      float vij = expf(-a2 * r2);
      float fs = 2.f * a2 * vij;
      float q = s_charge[j];
      acc.x += q * vij;
      acc.y += q * fs * (me.y - o.y);
      acc.z += q * fs * (me.z - o.z);
      acc.w += q * fs * (me.w - o.w);
    }
  }
  if (owns) forces[box * per_box + t] = acc;
}
