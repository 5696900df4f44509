// Two-point angular correlation function: histograms of the angular distance
// between pairs of points on the celestial sphere, for data-data, data-random
// and random-random pairs. Points are unit vectors; the angle of a pair is
// binned by its dot product with a binary search over the cosines of the bin
// edges. Each block takes 128 points of the first set and streams the second
// set through shared memory; counts go to per-warp shared histograms with
// atomics (fewer collisions than one per block), which a second kernel sums
// over blocks with warp shuffles into 64-bit totals.
#define THREADS 128
#define WARPS (THREADS / 32)
#define NUM_EDGES 21               // bin edges (cosines, descending)
#define NUM_BINS (NUM_EDGES + 1)   // below the first edge ... beyond the last

__constant__ float c_edge_cos[NUM_EDGES];

extern "C" __global__ void __launch_bounds__(THREADS)
tpacf_pairs(const float* __restrict__ x1, const float* __restrict__ y1,
            const float* __restrict__ z1, int n1, const float* __restrict__ x2,
            const float* __restrict__ y2, const float* __restrict__ z2, int n2, int self_pairs,
            unsigned* __restrict__ partial_hist) {
  __shared__ float s_x[THREADS], s_y[THREADS], s_z[THREADS];
  __shared__ unsigned s_hist[WARPS][NUM_BINS];

  for (int b = threadIdx.x; b < WARPS * NUM_BINS; b += THREADS) (&s_hist[0][0])[b] = 0;

  const int i = blockIdx.x * THREADS + threadIdx.x;
  const bool has_point = i < n1;
  float px = 0.f, py = 0.f, pz = 0.f;
  if (has_point) {
    px = x1[i];
    py = y1[i];
    pz = z1[i];
  }
  unsigned* my_hist = s_hist[threadIdx.x / 32];

  // With a set paired with itself only j > i counts: tiles before this block's
  // first point hold no such j.
  const int first_tile = self_pairs ? blockIdx.x * THREADS : 0;
  for (int j0 = first_tile; j0 < n2; j0 += THREADS) {
    __syncthreads();  // the previous tile is consumed (and the histograms cleared)
    int j = j0 + threadIdx.x;
    if (j < n2) {
      s_x[threadIdx.x] = x2[j];
      s_y[threadIdx.x] = y2[j];
      s_z[threadIdx.x] = z2[j];
    }
    __syncthreads();
    const int tile = min(THREADS, n2 - j0);
    const int start = self_pairs ? max(0, i + 1 - j0) : 0;
    if (!has_point) continue;
    for (int t = start; t < tile; ++t) {
      // Explicit fused operations fix the rounding so that the host can reproduce it.
      float dot = __fmaf_rn(pz, s_z[t], __fmaf_rn(py, s_y[t], __fmul_rn(px, s_x[t])));
      // Lower bound: the first edge whose cosine is <= dot (edges descend).
      int lo = 0, hi = NUM_EDGES;
      while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (dot < c_edge_cos[mid]) lo = mid + 1;
        else hi = mid;
      }
      atomicAdd(&my_hist[lo], 1u);
    }
  }
  __syncthreads();
  for (int b = threadIdx.x; b < NUM_BINS; b += THREADS) {
    unsigned total = 0;
    for (int w = 0; w < WARPS; ++w) total += s_hist[w][b];
    partial_hist[blockIdx.x * NUM_BINS + b] = total;
  }
}

// One block per bin: sums that bin of every block's partial histogram into hist[bin].
extern "C" __global__ void __launch_bounds__(THREADS)
tpacf_reduce(const unsigned* __restrict__ partial_hist, int num_blocks,
             unsigned long long* __restrict__ hist) {
  __shared__ unsigned long long s_warp_sums[WARPS];
  const int bin = blockIdx.x;
  unsigned long long sum = 0;
  for (int b = threadIdx.x; b < num_blocks; b += THREADS) sum += partial_hist[b * NUM_BINS + bin];
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (threadIdx.x % 32 == 0) s_warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long total = 0;
    for (int w = 0; w < WARPS; ++w) total += s_warp_sums[w];
    hist[bin] += total;
  }
}
