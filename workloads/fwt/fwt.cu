// Fast Walsh-Hadamard transform of n = 2^m floats (in place, natural order),
// used for dyadic convolution. The butterfly stages of the transform commute,
// so the wide strides run first as global-memory passes (two stages per pass
// with a radix-4 butterfly, a radix-2 pass when one stage is left over) and
// the CHUNK-local strides last, inside one block per chunk with the chunk in
// shared memory. fwt_modulate multiplies two spectra (and scales by 1/n).
#define CHUNK 1024

// Index of the first element of butterfly group t for stride s (s a power of
// two): t's bits above log2(s) move up by `shift`, the ones below stay.
__device__ __forceinline__ int group_base(int t, int s, int shift) {
  return ((t & ~(s - 1)) << shift) | (t & (s - 1));
}

extern "C" __global__ void fwt_chunk(float* __restrict__ data) {
  __shared__ float s[CHUNK];
  float* chunk = data + (size_t)blockIdx.x * CHUNK;
  for (int i = threadIdx.x; i < CHUNK; i += blockDim.x) s[i] = chunk[i];
  __syncthreads();
  for (int stride = CHUNK / 2; stride >= 1; stride >>= 1) {
    for (int b = threadIdx.x; b < CHUNK / 2; b += blockDim.x) {
      int lo = group_base(b, stride, 1), hi = lo + stride;
      float u = s[lo], v = s[hi];
      s[lo] = u + v;
      s[hi] = u - v;
    }
    __syncthreads();
  }
  for (int i = threadIdx.x; i < CHUNK; i += blockDim.x) chunk[i] = s[i];
}

// Stages of strides `stride` and 2 * stride at once: four elements per thread.
extern "C" __global__ void fwt_radix4(float* __restrict__ data, int stride, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n / 4) return;
  float* p = data + group_base(t, stride, 2);
  float a0 = p[0], a1 = p[stride], a2 = p[2 * stride], a3 = p[3 * stride];
  float b0 = a0 + a1, b1 = a0 - a1, b2 = a2 + a3, b3 = a2 - a3;
  p[0] = b0 + b2;
  p[stride] = b1 + b3;
  p[2 * stride] = b0 - b2;
  p[3 * stride] = b1 - b3;
}

extern "C" __global__ void fwt_radix2(float* __restrict__ data, int stride, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n / 2) return;
  float* p = data + group_base(t, stride, 1);
  float u = p[0], v = p[stride];
  p[0] = u + v;
  p[stride] = u - v;
}

extern "C" __global__ void fwt_modulate(float* __restrict__ data, const float* __restrict__ other,
                                        int n) {
  const float scale = 1.0f / n;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    data[i] = data[i] * other[i] * scale;
}
