// B+tree lookups. Nodes are stored as arrays: node v has count[v] slots,
// keys[v*FANOUT + s] and link[v*FANOUT + s]; in an inner node key s is the
// smallest key under child link s, in a leaf key s is a record's key and link
// s its value. leaf_rank[v] is the number of records in the leaves before
// leaf v. The root is node 0 and all leaves are at depth height-1.
// One block of FANOUT threads serves a stream of queries; at each level
// thread s checks whether the query falls between keys s and s+1.
//   btree_find:  point queries -> value or -1;
//   btree_range: [lo, hi] queries -> count and sum of the values in range
//                (ranks from both leaf positions, then a strided sum over
//                the sorted record values with a block reduction).
#define FANOUT 64

// Descends one level for `key` from inner node `node`; all threads must call it.
__device__ int child_for(const int* __restrict__ keys, const int* __restrict__ link,
                         const int* __restrict__ count, int node, int key, int* next) {
  const int s = threadIdx.x, m = count[node];
  const int* k = keys + (size_t)node * FANOUT;
  if (s == 0) *next = link[(size_t)node * FANOUT];  // key below every separator
  __syncthreads();
  if (s < m && k[s] <= key && (s + 1 == m || key < k[s + 1])) *next = link[(size_t)node * FANOUT + s];
  __syncthreads();
  const int child = *next;
  __syncthreads();  // everyone has read it before it is overwritten
  return child;
}

extern "C" __global__ void btree_find(const int* __restrict__ keys, const int* __restrict__ link,
                                      const int* __restrict__ count, int height,
                                      const int* __restrict__ queries, int nqueries,
                                      int* __restrict__ results) {
  __shared__ int next, found;
  for (int q = blockIdx.x; q < nqueries; q += gridDim.x) {
    const int key = queries[q];
    int node = 0;
    for (int level = 0; level < height - 1; ++level) node = child_for(keys, link, count, node, key, &next);
    if (threadIdx.x == 0) found = -1;
    __syncthreads();
    const int s = threadIdx.x;
    if (s < count[node] && keys[(size_t)node * FANOUT + s] == key) found = link[(size_t)node * FANOUT + s];
    __syncthreads();
    if (s == 0) results[q] = found;
    __syncthreads();
  }
}

extern "C" __global__ void btree_range(const int* __restrict__ keys, const int* __restrict__ link,
                                       const int* __restrict__ count,
                                       const int* __restrict__ leaf_rank, int height,
                                       const int* __restrict__ values, const int2* __restrict__ ranges,
                                       int nqueries, int* __restrict__ range_count,
                                       unsigned* __restrict__ range_sum) {
  __shared__ int next_lo, next_hi;
  __shared__ unsigned warp_sums[FANOUT / 32];
  const int s = threadIdx.x;
  for (int q = blockIdx.x; q < nqueries; q += gridDim.x) {
    const int2 range = ranges[q];
    int leaf_lo = 0, leaf_hi = 0;
    for (int level = 0; level < height - 1; ++level) {
      leaf_lo = child_for(keys, link, count, leaf_lo, range.x, &next_lo);
      leaf_hi = child_for(keys, link, count, leaf_hi, range.y, &next_hi);
    }
    // Records before the range: keys < lo; records up to its end: keys <= hi.
    const int* klo = keys + (size_t)leaf_lo * FANOUT;
    const int* khi = keys + (size_t)leaf_hi * FANOUT;
    const int below = __syncthreads_count(s < count[leaf_lo] && klo[s] < range.x);
    const int upto = __syncthreads_count(s < count[leaf_hi] && khi[s] <= range.y);
    const int first = leaf_rank[leaf_lo] + below, last = leaf_rank[leaf_hi] + upto;

    unsigned sum = 0;
    for (int r = first + s; r < last; r += FANOUT) sum += (unsigned)values[r];
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if ((s & 31) == 0) warp_sums[s >> 5] = sum;
    __syncthreads();
    if (s == 0) {
      unsigned total = 0;
      for (int w = 0; w < FANOUT / 32; ++w) total += warp_sums[w];
      range_count[q] = max(last - first, 0);
      range_sum[q] = total;
    }
    __syncthreads();
  }
}
