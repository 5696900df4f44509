// Points binned into the cells of a grid whose per-cell lists come from
// device malloc: count the points per cell, allocate each cell's list, fill
// the lists with atomics (in arbitrary order), then sort each list and
// summarize it (a position-weighted hash of the sorted point ids) and free it.
extern "C" __global__ void count_points(const float2* __restrict__ points, int n, int grid,
                                        int* __restrict__ counts) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float2 p = points[i];
  const int cx = min(int(p.x * grid), grid - 1), cy = min(int(p.y * grid), grid - 1);
  atomicAdd(&counts[cy * grid + cx], 1);
}

extern "C" __global__ void allocate_cells(const int* __restrict__ counts, int cells, int** __restrict__ lists,
                                          int* __restrict__ fill) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cells) return;
  lists[c] = counts[c] ? static_cast<int*>(malloc(sizeof(int) * counts[c])) : nullptr;
  fill[c] = 0;
}

extern "C" __global__ void bin_points(const float2* __restrict__ points, int n, int grid, int* const* __restrict__ lists,
                                      int* __restrict__ fill) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float2 p = points[i];
  const int c = min(int(p.y * grid), grid - 1) * grid + min(int(p.x * grid), grid - 1);
  int* list = lists[c];
  if (list) list[atomicAdd(&fill[c], 1)] = i;
}

// summary[c] = (number of points listed, sum over the sorted list of id * (position + 1)), or -1 if its
// allocation failed.
extern "C" __global__ void summarize_cells(const int* __restrict__ counts, int cells, int** __restrict__ lists,
                                           int2* __restrict__ summary) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cells) return;
  int* list = lists[c];
  const int n = counts[c];
  if (n && !list) {
    summary[c] = make_int2(-1, 0);
    return;
  }
  for (int k = 1; k < n; ++k) {  // insertion sort: the lists are short
    const int id = list[k];
    int j = k - 1;
    while (j >= 0 && list[j] > id) {
      list[j + 1] = list[j];
      --j;
    }
    list[j + 1] = id;
  }
  unsigned hash = 0;
  for (int k = 0; k < n; ++k) hash += unsigned(list[k]) * unsigned(k + 1);
  summary[c] = make_int2(n, int(hash));
  free(list);
}
