// 2D convolution of a multi-channel image with a 7x7 filter held in constant
// memory (all threads read the same coefficient at the same time). A 16x16
// block stages its tile plus a 3-pixel apron in shared memory; pixels outside
// the image read as zero. blockIdx.z selects the channel.
#define RADIUS 3
#define TAPS (2 * RADIUS + 1)
#define TILE 16
#define APRON_TILE (TILE + 2 * RADIUS)

__constant__ float c_filter[TAPS * TAPS];

extern "C" __global__ void __launch_bounds__(TILE * TILE)
conv2d_filter(const float* __restrict__ in, float* __restrict__ out, int width, int height) {
  __shared__ float s_tile[APRON_TILE][APRON_TILE];
  const size_t plane = (size_t)width * height * blockIdx.z;
  const int x0 = blockIdx.x * TILE - RADIUS, y0 = blockIdx.y * TILE - RADIUS;
  const int tid = threadIdx.y * TILE + threadIdx.x;
  for (int e = tid; e < APRON_TILE * APRON_TILE; e += TILE * TILE) {
    int x = x0 + e % APRON_TILE, y = y0 + e / APRON_TILE;
    s_tile[e / APRON_TILE][e % APRON_TILE] =
        (x >= 0 && x < width && y >= 0 && y < height) ? in[plane + (size_t)y * width + x] : 0.f;
  }
  __syncthreads();

  const int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  if (x >= width || y >= height) return;
  float sum = 0.f;
#pragma unroll
  for (int fy = 0; fy < TAPS; ++fy)
#pragma unroll
    for (int fx = 0; fx < TAPS; ++fx)
      sum += c_filter[fy * TAPS + fx] * s_tile[threadIdx.y + fy][threadIdx.x + fx];
  out[plane + (size_t)y * width + x] = sum;
}
