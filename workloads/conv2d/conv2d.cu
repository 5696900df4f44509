// 2D convolution of a multi-channel image with a 7x7 filter held in constant
// memory (all threads read the same coefficient at the same time). A 16x16
// block stages its tile plus a 3-pixel apron in shared memory; pixels outside
// the image read as zero. blockIdx.z selects the channel.
#define RADIUS 3
#define TAPS (2 * RADIUS + 1)
#define TILE 16
#define APRON_TILE (TILE + 2 * RADIUS)

__constant__ float c_filter[TAPS * TAPS];

// Tile (bx, by) of channel bz; every thread of the block calls it (barrier).
__device__ __forceinline__ void conv2d_tile(const float* __restrict__ in, float* __restrict__ out, int width,
                                            int height, unsigned bx, unsigned by, unsigned bz,
                                            float (*s_tile)[APRON_TILE]) {
  const size_t plane = (size_t)width * height * bz;
  const int x0 = bx * TILE - RADIUS, y0 = by * TILE - RADIUS;
  const int tid = threadIdx.y * TILE + threadIdx.x;
  for (int e = tid; e < APRON_TILE * APRON_TILE; e += TILE * TILE) {
    int x = x0 + e % APRON_TILE, y = y0 + e / APRON_TILE;
    s_tile[e / APRON_TILE][e % APRON_TILE] =
        (x >= 0 && x < width && y >= 0 && y < height) ? in[plane + (size_t)y * width + x] : 0.f;
  }
  __syncthreads();

  const int x = bx * TILE + threadIdx.x, y = by * TILE + threadIdx.y;
  if (x >= width || y >= height) return;
  float sum = 0.f;
#pragma unroll
  for (int fy = 0; fy < TAPS; ++fy)
#pragma unroll
    for (int fx = 0; fx < TAPS; ++fx)
      sum += c_filter[fy * TAPS + fx] * s_tile[threadIdx.y + fy][threadIdx.x + fx];
  out[plane + (size_t)y * width + x] = sum;
}

extern "C" __global__ void __launch_bounds__(TILE * TILE)
conv2d_filter(const float* __restrict__ in, float* __restrict__ out, int width, int height) {
  __shared__ float s_tile[APRON_TILE][APRON_TILE];
  conv2d_tile(in, out, width, height, blockIdx.x, blockIdx.y, blockIdx.z, s_tile);
}

// Persistent threads (the QAWS paper's form): a resident 1D grid whose blocks
// loop over the tiles of every channel, tile t where conv2d_filter's block
// (t % tiles_x, t / tiles_x % tiles_y, t / (tiles_x * tiles_y)) would be. The
// barrier keeps the next tile's staging from overwriting one still being read.
extern "C" __global__ void __launch_bounds__(TILE * TILE)
conv2d_filter_pt(const float* __restrict__ in, float* __restrict__ out, int width, int height, unsigned channels) {
  __shared__ float s_tile[APRON_TILE][APRON_TILE];
  const unsigned tiles_x = (width + TILE - 1) / TILE, tiles_y = (height + TILE - 1) / TILE;
  for (unsigned t = blockIdx.x; t < tiles_x * tiles_y * channels; t += gridDim.x) {
    conv2d_tile(in, out, width, height, t % tiles_x, t / tiles_x % tiles_y, t / (tiles_x * tiles_y), s_tile);
    __syncthreads();
  }
}
