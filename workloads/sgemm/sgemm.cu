// Register- and shared-memory-tiled SGEMM: C = alpha * A * B + beta * C with
// row-major A (m x k), B (k x n) and C (m x n); m and n multiples of 64, k a
// multiple of 16. A 256-thread block computes a 64x64 tile of C; each thread
// owns a 4x4 sub-tile in registers, its rows and columns 16 apart so that the
// shared-memory reads of a warp are broadcasts (A) or consecutive words (B).
#define TILE_M 64
#define TILE_N 64
#define TILE_K 16
#define THREADS 256
#define PER_THREAD 4  // rows and columns of C per thread

extern "C" __global__ void __launch_bounds__(THREADS)
sgemm_tiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
            int m, int n, int k, float alpha, float beta) {
  // A is staged k-major so that the compute loop reads one k-slice of it at a
  // time; the +1 pad spreads the transposing stores over the banks.
  __shared__ float a_tile[TILE_K][TILE_M + 1];
  __shared__ float b_tile[TILE_K][TILE_N];

  const int tx = threadIdx.x % 16;
  const int ty = threadIdx.x / 16;
  const int row0 = blockIdx.y * TILE_M;
  const int col0 = blockIdx.x * TILE_N;

  float acc[PER_THREAD][PER_THREAD];
#pragma unroll
  for (int i = 0; i < PER_THREAD; ++i)
#pragma unroll
    for (int j = 0; j < PER_THREAD; ++j) acc[i][j] = 0.f;

  for (int k0 = 0; k0 < k; k0 += TILE_K) {
    // Each thread copies 4 elements of each tile; consecutive threads read
    // consecutive addresses of a row of A or B (coalesced).
#pragma unroll
    for (int l = 0; l < (TILE_M * TILE_K) / THREADS; ++l) {
      int e = threadIdx.x + l * THREADS;
      int r = e / TILE_K, kk = e % TILE_K;
      a_tile[kk][r] = a[(size_t)(row0 + r) * k + k0 + kk];
    }
#pragma unroll
    for (int l = 0; l < (TILE_N * TILE_K) / THREADS; ++l) {
      int e = threadIdx.x + l * THREADS;
      int kk = e / TILE_N, cc = e % TILE_N;
      b_tile[kk][cc] = b[(size_t)(k0 + kk) * n + col0 + cc];
    }
    __syncthreads();

#pragma unroll
    for (int kk = 0; kk < TILE_K; ++kk) {
      float a_frag[PER_THREAD], b_frag[PER_THREAD];
#pragma unroll
      for (int i = 0; i < PER_THREAD; ++i) a_frag[i] = a_tile[kk][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < PER_THREAD; ++j) b_frag[j] = b_tile[kk][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < PER_THREAD; ++i)
#pragma unroll
        for (int j = 0; j < PER_THREAD; ++j) acc[i][j] = fmaf(a_frag[i], b_frag[j], acc[i][j]);
    }
    // The next iteration overwrites the tiles: wait until every warp is done reading.
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < PER_THREAD; ++i)
#pragma unroll
    for (int j = 0; j < PER_THREAD; ++j) {
      size_t idx = (size_t)(row0 + ty + 16 * i) * n + col0 + tx + 16 * j;
      c[idx] = alpha * acc[i][j] + beta * c[idx];
    }
}
