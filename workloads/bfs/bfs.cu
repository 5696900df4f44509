// Level-synchronous breadth-first search over a CSR graph, one launch per
// level. Each thread expands one vertex of the current frontier; a neighbour
// is claimed with a compare-and-swap on its level (so exactly one thread
// discovers it) and appended to a block-local queue in shared memory. The
// block then reserves room in the global next frontier with one atomic and
// copies its queue out. The host reads the next frontier's size after each
// level and stops when it is empty.
#define LOCAL_QUEUE 512

extern "C" __global__ void bfs_expand(const int* __restrict__ row_ptr, const int* __restrict__ adj,
                                      int* __restrict__ level, const int* __restrict__ frontier,
                                      int frontier_size, int* __restrict__ next_frontier,
                                      int* __restrict__ next_size, int depth) {
  __shared__ int queue[LOCAL_QUEUE];
  __shared__ int queued, base;
  if (threadIdx.x == 0) queued = 0;
  __syncthreads();

  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < frontier_size) {
    const int v = frontier[i];
    for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
      const int u = adj[e];
      // Cheap read first; the CAS settles races between discoverers.
      if (level[u] < 0 && atomicCAS(&level[u], -1, depth + 1) == -1) {
        int slot = atomicAdd(&queued, 1);
        if (slot < LOCAL_QUEUE)
          queue[slot] = u;
        else
          next_frontier[atomicAdd(next_size, 1)] = u;  // local queue full: go global directly
      }
    }
  }
  __syncthreads();
  const int n = min(queued, LOCAL_QUEUE);
  if (threadIdx.x == 0 && n > 0) base = atomicAdd(next_size, n);
  __syncthreads();
  for (int j = threadIdx.x; j < n; j += blockDim.x) next_frontier[base + j] = queue[j];
}
