// 256-bin byte histogram: per-block private histogram in shared memory with
// shared atomics, merged into the global histogram with global atomics.
extern "C" __global__ void histogram256(const unsigned char* data, unsigned n, unsigned* hist) {
  __shared__ unsigned local_hist[256];
  for (unsigned b = threadIdx.x; b < 256; b += blockDim.x) local_hist[b] = 0;
  __syncthreads();
  // Four bytes per load when aligned.
  const uchar4* data4 = reinterpret_cast<const uchar4*>(data);
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n / 4; i += gridDim.x * blockDim.x) {
    uchar4 q = data4[i];
    atomicAdd(&local_hist[q.x], 1u);
    atomicAdd(&local_hist[q.y], 1u);
    atomicAdd(&local_hist[q.z], 1u);
    atomicAdd(&local_hist[q.w], 1u);
  }
  if (blockIdx.x == 0)
    for (unsigned i = (n / 4) * 4 + threadIdx.x; i < n; i += blockDim.x) atomicAdd(&local_hist[data[i]], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < 256; b += blockDim.x)
    if (local_hist[b]) atomicAdd(&hist[b], local_hist[b]);
}

// Histogram of float values into nbins uniform bins with 64-bit global counters.
extern "C" __global__ void histogram_float(const float* x, int n, float lo, float hi, int nbins,
                                           unsigned long long* hist) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float f = (x[i] - lo) / (hi - lo);
  int bin = min(max(__float2int_rz(f * nbins), 0), nbins - 1);
  atomicAdd(&hist[bin], 1ull);
}
