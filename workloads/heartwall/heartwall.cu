// Heart wall tracking: sample points on the inner and outer wall of a heart
// in an ultrasound sequence are followed from frame to frame by template
// matching. One launch per frame, one thread block per point: the TB stages
// the search window of the current frame (template side + 2 * search radius
// pixels square, frame bytes converted to float) and the point's template in
// dynamic shared memory, subtracts the template mean (block reductions),
// builds the windowed sums of I and I^2 at every offset with running
// (cumulative) sums, first down the columns (one thread per column) and then
// along the rows in place (one thread per row), correlates the zero-mean
// template at every offset (threads stride over offsets), takes the arg-max
// of the normalized cross-correlation (warp shuffles, then across warps; ties
// go to the lowest offset index) and moves the point, whose position stays in
// device memory for the next frame. Every few frames the template is blended
// towards the patch just found.
#define TSIDE 25                 // template side (odd)
#define TRAD (TSIDE / 2)         // template radius
#define TAREA (TSIDE * TSIDE)
#define THREADS 256
#define WARPS (THREADS / 32)

// Sum over the block, returned to every thread; `red` holds WARPS floats. The
// order is fixed (butterfly in each warp, then the warps in order), so the
// result is deterministic.
__device__ float block_sum(float v, float* red) {
  for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
  __syncthreads();
  float s = 0.f;
  for (int w = 0; w < WARPS; ++w) s += red[w];
  __syncthreads();  // red may be reused right after
  return s;
}

// Whether (v, i) beats (bv, bi): larger correlation, on ties the lower offset.
__device__ bool better(float v, int i, float bv, int bi) { return v > bv || (v == bv && i < bi); }

// frame: rows x cols bytes. templates: TAREA floats per point. pos: (row, col)
// per point, read and updated. search: radius in pixels. update: blend the
// template this frame. out_pos / out_val: this frame's chosen position and
// correlation per point.
extern "C" __global__ void heartwall_track(const unsigned char* __restrict__ frame, int rows, int cols,
                                           float* __restrict__ templates, int* __restrict__ pos, int search,
                                           int update, int* __restrict__ out_pos, float* __restrict__ out_val) {
  extern __shared__ float smem[];
  __shared__ float red[WARPS];
  __shared__ float best_val[WARPS];
  __shared__ int best_idx[WARPS];
  const int t = threadIdx.x, p = blockIdx.x;
  const int span = 2 * search + 1;     // offsets per dimension
  const int side = TSIDE + 2 * search; // window side
  float* win = smem;                   // side x side pixels
  float* tz = win + side * side;       // zero-mean template
  float* box1 = tz + TAREA;            // span x side: column sums of I, then box sums in place
  float* box2 = box1 + span * side;    // the same for I^2

  const int py = pos[2 * p], px = pos[2 * p + 1];
  const int y0 = py - TRAD - search, x0 = px - TRAD - search;
  // Window pixels, the frame's border replicated outside it.
  for (int i = t; i < side * side; i += THREADS) {
    int y = min(max(y0 + i / side, 0), rows - 1), x = min(max(x0 + i % side, 0), cols - 1);
    win[i] = float(frame[(size_t)y * cols + x]);
  }
  const float* tmpl = templates + (size_t)p * TAREA;
  float part = 0.f;
  for (int i = t; i < TAREA; i += THREADS) {
    float v = tmpl[i];
    tz[i] = v;
    part += v;
  }
  const float mean = block_sum(part, red) / float(TAREA);  // its barriers also publish win and tz
  part = 0.f;
  for (int i = t; i < TAREA; i += THREADS) {
    float d = tz[i] - mean;
    tz[i] = d;
    part += d * d;
  }
  const float tnorm2 = block_sum(part, red);

  // Column sums over TSIDE rows at every vertical offset, by a running sum:
  // add the row entering the box, subtract the one leaving it. Pixels are
  // integers small enough that these sums are exact in float.
  if (t < 2 * side) {
    const int x = t % side;
    const bool sq = t >= side;
    float* out = sq ? box2 : box1;
    float s = 0.f;
    for (int r = 0; r < TSIDE; ++r) {
      float v = win[r * side + x];
      s += sq ? v * v : v;
    }
    out[x] = s;
    for (int r = 1; r < span; ++r) {
      float in = win[(r + TSIDE - 1) * side + x], gone = win[(r - 1) * side + x];
      s = (s + (sq ? in * in : in)) - (sq ? gone * gone : gone);
      out[r * side + x] = s;
    }
  }
  __syncthreads();
  // Row sums of the column sums over TSIDE columns, in place: entry c is
  // overwritten only after the running sum has read it.
  if (t < 2 * span) {
    float* row = (t < span ? box1 : box2) + (t % span) * side;
    float s = 0.f;
    for (int c = 0; c < TSIDE; ++c) s += row[c];
    for (int c = 0; c < span; ++c) {
      float gone = row[c];
      row[c] = s;
      if (c + 1 < span) s = (s + row[c + TSIDE]) - gone;
    }
  }
  __syncthreads();

  // Normalized cross-correlation at every offset; each thread keeps its best.
  const float inv_area = 1.0f / float(TAREA);
  float bv = -3.f;
  int bi = 0x7fffffff;
  for (int o = t; o < span * span; o += THREADS) {
    const int oy = o / span, ox = o % span;
    const float* w = win + oy * side + ox;
    float num = 0.f;
    for (int dy = 0; dy < TSIDE; ++dy) {
#pragma unroll
      for (int dx = 0; dx < TSIDE; ++dx) num = fmaf(w[dy * side + dx], tz[dy * TSIDE + dx], num);
    }
    const float s1 = box1[oy * side + ox], s2 = box2[oy * side + ox];
    const float var = s2 - s1 * s1 * inv_area;  // area times the window's variance
    const float ncc = var > 0.f ? num / sqrtf(var * tnorm2) : -2.f;
    if (better(ncc, o, bv, bi)) bv = ncc, bi = o;
  }
  for (int m = 16; m > 0; m >>= 1) {
    float ov = __shfl_xor_sync(0xffffffffu, bv, m);
    int oi = __shfl_xor_sync(0xffffffffu, bi, m);
    if (better(ov, oi, bv, bi)) bv = ov, bi = oi;
  }
  if ((t & 31) == 0) best_val[t >> 5] = bv, best_idx[t >> 5] = bi;
  __syncthreads();
  bv = best_val[0], bi = best_idx[0];
  for (int w = 1; w < WARPS; ++w)
    if (better(best_val[w], best_idx[w], bv, bi)) bv = best_val[w], bi = best_idx[w];
  const int by = bi / span, bx = bi % span;
  if (t == 0) {
    const int ny = py + by - search, nx = px + bx - search;
    pos[2 * p] = ny, pos[2 * p + 1] = nx;
    out_pos[2 * p] = ny, out_pos[2 * p + 1] = nx;
    out_val[p] = bv;
  }
  // Template update: 7/8 of the old template plus 1/8 of the patch found, one
  // rounding (the product by 1/8 is exact).
  if (update) {
    float* tw = templates + (size_t)p * TAREA;
    for (int i = t; i < TAREA; i += THREADS) {
      const float patch = win[(by + i / TSIDE) * side + bx + i % TSIDE];
      tw[i] = __fmaf_rn(0.875f, tw[i], __fmul_rn(0.125f, patch));
    }
  }
}
