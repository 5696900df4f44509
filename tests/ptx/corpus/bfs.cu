// Level-synchronous BFS over a CSR graph (Rodinia style): one thread per vertex
// of the frontier mask, plus a queue-based variant with an atomic tail.
extern "C" __global__ void bfs_level(const int* row_ptr, const int* cols, bool* frontier,
                                     bool* updated, bool* visited, int* cost, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n && frontier[v]) {
    frontier[v] = false;
    for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
      int u = cols[e];
      if (!visited[u]) {
        cost[u] = cost[v] + 1;
        updated[u] = true;
      }
    }
  }
}

extern "C" __global__ void bfs_update(bool* frontier, bool* updated, bool* visited, int* done, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n && updated[v]) {
    frontier[v] = true;
    visited[v] = true;
    *done = 0;
    updated[v] = false;
  }
}

extern "C" __global__ void bfs_queue(const int* row_ptr, const int* cols, const int* in_queue,
                                     int in_size, int* out_queue, int* out_size, int* dist, int level) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= in_size) return;
  int v = in_queue[i];
  for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
    int u = cols[e];
    if (atomicCAS(&dist[u], -1, level + 1) == -1) {
      int slot = atomicAdd(out_size, 1);
      out_queue[slot] = u;
    }
  }
}
