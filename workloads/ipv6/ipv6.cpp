// ipv6: IPv6 longest-prefix match by binary search on prefix lengths over per-length hash tables.
#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

using Addr = std::array<uint32_t, 4>;  // most significant word first

struct AddrHash {
  size_t operator()(const Addr& a) const {
    uint64_t h = 0;
    for (uint32_t w : a) h = (h ^ w) * 0x100000001b3ull;
    return size_t(h ^ (h >> 29));
  }
};
using PrefixMap = std::unordered_map<Addr, uint32_t, AddrHash>;

Addr masked(const Addr& a, int length) {
  Addr m{};
  for (int w = 0; w < 4; ++w) {
    int bits = length - 32 * w;
    m[w] = bits <= 0 ? 0 : bits >= 32 ? a[w] : a[w] & (~0u << (32 - bits));
  }
  return m;
}

// The kernel's hash.
uint32_t hash_key(const Addr& k, uint32_t length) {
  uint32_t h = length * 0x9e3779b9u;
  for (uint32_t w : k) {
    h ^= w;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
  }
  h *= 0xc2b2ae35u;
  return h ^ (h >> 16);
}

// Allocated IPv6 space is mostly /32 (ISPs), /48 (sites) and /29-/64 in
// between, with a few host routes.
int random_length(Rng& rng) {
  uint32_t r = rng.below(100);
  if (r < 25) return 32;
  if (r < 55) return 48;
  if (r < 65) return 29 + int(rng.below(3));
  if (r < 80) return 33 + int(rng.below(15));
  if (r < 90) return 56;
  if (r < 98) return 64;
  return 128;
}

// Longest match among the prefixes of length <= max_length (0: none).
uint32_t longest_match(const std::map<int, PrefixMap>& tables, const Addr& a, int max_length) {
  for (auto it = tables.rbegin(); it != tables.rend(); ++it) {
    if (it->first > max_length) continue;
    auto hit = it->second.find(masked(a, it->first));
    if (hit != it->second.end()) return hit->second;
  }
  return 0;
}

