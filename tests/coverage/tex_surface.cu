// Surface objects over CUDA arrays: a kernel writes an image into a surface,
// a second one blurs it (3x3 box, edges clamped by the surface read's
// boundary mode) into another surface, and a third reads with the zero
// boundary mode and 16-byte vector accesses.
#include <cuda_runtime.h>

extern "C" __global__ void fill(cudaSurfaceObject_t s, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  surf2Dwrite(float((x * 7 + y * 13) % 17), s, x * 4, y);
}

extern "C" __global__ void box_blur(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float sum = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      float v;
      surf2Dread(&v, in, (x + dx) * 4, y + dy, cudaBoundaryModeClamp);
      sum += v;
    }
  surf2Dwrite(sum / 9.0f, out, x * 4, y);
}

// Each thread moves one float4 of a 4-channel surface one element left; the
// last reads past the edge, which the zero mode turns into zeros.
extern "C" __global__ void shift_rgba(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float4 v = surf2Dread<float4>(in, (x + 1) * 16, y, cudaBoundaryModeZero);
  surf2Dwrite(v, out, x * 16, y);
}
