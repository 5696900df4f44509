// Histogram of 12-bit pixel values into 1024 bins. Each block builds a
// private histogram in shared memory with shared-memory atomics over a
// grid-strided slice of the image, then merges its non-empty bins into the
// global histogram with global atomics. A second kernel converts the counts
// into an 8-bit saturated histogram image.
#define BINS 1024
#define LEVEL_SHIFT 2  // 4096 pixel levels -> 1024 bins

extern "C" __global__ void histo_private(const unsigned short* __restrict__ pixels, int n,
                                         unsigned* __restrict__ hist) {
  __shared__ unsigned local_hist[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local_hist[b] = 0;
  __syncthreads();
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&local_hist[pixels[i] >> LEVEL_SHIFT], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
    unsigned count = local_hist[b];
    if (count) atomicAdd(&hist[b], count);
  }
}

extern "C" __global__ void histo_saturate(const unsigned* __restrict__ hist,
                                          unsigned char* __restrict__ hist8, int bins) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < bins) hist8[b] = (unsigned char)min(hist[b], 255u);
}
