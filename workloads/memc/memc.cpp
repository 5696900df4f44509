// memc: memcached-style GET and SET batches on a chained hash table with 16-byte keys.
#include <array>
#include <unordered_map>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr uint32_t kEmpty = 0xffffffffu;
constexpr int kResponseWords = 18;

using Key = std::array<uint32_t, 4>;
struct KeyHash {
  size_t operator()(const Key& k) const { return size_t(k[0]) << 32 ^ k[1] ^ size_t(k[2]) << 17 ^ k[3]; }
};
struct Item {
  Key key;
  uint32_t next, value_offset, value_bytes, unused;
};

// The kernels' hash.
uint32_t hash_key(const Key& k) {
  uint32_t h = 0x2545f491u;
  for (uint32_t w : k) {
    h += w;
    h += h << 10;
    h ^= h >> 6;
  }
  h += h << 3;
  h ^= h >> 11;
  h += h << 15;
  return h;
}

CheckResult run_memc(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  const int initial = host::by_size(size, 4096, 8192, 262144, 1 << 20);
  // Event mode (docs/edge.md): one round of SETs from the host, then each GET
  // event a warp of 32 requests from the NIC.
  const bool events = ctx.event_source().has_value();
  const uint32_t num_events = host::event_count(ctx, host::by_size(size, 64u, 256u, 1024u, 4096u));
  const int rounds = events ? 1 : host::by_size(size, 2, 1, 8, 32);
  const int sets = host::by_size(size, 1024, 1024, 8192, 65536);   // per round
  const int gets = events ? int(num_events) * 32 : host::by_size(size, 4096, 16384, 131072, 524288); // per round
  // GETs only read the table: passes serve each GET batch again, with the same
  // responses (the hit/miss counters count every pass).
  const int passes = events ? 1 : host::passes(size, 14);
  const uint32_t buckets = uint32_t(initial / 2);               // chains of ~2 items
  Rng rng(seed);

  std::unordered_map<Key, std::vector<uint32_t>, KeyHash> store;  // reference contents
  std::vector<Key> keys;                                          // every stored key
  auto new_key = [&] {
    for (;;) {
      Key k{rng.u32(), rng.u32(), rng.u32(), rng.u32()};
      if (!store.count(k)) return k;
    }
  };
  auto new_value = [&] {
    std::vector<uint32_t> v(2 + rng.below(15));  // 8 to 64 bytes
    for (uint32_t& w : v) w = rng.u32();
    return v;
  };

  // The initial table, built on the host as a server would load it.
  const size_t item_capacity = size_t(initial) + size_t(rounds) * sets;
  std::vector<uint32_t> heads(buckets, kEmpty), values;
  std::vector<Item> items;
  items.reserve(item_capacity);
  for (int i = 0; i < initial; ++i) {
    Key k = new_key();
    std::vector<uint32_t> v = new_value();
    uint32_t& head = heads[hash_key(k) & (buckets - 1)];
    items.push_back({k, head, uint32_t(values.size()), uint32_t(v.size() * 4), 0});
    head = uint32_t(items.size() - 1);
    values.insert(values.end(), v.begin(), v.end());
    store[k] = v;
    keys.push_back(k);
  }
  const size_t value_capacity = values.size() + size_t(rounds) * sets * 16;
  std::vector<uint32_t> allocators = {uint32_t(items.size()), uint32_t(values.size())};
  items.resize(item_capacity);
  values.resize(value_capacity);

  runtime::DevPtr d_heads = ctx.malloc_copy(heads), d_items = ctx.malloc_copy(items),
                  d_values = ctx.malloc_copy(values), d_alloc = ctx.malloc_copy(allocators);
  runtime::DevPtr d_stats = ctx.malloc(16);
  ctx.memset(d_stats, 0, 16);
  runtime::DevPtr d_set_keys = ctx.malloc(uint64_t(sets) * 16),
                  d_set_values = ctx.malloc(uint64_t(sets) * 64),
                  d_set_bytes = ctx.malloc(uint64_t(sets) * 4);
  runtime::DevPtr d_get_keys = ctx.malloc(uint64_t(gets) * 16),
                  d_responses = ctx.malloc(uint64_t(gets) * kResponseWords * 4);
  runtime::Kernel get = mod.kernel("memc_get"), set = mod.kernel("memc_set");

  uint64_t hits = 0, misses = 0;
  for (int round = 0; round < rounds; ++round) {
    // SET batch: new keys.
    std::vector<Key> set_keys(sets);
    std::vector<uint32_t> set_values(size_t(sets) * 16, 0), set_bytes(sets);
    for (int i = 0; i < sets; ++i) {
      set_keys[i] = new_key();
      std::vector<uint32_t> v = new_value();
      std::copy(v.begin(), v.end(), set_values.begin() + size_t(i) * 16);
      set_bytes[i] = uint32_t(v.size() * 4);
      store[set_keys[i]] = v;
      keys.push_back(set_keys[i]);
    }
    ctx.memcpy_h2d(d_set_keys, set_keys.data(), uint64_t(sets) * 16);
    ctx.memcpy_h2d(d_set_values, set_values.data(), uint64_t(sets) * 64);
    ctx.memcpy_h2d(d_set_bytes, set_bytes.data(), uint64_t(sets) * 4);
    host::launch(ctx, set, host::blocks_for(sets, 256), 256, d_set_keys, d_set_values,
                 d_set_bytes, d_heads, d_items, d_values, buckets - 1, d_alloc, sets);

    // GET batch: 80% stored keys (old and just set), 20% absent ones.
    std::vector<Key> get_keys(gets);
    for (Key& k : get_keys)
      k = rng.below(5) ? keys[rng.below(uint32_t(keys.size()))] : Key{rng.u32(), rng.u32(), rng.u32(), rng.u32()};
    ctx.memset(d_responses, 0, uint64_t(gets) * kResponseWords * 4);
    if (events) {  // each event's 32 keys come from the NIC
      host::deliver_events(
          ctx, get, 32, 16, num_events,
          [&](uint32_t e) {
            runtime::KernelArgs a;
            a.add(d_get_keys + uint64_t(e) * 32 * 16).add(d_heads).add(d_items).add(d_values).add(buckets - 1);
            a.add(d_responses + uint64_t(e) * 32 * kResponseWords * 4).add(int32_t(32)).add(d_stats);
            return a;
          },
          [&](uint32_t e) { return host::payload_of(d_get_keys + uint64_t(e) * 32 * 16, get_keys, size_t(e) * 32, 32); });
    } else {
      ctx.memcpy_h2d(d_get_keys, get_keys.data(), uint64_t(gets) * 16);
      for (int p = 0; p < passes; ++p)
        host::launch(ctx, get, host::blocks_for(gets, 256), 256, d_get_keys, d_heads, d_items, d_values, buckets - 1,
                     d_responses, gets, d_stats);
    }
    std::vector<uint32_t> got = ctx.read<uint32_t>(d_responses, size_t(gets) * kResponseWords);
    std::vector<uint32_t> want(got.size(), 0);
    for (int i = 0; i < gets; ++i) {
      auto it = store.find(get_keys[i]);
      if (it == store.end()) {
        misses += passes;
        continue;
      }
      hits += passes;
      uint32_t* r = &want[size_t(i) * kResponseWords];
      r[0] = 1;
      r[1] = uint32_t(it->second.size() * 4);
      std::copy(it->second.begin(), it->second.end(), r + 2);
    }
    CheckResult r = check_exact(got, want, "response word");
    if (!r.passed) return {false, fmt::format("round {}: {}", round, r.detail)};
  }
  std::vector<uint64_t> stats = ctx.read<uint64_t>(d_stats, 2);
  CheckResult s = check_exact(stats, std::vector<uint64_t>{hits, misses}, "hit/miss counter");
  if (!s.passed) return s;
  return {true, fmt::format("{} GET responses exact ({} hits, {} misses), {} SETs", hits + misses,
                            hits, misses, uint64_t(rounds) * sets)};
}

}  // namespace

const WorkloadSpec& memc_workload() {
  static const WorkloadSpec spec{
      "memc",
      "memcached GET/SET: key hashing, bucket chain walks, value copies, CAS inserts, warp-aggregated atomics",
      "network",
      embedded::memc_ptx,
      {"4096 items, 2 rounds of 1024 SET + 4096 GET",
       "8192 items, 1 round of 1024 SET + 16384 GET, GETs 14 passes",
       "262144 items, 8 rounds of 8192 SET + 131072 GET",
       "1M items, 32 rounds of 65536 SET + 524288 GET"},
      run_memc};
  return spec;
}

}  // namespace gpumux::workloads
