// A random graph built with device malloc: each vertex draws its degree and
// its neighbours from a hash of (seed, vertex, edge) and allocates its
// adjacency list on the device heap; a second kernel sums, per vertex, the
// degrees of its neighbours and frees the list. Everything the kernels write is first touched on the device.
__device__ __forceinline__ unsigned mix(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

extern "C" __global__ void build_graph(unsigned seed, int vertices, int max_degree, int** __restrict__ lists,
                                       int* __restrict__ degrees) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vertices) return;
  const unsigned h = mix(seed ^ mix(unsigned(v)));
  const int degree = 1 + int(h % unsigned(max_degree));
  int* adj = static_cast<int*>(malloc(sizeof(int) * degree));
  lists[v] = adj;
  if (!adj) {
    degrees[v] = -1;
    return;
  }
  for (int k = 0; k < degree; ++k) adj[k] = int(mix(h + unsigned(k) * 0x9e3779b9u) % unsigned(vertices));
  degrees[v] = degree;
}

extern "C" __global__ void neighbour_degrees(int* const* __restrict__ lists, const int* __restrict__ degrees,
                                             int vertices, long long* __restrict__ sums) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vertices) return;
  const int* adj = lists[v];
  long long sum = 0;
  for (int k = 0; k < degrees[v]; ++k) sum += degrees[adj[k]];
  sums[v] = sum;
  free(const_cast<int*>(adj));
}
