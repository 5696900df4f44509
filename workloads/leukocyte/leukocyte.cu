// Leukocyte detection and tracking in video microscopy. Detection, on the
// first frame: for every interior pixel, GICOV (gradient inverse coefficient
// of variation) scores circles of several radii centred on it by sampling the
// image gradient at points on each circle, projecting it on the outward
// normal and taking mean / standard deviation of the projections; the best
// circle's score is kept (one thread per pixel, 2D grid, sample offsets and
// normals in constant memory). A grey-scale dilation (max over a disk) of the
// score image then lets the host keep the local maxima as cells. Tracking, on
// the following frames: one thread block per cell iterates the motion
// gradient vector flow (IMGVF) on the cell's sub-image held in shared memory
// until the mean absolute change drops below a tolerance (block-wide
// reduction) or an iteration cap is hit: long, compute-bound blocks.
#define GICOV_MAX_RADII 7
#define GICOV_MAX_POINTS 150
#define DILATE_MAX_RADIUS 12

#define IMGVF_THREADS 320
#define IMGVF_WARPS (IMGVF_THREADS / 32)
#define IMGVF_MAX_PIXELS (41 * 81)

// Outward normal of each sample point (the same angles for every radius) and
// the pixel offset of each point of each circle, radius-major.
__constant__ float c_cos[GICOV_MAX_POINTS];
__constant__ float c_sin[GICOV_MAX_POINTS];
__constant__ int2 c_offsets[GICOV_MAX_RADII * GICOV_MAX_POINTS];
// Half width of the disk structuring element on each row dy = -R..R.
__constant__ int c_span[2 * DILATE_MAX_RADIUS + 1];

extern "C" __global__ void __launch_bounds__(256)
gicov(const float* __restrict__ grad_x, const float* __restrict__ grad_y, int width, int height,
      int margin, int radii, int points, float* __restrict__ score) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float best = 0.f;  // circles would leave the frame near its border
  if (x >= margin && x < width - margin && y >= margin && y < height - margin) {
    best = -3.0e38f;
    const float* gx = grad_x + y * width + x;
    const float* gy = grad_y + y * width + x;
    for (int r = 0; r < radii; ++r) {
      const int2* off = c_offsets + r * GICOV_MAX_POINTS;
      float sum = 0.f;
      for (int p = 0; p < points; ++p) {
        const int o = off[p].y * width + off[p].x;
        sum += gx[o] * c_cos[p] + gy[o] * c_sin[p];
      }
      const float mean = sum / points;
      // Second pass over the same samples (cache hits) rather than a
      // one-pass sum of squares, whose cancellation would swamp the variance.
      float var = 0.f;
      for (int p = 0; p < points; ++p) {
        const int o = off[p].y * width + off[p].x;
        const float d = gx[o] * c_cos[p] + gy[o] * c_sin[p] - mean;
        var += d * d;
      }
      var /= points - 1;
      const float g = var > 0.f ? mean / sqrtf(var) : 0.f;
      best = fmaxf(best, g);
    }
  }
  score[y * width + x] = best;
}

extern "C" __global__ void __launch_bounds__(256)
dilate(const float* __restrict__ in, int width, int height, int radius, float* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float best = -3.0e38f;
  const int y0 = max(y - radius, 0), y1 = min(y + radius, height - 1);
  for (int yy = y0; yy <= y1; ++yy) {
    const int span = c_span[yy - y + radius];
    const int x0 = max(x - span, 0), x1 = min(x + span, width - 1);
    const float* row = in + yy * width;
    for (int xx = x0; xx <= x1; ++xx) best = fmaxf(best, row[xx]);
  }
  out[y * width + x] = best;
}

// The IMGVF update and the convergence sum use explicitly rounded operations
// in a fixed order (no contraction into FMAs), so that the host reproduces
// every iteration bit for bit, including where each block stops.
__device__ __forceinline__ float flow_term(float u, float neighbour, float bias, float eps) {
  const float d = __fsub_rn(neighbour, u);
  const float a = __fadd_rn(d, bias);
  // Smooth Heaviside of the motion-biased difference: 0.5 + 0.5 a / (|a| + eps).
  const float h = __fadd_rn(0.5f, __fmul_rn(0.5f, __fdiv_rn(a, __fadd_rn(fabsf(a), eps))));
  return __fmul_rn(h, d);
}

