// Work-efficient (Blelloch) exclusive scan of one block's chunk in dynamic
// shared memory; the block sums go to a second array for a later pass.
extern __shared__ unsigned scan_buf[];

extern "C" __global__ void blelloch_scan(const unsigned* in, unsigned* out, unsigned* block_sums,
                                         int n) {
  int tid = threadIdx.x;
  int base = blockIdx.x * blockDim.x * 2;
  int m = blockDim.x * 2;
  scan_buf[2 * tid] = base + 2 * tid < n ? in[base + 2 * tid] : 0;
  scan_buf[2 * tid + 1] = base + 2 * tid + 1 < n ? in[base + 2 * tid + 1] : 0;
  int offset = 1;
  for (int d = m >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (tid < d) {
      int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
      scan_buf[bi] += scan_buf[ai];
    }
    offset <<= 1;
  }
  if (tid == 0) {
    block_sums[blockIdx.x] = scan_buf[m - 1];
    scan_buf[m - 1] = 0;
  }
  for (int d = 1; d < m; d <<= 1) {
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
      unsigned t = scan_buf[ai];
      scan_buf[ai] = scan_buf[bi];
      scan_buf[bi] += t;
    }
  }
  __syncthreads();
  if (base + 2 * tid < n) out[base + 2 * tid] = scan_buf[2 * tid];
  if (base + 2 * tid + 1 < n) out[base + 2 * tid + 1] = scan_buf[2 * tid + 1];
}

extern "C" __global__ void add_block_sums(unsigned* out, const unsigned* sums, int n) {
  int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
  unsigned s = sums[blockIdx.x];
  if (i < n) out[i] += s;
  if (i + blockDim.x < n) out[i + blockDim.x] += s;
}

// Dynamic shared memory reinterpreted as doubles (different alignment than scan_buf).
extern "C" __global__ void dyn_smem_f64(const double* in, double* out) {
  extern __shared__ double dbuf[];
  dbuf[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = dbuf[blockDim.x - 1 - threadIdx.x];
}
