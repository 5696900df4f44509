// Streaming k-median local search (facility location): the gain of opening a
// candidate centre. pgain_eval computes, for every point, the weighted
// squared distance to the candidate and its change against the point's
// current cost; points that would move to the candidate add their (negative)
// change to the "switch" slot, the others charge their (positive) change to
// their current centre's slot (what closing that centre would cost). Each
// block reduces those per-slot contributions deterministically in double
// (a warp per slot, shuffle tree) and writes one row of partial sums; the
// host adds the rows and decides. pgain_apply then moves the points.
#define EVAL_THREADS 256
#define MAX_DIM 64

extern "C" __global__ void pgain_eval(const float* __restrict__ coords, const float* __restrict__ weight,
                                      const float* __restrict__ cost, const int* __restrict__ assign,
                                      int npoints, int dim, int candidate, int nslots,
                                      float* __restrict__ cand_cost, double* __restrict__ partials) {
  __shared__ float cand[MAX_DIM];
  __shared__ double delta[EVAL_THREADS];
  __shared__ int slot[EVAL_THREADS];
  for (int f = threadIdx.x; f < dim; f += blockDim.x) cand[f] = coords[(size_t)f * npoints + candidate];
  __syncthreads();

  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double d = 0.0;
  int s = -1;
  if (i < npoints) {
    float dist = 0.0f;
    for (int f = 0; f < dim; ++f) {
      float diff = coords[(size_t)f * npoints + i] - cand[f];
      dist = __fmaf_rn(diff, diff, dist);
    }
    const float c = weight[i] * dist;
    cand_cost[i] = c;
    d = (double)c - (double)cost[i];
    s = d < 0.0 ? nslots : assign[i];  // slot nslots: switching points
  }
  delta[threadIdx.x] = d;
  slot[threadIdx.x] = s;
  __syncthreads();

  // Warp w sums slots w, w + nwarps, ...: lane l takes entries l, l+32, ...
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
  for (int target = warp; target <= nslots; target += nwarps) {
    double sum = 0.0;
    for (int k = lane; k < (int)blockDim.x; k += 32) sum += slot[k] == target ? delta[k] : 0.0;
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) partials[(size_t)blockIdx.x * (nslots + 1) + target] = sum;
  }
}

extern "C" __global__ void pgain_apply(const float* __restrict__ cand_cost, float* __restrict__ cost,
                                       int* __restrict__ assign, const int* __restrict__ closing,
                                       int npoints, int new_slot) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= npoints) return;
  const float c = cand_cost[i];
  if (c < cost[i] || closing[assign[i]]) {
    assign[i] = new_slot;
    cost[i] = c;
  }
}