extern "C" __global__ void __launch_bounds__(IMGVF_THREADS)
imgvf(const float* __restrict__ images, const float* __restrict__ biases, int rows, int cols,
      float mu_over_lambda, float inv_lambda, float eps, float tol, int max_iters,
      float* __restrict__ flow, int* __restrict__ iterations) {
  // The flow, double-buffered in shared memory (each iteration reads one and
  // writes the other); the image is read from global memory (it stays in the
  // caches). A thread keeps no pixel in registers, so a block holds few
  // registers and 26.6 KB of shared memory: an SM shares well with another
  // kernel, as GPU Maestro's SMK splits need, and the block fits GPUs whose
  // blocks may hold 32 KB.
  __shared__ float s_u[2][IMGVF_MAX_PIXELS];
  __shared__ float s_partial[IMGVF_WARPS];
  __shared__ int s_done;

  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int n = rows * cols;
  const float* image = images + blockIdx.x * n;
  // Direction biases of this cell's motion: N, S, W, E, NW, NE, SW, SE.
  float bias[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) bias[k] = biases[blockIdx.x * 8 + k];

  // Thread t owns pixels t, t + 320, ...
  for (int i = tid; i < n; i += IMGVF_THREADS) s_u[0][i] = image[i];
  __syncthreads();

  int iter = 0, cur = 0;
  for (;;) {
    const float* u_in = s_u[cur];
    float* u_out = s_u[cur ^ 1];
    float change = 0.f;
    for (int i = tid; i < n; i += IMGVF_THREADS) {
      const int r = i / cols, c = i - r * cols;
      // Replicated borders: a missing neighbour is the pixel itself.
      const int up = max(r - 1, 0) * cols, mid = r * cols, down = min(r + 1, rows - 1) * cols;
      const int left = max(c - 1, 0), right = min(c + 1, cols - 1);
      const float u = u_in[mid + c];
      float sum = flow_term(u, u_in[up + c], bias[0], eps);
      sum = __fadd_rn(sum, flow_term(u, u_in[down + c], bias[1], eps));
      sum = __fadd_rn(sum, flow_term(u, u_in[mid + left], bias[2], eps));
      sum = __fadd_rn(sum, flow_term(u, u_in[mid + right], bias[3], eps));
      sum = __fadd_rn(sum, flow_term(u, u_in[up + left], bias[4], eps));
      sum = __fadd_rn(sum, flow_term(u, u_in[up + right], bias[5], eps));
      sum = __fadd_rn(sum, flow_term(u, u_in[down + left], bias[6], eps));
      sum = __fadd_rn(sum, flow_term(u, u_in[down + right], bias[7], eps));
      // Diffusion, pulled back toward the image where the image is strong.
      const float img = image[i];
      const float pull = __fmul_rn(__fmul_rn(img, inv_lambda), __fsub_rn(u, img));
      const float next = __fsub_rn(__fadd_rn(u, __fmul_rn(mu_over_lambda, sum)), pull);
      u_out[i] = next;
      change = __fadd_rn(change, fabsf(__fsub_rn(next, u)));
    }
    cur ^= 1;
    // Block-wide sum of |change|: warp shuffles, then one thread over the warps.
#pragma unroll
    for (int off = 16; off > 0; off /= 2)
      change = __fadd_rn(change, __shfl_down_sync(0xffffffffu, change, off));
    if (lane == 0) s_partial[warp] = change;
    __syncthreads();  // also: every pixel of the new flow written before it is read
    ++iter;
    if (tid == 0) {
      float total = 0.f;
      for (int w = 0; w < IMGVF_WARPS; ++w) total = __fadd_rn(total, s_partial[w]);
      s_done = __fdiv_rn(total, (float)n) < tol || iter >= max_iters;
    }
    __syncthreads();  // also: every read of the old flow done before it is overwritten
    if (s_done) break;
  }

  float* out = flow + blockIdx.x * n;
  for (int i = tid; i < n; i += IMGVF_THREADS) out[i] = s_u[cur][i];
  if (tid == 0) iterations[blockIdx.x] = iter;
}