CheckResult run_ipv6(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  const int num_routes = host::by_size(size, 2000, 5000, 20000, 100000);
  // Event mode (docs/edge.md): one round, each event a warp of 32 lookups from the NIC.
  const bool events = ctx.event_source().has_value();
  const uint32_t num_events = host::event_count(ctx, host::by_size(size, 64u, 256u, 1024u, 4096u));
  const int batch = events ? int(num_events) * 32 : host::by_size(size, 4096, 32768, 262144, 262144);
  const int rounds = events ? 1 : host::by_size(size, 2, 1, 4, 32);
  const int passes = events ? 1 : host::passes(size, 10);
  Rng rng(seed);

  // Routes: prefixes under 2000::/3 (global unicast), per length.
  std::map<int, PrefixMap> routes;
  std::vector<std::pair<Addr, int>> route_list;
  while (int(route_list.size()) < num_routes) {
    int len = random_length(rng);
    Addr a{0x20000000u | (rng.u32() & 0x1fffffffu), rng.u32(), rng.u32(), rng.u32()};
    Addr p = masked(a, len);
    if (routes[len].count(p)) continue;
    routes[len][p] = 1 + rng.below(65535);
    route_list.push_back({p, len});
  }
  std::vector<int> lengths;
  for (const auto& [len, m] : routes) lengths.push_back(len);
  const int n = int(lengths.size());

  // Markers: along the binary-search path to each prefix's length, every
  // shorter length probed gets the prefix truncated to it, carrying the best
  // real prefix matching that truncation.
  std::vector<PrefixMap> table(n);  // entry -> best matching prefix's hop
  for (int l = 0; l < n; ++l)
    for (const auto& [p, hop] : routes[lengths[l]]) table[l][p] = hop;
  for (const auto& [p, len] : route_list) {
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
      int mid = (lo + hi) / 2;
      if (lengths[mid] == len) break;
      if (lengths[mid] > len) {
        hi = mid - 1;
        continue;
      }
      Addr marker = masked(p, lengths[mid]);
      if (!table[mid].count(marker)) table[mid][marker] = longest_match(routes, marker, lengths[mid]);
      lo = mid + 1;
    }
  }

  // Open-addressing tables, at most half full, back to back: 2 uint4 per slot.
  struct LengthTable {
    uint32_t length, offset, mask, unused;
  };
  std::vector<LengthTable> descs(n);
  std::vector<uint32_t> entries;
  for (int l = 0; l < n; ++l) {
    uint32_t slots = 16;
    while (slots < 2 * table[l].size()) slots *= 2;
    descs[l] = {uint32_t(lengths[l]), uint32_t(entries.size() / 8), slots - 1, 0};
    size_t base = entries.size();
    entries.resize(base + size_t(slots) * 8, 0);
    for (const auto& [key, hop] : table[l]) {
      uint32_t s = hash_key(key, lengths[l]) & (slots - 1);
      while (entries[base + size_t(s) * 8 + 4] != 0) s = (s + 1) & (slots - 1);
      uint32_t* e = &entries[base + size_t(s) * 8];
      for (int w = 0; w < 4; ++w) e[w] = key[w];
      e[4] = 1;
      e[5] = hop;
    }
  }
  if (n > 64) return {false, fmt::format("{} distinct prefix lengths exceed the kernel's 64", n)};
  ctx.memcpy_to_symbol(mod, "c_tables", descs.data(), descs.size() * sizeof(LengthTable));
  runtime::DevPtr d_entries = ctx.malloc_copy(entries);
  runtime::DevPtr d_addr = ctx.malloc(uint64_t(batch) * 16), d_hops = ctx.malloc(uint64_t(batch) * 4);
  runtime::Kernel kernel = mod.kernel("ipv6_lookup");

  uint64_t routed = 0, total = 0;
  for (int round = 0; round < rounds; ++round) {
    std::vector<Addr> addrs(batch);
    for (Addr& a : addrs) {
      if (rng.below(10) < 8) {  // destinations inside routed prefixes
        const auto& [p, len] = route_list[rng.below(uint32_t(route_list.size()))];
        const Addr host_bits{rng.u32(), rng.u32(), rng.u32(), rng.u32()};
        const Addr net_mask = masked(Addr{~0u, ~0u, ~0u, ~0u}, len);
        for (int w = 0; w < 4; ++w) a[w] = p[w] | (host_bits[w] & ~net_mask[w]);
      } else {
        a = {0x20000000u | (rng.u32() & 0x1fffffffu), rng.u32(), rng.u32(), rng.u32()};
      }
    }
    // Lookups only read the batch: every pass gives the same hops.
    if (events)  // each event's 32 addresses come from the NIC
      host::deliver_events(
          ctx, kernel, 32, 32, num_events,
          [&](uint32_t e) {
            runtime::KernelArgs a;
            a.add(d_addr + uint64_t(e) * 32 * 16).add(d_entries).add(int32_t(n)).add(d_hops + uint64_t(e) * 32 * 4);
            a.add(int32_t(32));
            return a;
          },
          [&](uint32_t e) { return host::payload_of(d_addr + uint64_t(e) * 32 * 16, addrs, size_t(e) * 32, 32); });
    else {
      ctx.memcpy_h2d(d_addr, addrs.data(), uint64_t(batch) * 16);
      for (int p = 0; p < passes; ++p)
        host::launch(ctx, kernel, host::blocks_for(batch, 256), 256, d_addr, d_entries, n, d_hops, batch);
    }
    std::vector<uint32_t> got = ctx.read<uint32_t>(d_hops, batch), want(batch);
    for (int i = 0; i < batch; ++i) {
      want[i] = longest_match(routes, addrs[i], 128);
      routed += want[i] != 0;
    }
    total += batch;
    CheckResult r = check_exact(got, want, "next hop");
    if (!r.passed) return {false, fmt::format("round {}: {}", round, r.detail)};
  }
  return {true, fmt::format("{} lookups exact ({} routed), {} routes over {} lengths", total, routed,
                            num_routes, n)};
}

}  // namespace

const WorkloadSpec& ipv6_workload() {
  static const WorkloadSpec spec{
      "ipv6",
      "IPv6 LPM: binary search over prefix lengths, per-length hash tables with markers; 32 lookups/warp",
      "network",
      embedded::ipv6_ptx,
      {"2000 routes, 2 batches of 4096 lookups", "5000 routes, 1 batch of 32768, 10 passes",
       "20000 routes, 4 batches of 262144", "100000 routes, 32 batches of 262144"},
      run_ipv6};
  return spec;
}

}  // namespace gpumux::workloads
