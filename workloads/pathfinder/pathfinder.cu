// PathFinder: the cheapest top-to-bottom path through a grid of weights,
// moving straight or diagonally down one row at a time. Row r's cost of
// reaching column c is weight[r][c] + min(cost[r-1][c-1..c+1]). A launch
// advances `rows` rows (a pyramid): a block loads a 256-wide slice of the
// previous costs including a halo of `rows` columns per side, computes one
// column fewer per side each row, and writes the centre 256 - 2 rows columns.
#define THREADS 256

// Slice `slice` of the columns; every thread of the block calls it (barriers).
__device__ __forceinline__ void pathfinder_slice(const int* __restrict__ weights, const int* __restrict__ cost_in,
                                                 int* __restrict__ cost_out, int cols, int first_row, int rows,
                                                 int slice, int* s_cost, int* s_next) {
  const int tx = threadIdx.x;
  const int out_width = THREADS - 2 * rows;
  const int c = slice * out_width - rows + tx;
  const bool in_grid = c >= 0 && c < cols;
  if (in_grid) s_cost[tx] = cost_in[c];
  __syncthreads();

  for (int r = 0; r < rows; ++r) {
    const bool computes = in_grid && tx > r && tx < THREADS - 1 - r;
    if (computes) {
      int up = s_cost[tx];
      int left = c > 0 ? s_cost[tx - 1] : up;
      int right = c < cols - 1 ? s_cost[tx + 1] : up;
      s_next[tx] = weights[(size_t)(first_row + r) * cols + c] + min(up, min(left, right));
    }
    __syncthreads();
    if (computes) s_cost[tx] = s_next[tx];
    __syncthreads();
  }
  if (in_grid && tx >= rows && tx < THREADS - rows) cost_out[c] = s_cost[tx];
}

extern "C" __global__ void __launch_bounds__(THREADS)
pathfinder_rows(const int* __restrict__ weights, const int* __restrict__ cost_in,
                int* __restrict__ cost_out, int cols, int first_row, int rows) {
  __shared__ int s_cost[THREADS];
  __shared__ int s_next[THREADS];
  pathfinder_slice(weights, cost_in, cost_out, cols, first_row, rows, blockIdx.x, s_cost, s_next);
}

// Persistent threads (the QAWS paper's form): a resident grid whose blocks
// loop over the column slices. A slice ends with each thread reading only its
// own s_cost entry and the next begins by writing only its own before a
// barrier, so consecutive slices need no barrier between them.
extern "C" __global__ void __launch_bounds__(THREADS)
pathfinder_rows_pt(const int* __restrict__ weights, const int* __restrict__ cost_in,
                   int* __restrict__ cost_out, int cols, int first_row, int rows) {
  __shared__ int s_cost[THREADS];
  __shared__ int s_next[THREADS];
  const int out_width = THREADS - 2 * rows, slices = (cols + out_width - 1) / out_width;
  for (int slice = blockIdx.x; slice < slices; slice += gridDim.x)
    pathfinder_slice(weights, cost_in, cost_out, cols, first_row, rows, slice, s_cost, s_next);
}
