// Fetches from layered, 3D and cubemap CUDA arrays, gathers and explicit
// level-of-detail reads: what volume renderers and environment-map shaders
// do with textures.
#include <cuda_runtime.h>

// out[layer][i]: linear fetch at (i + 0.25, 0.75) of each layer of a 2D layered texture.
extern "C" __global__ void layered_fetch(cudaTextureObject_t tex, float* out, int w, int layers) {
  int i = threadIdx.x, layer = blockIdx.x;
  if (i >= w || layer >= layers) return;
  out[layer * w + i] = tex2DLayered<float>(tex, i + 0.25f, 0.75f, layer);
}

// Trilinear samples along a ray through a volume (normalized coordinates).
extern "C" __global__ void volume_ray(cudaTextureObject_t vol, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float t = (i + 0.5f) / n;
  out[i] = tex3D<float>(vol, t, 0.5f * t + 0.2f, 1.0f - t);
}

// An environment lookup: the cubemap texel in direction d.
extern "C" __global__ void env_lookup(cudaTextureObject_t cube, const float4* dirs, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 d = dirs[i];
  out[i] = texCubemap<float>(cube, d.x, d.y, d.z);
}

// Gathers (tld4) and level/gradient fetches of a 2D texture with one level.
extern "C" __global__ void gather_lod(cudaTextureObject_t tex, float4* gathered, float* lod, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float u = x + 1.0f, v = y + 0.5f;
  gathered[y * w + x] = tex2Dgather<float4>(tex, u, v, 0);
  lod[y * w + x] = tex2DLod<float>(tex, u, v, 0.0f) + tex2DGrad<float>(tex, u, v, make_float2(1, 0), make_float2(0, 1));
}
