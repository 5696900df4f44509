// Pure compute: each thread loads one word, runs a long dependent chain of
// integer (xorshift + multiply) and f32 (fused multiply-add) operations on
// it, and stores one word. Almost no memory traffic, no divergence: the
// pipeline and issue logic alone set the pace.
__device__ __forceinline__ unsigned pc_chain(unsigned h, int iterations) {
  float acc = __uint2float_rn(h & 0xffffu) * (1.f / 65536);
  for (int k = 0; k < iterations; ++k) {
    h ^= h << 13;
    h ^= h >> 17;
    h ^= h << 5;
    h = h * 0x9e3779b1u + (unsigned)k;
    // A leaky average of the hash's top bits; the fma keeps a single rounding.
    acc = __fmaf_rn(acc, 0.999f, __uint2float_rn(h >> 8) * (1.f / 16777216));
  }
  return h ^ __float_as_uint(acc);
}

extern "C" __global__ void pc_compute(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                      int n, int iterations) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = pc_chain(in[i], iterations);
}

// Persistent threads (the QAWS paper's form): a resident grid strides over the elements.
extern "C" __global__ void pc_compute_pt(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                         int n, int iterations) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = pc_chain(in[i], iterations);
}
