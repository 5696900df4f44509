// Lookup tables through textures over plain device memory, as older CUDA
// codes (Rodinia, Parboil) read read-only data through the texture path:
//   gamma_lut: a 256-entry float table in linear memory (tex1Dfetch), indexed
//              by 8-bit pixels, and an int table of the same pixels' bins;
//   transpose_pitched: a pitched 2D texture read with point sampling and
//              unnormalized coordinates, clamped at the edges (a shifted copy).
#include <cuda_runtime.h>

extern "C" __global__ void gamma_lut(cudaTextureObject_t lut, cudaTextureObject_t bins,
                                     const unsigned char* pixels, float* out, int* bin_out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int p = pixels[i];
  out[i] = tex1Dfetch<float>(lut, p);
  bin_out[i] = tex1Dfetch<int>(bins, p) + tex1Dfetch<int>(bins, p + 1000);  // past the end: 0
}

extern "C" __global__ void transpose_pitched(cudaTextureObject_t src, float* dst, int w, int h, int shift) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= h || y >= w) return;
  // dst is h x w: dst(x, y) = src(y + shift, x), clamped to the source.
  dst[y * h + x] = tex2D<float>(src, y + shift + 0.5f, x + 0.5f);
}
