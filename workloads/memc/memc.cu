// Memcached-style key-value store on the GPU: a chained hash table of items
// with 16-byte keys and 8-64 byte values. GET requests (one thread each, 32
// per warp) hash the key, walk the bucket's chain comparing keys, and copy
// the value into the response; hit and miss counters are aggregated per warp
// (ballot + popc) before one global atomic. SET requests of new keys take an
// item and value space from bump allocators (global atomics) and push the
// item on its bucket's chain with a compare-and-swap loop.
#define RESPONSE_WORDS 18  // status, length, up to 16 value words
#define EMPTY 0xffffffffu

struct Item {
  uint4 key;
  unsigned next;          // next item in the chain, or EMPTY
  unsigned value_offset;  // in words
  unsigned value_bytes;
  unsigned unused;
};

// Jenkins-style one-at-a-time mixing, a word at a time.
__device__ __forceinline__ unsigned hash_key(uint4 k) {
  unsigned w[4] = {k.x, k.y, k.z, k.w};
  unsigned h = 0x2545f491u;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    h += w[i];
    h += h << 10;
    h ^= h >> 6;
  }
  h += h << 3;
  h ^= h >> 11;
  h += h << 15;
  return h;
}

extern "C" __global__ void memc_get(const uint4* __restrict__ keys, const unsigned* __restrict__ buckets,
                                    const Item* __restrict__ items, const unsigned* __restrict__ values,
                                    unsigned bucket_mask, unsigned* __restrict__ responses, int n,
                                    unsigned long long* __restrict__ stats) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool valid = i < n;
  bool hit = false;
  if (valid) {
    const uint4 key = keys[i];
    unsigned* resp = responses + (size_t)i * RESPONSE_WORDS;
    unsigned it = buckets[hash_key(key) & bucket_mask];
    while (it != EMPTY) {
      const Item item = items[it];
      if (item.key.x == key.x && item.key.y == key.y && item.key.z == key.z && item.key.w == key.w) {
        hit = true;
        resp[1] = item.value_bytes;
        for (unsigned w = 0; w < item.value_bytes / 4; ++w) resp[2 + w] = values[item.value_offset + w];
        break;
      }
      it = item.next;
    }
    resp[0] = hit ? 1u : 0u;
    if (!hit) resp[1] = 0;
  }
  // Warp-aggregated statistics: one atomic per warp instead of 32.
  const unsigned hits = __popc(__ballot_sync(0xffffffffu, hit));
  const unsigned lookups = __popc(__ballot_sync(0xffffffffu, valid));
  if (threadIdx.x % 32 == 0 && lookups) {
    atomicAdd(&stats[0], (unsigned long long)hits);
    atomicAdd(&stats[1], (unsigned long long)(lookups - hits));
  }
}

// Inserts new keys (assumed absent). allocators[0]: next free item, [1]: next free value word.
extern "C" __global__ void memc_set(const uint4* __restrict__ keys, const unsigned* __restrict__ new_values,
                                    const unsigned* __restrict__ value_bytes, unsigned* __restrict__ buckets,
                                    Item* __restrict__ items, unsigned* __restrict__ values,
                                    unsigned bucket_mask, unsigned* __restrict__ allocators, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint4 key = keys[i];
  const unsigned bytes = value_bytes[i];
  const unsigned slot = atomicAdd(&allocators[0], 1u);
  const unsigned offset = atomicAdd(&allocators[1], bytes / 4);
  for (unsigned w = 0; w < bytes / 4; ++w) values[offset + w] = new_values[(size_t)i * 16 + w];
  Item item;
  item.key = key;
  item.value_offset = offset;
  item.value_bytes = bytes;
  item.unused = 0;
  unsigned* head = &buckets[hash_key(key) & bucket_mask];
  unsigned old = *(volatile unsigned*)head;
  for (;;) {
    item.next = old;
    items[slot] = item;
    __threadfence();  // the item is complete before it becomes reachable
    const unsigned seen = atomicCAS(head, old, slot);
    if (seen == old) break;
    old = seen;
  }
}
