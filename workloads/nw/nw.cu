// Needleman-Wunsch global alignment score matrix, (n+1) x (n+1) ints, in
// TILE x TILE tiles processed along anti-diagonals of tiles: the host launches
// one kernel per tile diagonal (nw_upper for the diagonals growing from the
// top-left corner, nw_lower for the shrinking ones), all tiles of a diagonal
// being independent. Inside a tile one warp sweeps the cell anti-diagonals in
// shared memory, thread t owning column t.
#define TILE 32

__device__ void align_tile(int* __restrict__ score, const int* __restrict__ similarity, int width,
                           int penalty, int tile_row, int tile_col) {
  __shared__ int sim[TILE][TILE];
  __shared__ int cell[TILE + 1][TILE + 1];
  const int t = threadIdx.x;
  // Cell (0, 0) of the shared block is the corner above-left of the tile.
  const size_t corner = (size_t)tile_row * TILE * width + (size_t)tile_col * TILE;
  if (t == 0) cell[0][0] = score[corner];
  cell[0][t + 1] = score[corner + t + 1];
  cell[t + 1][0] = score[corner + (size_t)(t + 1) * width];
  for (int r = 0; r < TILE; ++r) sim[r][t] = similarity[corner + (size_t)(r + 1) * width + t + 1];
  __syncthreads();
  for (int diag = 0; diag < 2 * TILE - 1; ++diag) {
    const int r = diag - t;
    if (r >= 0 && r < TILE) {
      int best = cell[r][t] + sim[r][t];               // match / mismatch
      best = max(best, cell[r][t + 1] - penalty);      // gap in the second sequence
      best = max(best, cell[r + 1][t] - penalty);      // gap in the first sequence
      cell[r + 1][t + 1] = best;
    }
    __syncthreads();
  }
  for (int r = 0; r < TILE; ++r) score[corner + (size_t)(r + 1) * width + t + 1] = cell[r + 1][t + 1];
}

// Tile diagonal `diag` (0-based) of the upper-left triangle: diag + 1 tiles.
extern "C" __global__ void nw_upper(int* __restrict__ score, const int* __restrict__ similarity,
                                    int width, int penalty, int diag) {
  const int tile_col = blockIdx.x;
  align_tile(score, similarity, width, penalty, diag - tile_col, tile_col);
}

// Tile diagonal `tiles - 1 + diag` (diag >= 1) of the lower-right triangle.
extern "C" __global__ void nw_lower(int* __restrict__ score, const int* __restrict__ similarity,
                                    int width, int penalty, int diag, int tiles) {
  const int tile_col = diag + blockIdx.x;
  align_tile(score, similarity, width, penalty, tiles - 1 + diag - tile_col, tile_col);
}
