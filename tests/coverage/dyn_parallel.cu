// gen_ptx flags: -rdc=true
// Dynamic parallelism (device-side launch, CDP2) the way real programs use
// it: a parent that launches a child grid per block sized to that block's
// work (irregular rows, as in graph and sparse codes), recursive adaptive
// subdivision of a range (quadtree/Mariani-Silver style, into the NULL
// stream and fire-and-forget), and a tail launch that finalizes what the
// parent's children produced (it runs after the parent and all its work).
#include <cuda_runtime.h>

// ---- one child grid per block, sized to the block's row ----
__global__ void scale_row(const float* in, float* out, int begin, int len, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < len) out[begin + i] = in[begin + i] * factor + float(blockIdx.x);
}

// Block b owns row b (offsets[b] .. offsets[b+1]); thread 0 launches a child
// for it, the rest of the block scales the row length into `lengths`.
__global__ void rows_parent(const int* offsets, const float* in, float* out, int* lengths) {
  int row = blockIdx.x;
  int begin = offsets[row], len = offsets[row + 1] - begin;
  if (threadIdx.x == 0) {
    lengths[row] = len;
    if (len > 0) scale_row<<<(len + 63) / 64, 64>>>(in, out, begin, len, float(row + 1));
  }
}

// ---- recursive adaptive subdivision ----
// Each leaf range (at most `leaf` elements, or at depth `max_depth`) is
// written by one child; larger ranges split in two, left into the block's
// NULL stream, right fire-and-forget.
__global__ void subdivide(int* out, int lo, int hi, int depth, int leaf, int max_depth) {
  int n = hi - lo;
  if (n <= leaf || depth >= max_depth) {
    for (int i = lo + threadIdx.x; i < hi; i += blockDim.x) out[i] = i * 3 + depth * 1000;
    return;
  }
  if (threadIdx.x == 0) {
    int mid = lo + n / 2;
    subdivide<<<1, 32>>>(out, lo, mid, depth + 1, leaf, max_depth);
    subdivide<<<1, 32, 0, cudaStreamFireAndForget>>>(out, mid, hi, depth + 1, leaf, max_depth);
  }
}

// ---- children accumulate, a tail launch finalizes ----
__global__ void histogram_chunk(const int* keys, int begin, int len, int* bins, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < len) atomicAdd(&bins[keys[begin + i] % nbins], 1);
}

// Exclusive prefix sum of the bins by one thread: it must see every child's counts.
__global__ void prefix_bins(const int* bins, int* starts, int nbins) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    int sum = 0;
    for (int b = 0; b < nbins; ++b) {
      starts[b] = sum;
      sum += bins[b];
    }
    starts[nbins] = sum;
  }
}

__global__ void histogram_parent(const int* keys, int n, int chunk, int* bins, int* starts, int nbins) {
  int begin = blockIdx.x * chunk;
  if (threadIdx.x == 0 && begin < n) {
    int len = min(chunk, n - begin);
    histogram_chunk<<<(len + 127) / 128, 128>>>(keys, begin, len, bins, nbins);
    if (blockIdx.x == 0) prefix_bins<<<1, 32, 0, cudaStreamTailLaunch>>>(bins, starts, nbins);
  }
}

// ---- dependent children in one block's NULL stream (they run in order) ----
__global__ void stage_square(const int* in, int* tmp, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tmp[i] = in[i] * in[i];
}

__global__ void stage_add_next(const int* tmp, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tmp[i] + (i + 1 < n ? tmp[i + 1] : 0);
}

__global__ void pipeline_parent(const int* in, int* tmp, int* out, int n) {
  if (threadIdx.x == 0) {
    stage_square<<<(n + 127) / 128, 128>>>(in, tmp, n);
    stage_add_next<<<(n + 127) / 128, 128>>>(tmp, out, n);
  }
}

// ---- a chain of nested launches, one level per grid ----
__global__ void chain(int* depths, int level, int levels) {
  depths[level] = level;
  if (level + 1 < levels) chain<<<1, 1>>>(depths, level + 1, levels);
}
