// IPv6 route lookup by binary search on prefix lengths (Waldvogel et al.):
// one hash table per distinct prefix length holds that length's prefixes
// plus "markers" that tell the search a longer match may exist. A lookup
// probes the middle length of the remaining range: a hit (prefix or marker)
// records the entry's best matching prefix and continues with longer lengths,
// a miss with shorter ones, so log2(#lengths) probes suffice. One thread per
// request (32 per warp); warps diverge on probe outcomes and chain lengths.
//
// Addresses are 4 words, most significant first. Table entries are 32 bytes:
// the masked key and (valid, best next hop). Tables use linear probing.
#define MAX_LENGTHS 64

struct LengthTable {
  unsigned length;  // prefix length in bits
  unsigned offset;  // first entry in the entry array
  unsigned mask;    // slots - 1 (slots a power of two)
  unsigned unused;
};
__constant__ LengthTable c_tables[MAX_LENGTHS];

__device__ __forceinline__ unsigned word_mask(unsigned length, int word) {
  int bits = (int)length - 32 * word;
  return bits <= 0 ? 0u : bits >= 32 ? 0xffffffffu : 0xffffffffu << (32 - bits);
}

__device__ __forceinline__ unsigned hash_key(uint4 k, unsigned length) {
  unsigned h = length * 0x9e3779b9u;
  unsigned w[4] = {k.x, k.y, k.z, k.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    h ^= w[i];
    h *= 0x85ebca6bu;
    h ^= h >> 13;
  }
  h *= 0xc2b2ae35u;
  return h ^ (h >> 16);
}

extern "C" __global__ void ipv6_lookup(const uint4* __restrict__ addresses,
                                       const uint4* __restrict__ entries, int num_lengths,
                                       unsigned* __restrict__ next_hop, int num_requests) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= num_requests) return;
  const uint4 addr = addresses[i];
  unsigned best = 0;
  int lo = 0, hi = num_lengths - 1;
  while (lo <= hi) {
    const int mid = (lo + hi) >> 1;
    const LengthTable t = c_tables[mid];
    const uint4 key = make_uint4(addr.x & word_mask(t.length, 0), addr.y & word_mask(t.length, 1),
                                 addr.z & word_mask(t.length, 2), addr.w & word_mask(t.length, 3));
    unsigned slot = hash_key(key, t.length) & t.mask;
    bool hit = false;
    for (;;) {
      const uint4 k = entries[2 * (t.offset + slot)];
      const uint4 info = entries[2 * (t.offset + slot) + 1];
      if (info.x == 0) break;  // empty slot: not in the table
      if (k.x == key.x && k.y == key.y && k.z == key.z && k.w == key.w) {
        hit = true;
        if (info.y != 0) best = info.y;
        break;
      }
      slot = (slot + 1) & t.mask;
    }
    if (hit) lo = mid + 1;
    else hi = mid - 1;
  }
  next_hop[i] = best;
}
