// Image resize through texture objects over CUDA arrays, as image-processing
// code does: the hardware's bilinear filter with normalized coordinates.
//   resize_gray: a float image, clamp addressing.
//   resize_rgba: an RGBA8 image read as normalized floats, wrap addressing
//                (a tiling texture), written as float4.
#include <cuda_runtime.h>

extern "C" __global__ void resize_gray(cudaTextureObject_t src, float* dst, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float u = (x + 0.5f) / w, v = (y + 0.5f) / h;
  dst[y * w + x] = tex2D<float>(src, u, v);
}

extern "C" __global__ void resize_rgba(cudaTextureObject_t src, float4* dst, int w, int h, float shift) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float u = (x + 0.5f) / w + shift, v = (y + 0.5f) / h - shift;
  dst[y * w + x] = tex2D<float4>(src, u, v);
}
