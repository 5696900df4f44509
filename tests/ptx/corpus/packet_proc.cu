// GPU packet processing (networking workloads): IPv4 header checksum, 5-tuple
// hashing with funnel shifts and byte permutes, and an LPM-like route lookup
// through tables in global memory with initializers (including a pointer table).
__device__ unsigned g_route_table[8] = {0x0a000000u, 0xc0a80000u, 0xac100000u, 0x7f000000u,
                                       0x08080800u, 0x01010100u, 0xdeadbeefu, 0xffffffffu};
__device__ unsigned char g_route_len[8] = {8, 16, 12, 8, 24, 24, 32, 0};
__device__ unsigned* g_table_ptrs[2] = {g_route_table, g_route_table + 4};
__device__ float g_weights[3] = {0.5f, -1.25f, 3.0e-8f};
__device__ int g_counter;

struct Ipv4Header {
  unsigned char ver_ihl, tos;
  unsigned short total_len, id, frag;
  unsigned char ttl, proto;
  unsigned short checksum;
  unsigned src, dst;
};

__device__ __forceinline__ unsigned bswap32(unsigned x) { return __byte_perm(x, 0, 0x0123); }

extern "C" __global__ void ipv4_checksum(const Ipv4Header* hdrs, unsigned short* ok, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned short* w = reinterpret_cast<const unsigned short*>(&hdrs[i]);
  unsigned sum = 0;
#pragma unroll
  for (int k = 0; k < 10; ++k) sum += w[k];
  sum = (sum & 0xffff) + (sum >> 16);
  sum = (sum & 0xffff) + (sum >> 16);
  ok[i] = (unsigned short)~sum;
}

extern "C" __global__ void flow_hash(const uint4* tuples, unsigned* hashes, int n, unsigned seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint4 t = tuples[i];
  unsigned h = seed;
  unsigned words[4] = {t.x, t.y, t.z, t.w};
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    unsigned v = words[k] * 0xcc9e2d51u;
    v = __funnelshift_l(v, v, 15) * 0x1b873593u;
    h ^= v;
    h = __funnelshift_r(h, h, 19) * 5 + 0xe6546b64u;
  }
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  hashes[i] = bswap32(h) ^ __funnelshift_lc(h, seed, 40) ^ __funnelshift_rc(h, seed, 3);
}

extern "C" __global__ void route_lookup(const unsigned* dst_addrs, int* out_port, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned a = dst_addrs[i];
  int best = -1, best_len = -1;
  for (int r = 0; r < 8; ++r) {
    int len = g_route_len[r];
    unsigned mask = len == 0 ? 0u : (0xffffffffu << (32 - len));
    unsigned* table = g_table_ptrs[r >> 2];
    if ((a & mask) == (table[r & 3] & mask) && len > best_len) {
      best = r;
      best_len = len;
    }
  }
  out_port[i] = best + int(g_weights[best & 1] * 0.0f);
  if (best < 0) atomicAdd(&g_counter, 1);
}
