// ipv4: IPv4 forwarding (validation, LPM through a 16-8-8 multibit trie, TTL and
// checksum update) of packet batches, one thread per packet.
#include <algorithm>
#include <unordered_map>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr uint32_t kPointer = 0x80000000u;
constexpr uint32_t kBadHeader = 0xffffffffu, kTtlExpired = 0xfffffffeu, kNoRoute = 0xfffffffdu;

struct Route {
  uint32_t prefix;  // host order, host bits zero
  int length;
  uint32_t hop;     // 1..1023
};

// Prefix lengths roughly as in a backbone table: mostly /24 and /16-/23.
int random_length(Rng& rng) {
  uint32_t r = rng.below(100);
  if (r < 2) return 8 + int(rng.below(8));    // /8-/15
  if (r < 8) return 16;
  if (r < 50) return 17 + int(rng.below(7));  // /17-/23
  if (r < 95) return 24;
  return 25 + int(rng.below(8));              // /25-/32
}

uint32_t mask_of(int length) { return length == 0 ? 0 : ~0u << (32 - length); }

// Controlled prefix expansion into the 16-8-8 trie. Routes are inserted from
// short to long, so a route overwrites every entry of its range: whatever is
// there came from a shorter (less specific) route.
struct Trie {
  std::vector<uint32_t> level[3];  // level[0]: 65536 entries; levels 1, 2: 256-entry chunks
  Trie() { level[0].assign(65536, 0); }

  // Entry `e` of level `l` as a pointer, creating the chunk (filled with the leaf's hop) if needed.
  uint32_t child(int l, size_t e) {
    uint32_t v = level[l][e];
    if (v & kPointer) return v & ~kPointer;
    uint32_t chunk = uint32_t(level[l + 1].size() / 256);
    level[l + 1].resize(level[l + 1].size() + 256, v);
    level[l][e] = chunk | kPointer;
    return chunk;
  }
  // Sets every leaf below entry e of level l (inclusive) to hop.
  void fill(int l, size_t e, uint32_t hop) {
    uint32_t v = level[l][e];
    if (!(v & kPointer)) {
      level[l][e] = hop;
      return;
    }
    for (size_t k = 0; k < 256; ++k) fill(l + 1, size_t(v & ~kPointer) * 256 + k, hop);
  }
  void insert(const Route& r) {
    // Walk down to the level holding the prefix's last bits, then fill its range.
    const int bits_at[3] = {16, 24, 32};
    size_t base = 0;
    int l = 0;
    while (r.length > bits_at[l]) {
      size_t e = base + ((r.prefix >> (32 - bits_at[l])) & (l == 0 ? 0xffffu : 0xffu));
      base = size_t(child(l, e)) * 256;
      ++l;
    }
    int stride_bits = l == 0 ? 16 : 8;
    int free_bits = bits_at[l] - r.length;
    uint32_t first = (r.prefix >> (32 - bits_at[l])) & ((1u << stride_bits) - 1);
    for (uint32_t k = 0; k < (1u << free_bits); ++k) fill(l, base + first + k, r.hop);
  }
};

uint32_t be32(uint32_t v) { return __builtin_bswap32(v); }

CheckResult run_ipv4(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  // Event mode (docs/edge.md): one round, each event a warp of 32 packets from the NIC.
  const bool events = ctx.event_source().has_value();
  const uint32_t num_events = host::event_count(ctx, host::by_size(size, 64u, 256u, 1024u, 4096u));
  const int num_routes = host::by_size(size, 2000, 2000, 50000, 200000);
  const int batch = events ? int(num_events) * 32 : host::by_size(size, 16384, 65536, 262144, 262144);  // packets per launch
  const int rounds = events ? 1 : host::by_size(size, 4, 1, 32, 128);
  // Passes forward each batch again in place, as the next router would: TTL
  // and checksum are rewritten every time and short-lived packets expire.
  const int passes = events ? 1 : host::passes(size, 42);
  Rng rng(seed);

  // Routing table (deduplicated on prefix/length) and its per-length hash maps for the reference.
  std::vector<Route> routes;
  std::unordered_map<uint32_t, uint32_t> by_length[33];
  while (int(routes.size()) < num_routes) {
    int len = random_length(rng);
    uint32_t prefix = rng.u32() & mask_of(len);
    if (by_length[len].count(prefix)) continue;
    uint32_t hop = 1 + rng.below(1023);
    by_length[len][prefix] = hop;
    routes.push_back({prefix, len, hop});
  }
  std::stable_sort(routes.begin(), routes.end(),
                   [](const Route& a, const Route& b) { return a.length < b.length; });
  Trie trie;
  for (const Route& r : routes) trie.insert(r);

  runtime::DevPtr d_level[3];
  for (int l = 0; l < 3; ++l) {
    if (trie.level[l].empty()) trie.level[l].assign(256, 0);  // keep every pointer valid
    d_level[l] = ctx.malloc_copy(trie.level[l]);
  }
  runtime::DevPtr d_headers = ctx.malloc(uint64_t(batch) * 20);
  runtime::DevPtr d_hops = ctx.malloc(uint64_t(batch) * 4);
  runtime::Kernel kernel = mod.kernel("ipv4_forward");

  uint64_t forwarded = 0, dropped = 0;
  for (int round = 0; round < rounds; ++round) {
    // A batch of packets as the NIC would deliver it (big-endian headers).
    std::vector<uint32_t> hdr(size_t(batch) * 5);
    for (int i = 0; i < batch; ++i) {
      uint32_t dst;
      if (rng.below(10) < 8) {  // most traffic goes to routed destinations
        const Route& r = routes[rng.below(uint32_t(routes.size()))];
        dst = r.prefix | (rng.u32() & ~mask_of(r.length));
      } else {
        dst = rng.u32();
      }
      uint32_t w[5];
      w[0] = 0x45000000u | (40 + rng.below(1460));            // version, IHL, total length
      w[1] = rng.u32() & 0xffff4000u;                          // id, DF
      w[2] = (rng.below(50) == 0 ? 1u : 2 + rng.below(63)) << 24 | 6u << 16;  // TTL, TCP
      w[3] = rng.u32();                                        // source
      w[4] = dst;
      uint32_t sum = 0;
      for (uint32_t x : w) sum += (x >> 16) + (x & 0xffff);
      while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
      w[2] |= ~sum & 0xffff;
      if (rng.below(100) == 0) w[3] ^= 1u << rng.below(32);  // corrupted in transit
      for (int k = 0; k < 5; ++k) hdr[size_t(i) * 5 + k] = be32(w[k]);
    }
    if (events)  // each event's 32 headers come from the NIC
      host::deliver_events(
          ctx, kernel, 32, 32, num_events,
          [&](uint32_t e) {
            runtime::KernelArgs a;
            a.add(d_headers + uint64_t(e) * 32 * 20).add(d_level[0]).add(d_level[1]).add(d_level[2]);
            a.add(d_hops + uint64_t(e) * 32 * 4).add(int32_t(32));
            return a;
          },
          [&](uint32_t e) { return host::payload_of(d_headers + uint64_t(e) * 32 * 20, hdr, size_t(e) * 32 * 5, 32 * 5); });
    else {
      ctx.memcpy_h2d(d_headers, hdr.data(), hdr.size() * 4);
      for (int p = 0; p < passes; ++p)
        host::launch(ctx, kernel, host::blocks_for(batch, 256), 256, d_headers, d_level[0], d_level[1], d_level[2],
                     d_hops, batch);
    }
    std::vector<uint32_t> got_hops = ctx.read<uint32_t>(d_hops, batch);
    std::vector<uint32_t> got_hdr = ctx.read<uint32_t>(d_headers, hdr.size());

    // Reference: per-length hash lookups from /32 down, and the header rewrite, once per pass.
    std::vector<uint32_t> want_hops(batch), want_hdr = hdr;
    for (int pass = 0; pass < passes; ++pass)
      for (int i = 0; i < batch; ++i) {
        uint32_t w[5];
        for (int k = 0; k < 5; ++k) w[k] = be32(want_hdr[size_t(i) * 5 + k]);
        uint32_t sum = 0;
        for (uint32_t x : w) sum += (x >> 16) + (x & 0xffff);
        while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
        uint32_t& out = want_hops[i];
        if (w[0] >> 24 != 0x45 || sum != 0xffff) {
          out = kBadHeader;
        } else if ((w[2] >> 24) <= 1) {
          out = kTtlExpired;
        } else {
          out = kNoRoute;
          for (int len = 32; len >= 0; --len) {
            auto it = by_length[len].find(w[4] & mask_of(len));
            if (it != by_length[len].end()) {
              out = it->second;
              break;
            }
          }
          if (out != kNoRoute) {
            uint32_t old_word = w[2] >> 16, new_word = old_word - 0x100;
            uint32_t c = (~w[2] & 0xffff) + (~old_word & 0xffff) + new_word;
            while (c >> 16) c = (c & 0xffff) + (c >> 16);
            want_hdr[size_t(i) * 5 + 2] = be32(new_word << 16 | (~c & 0xffff));
          }
        }
        (out >= kNoRoute ? dropped : forwarded) += 1;
      }
    CheckResult r = host::check_all({check_exact(got_hops, want_hops, "next hop"),
                                     check_exact(got_hdr, want_hdr, "header word")});
    if (!r.passed) return {false, fmt::format("round {}: {}", round, r.detail)};
  }
  return {true, fmt::format("{} forwarding decisions exact ({} forwarded, {} dropped), {} routes",
                            forwarded + dropped, forwarded, dropped, num_routes)};
}

}  // namespace

const WorkloadSpec& ipv4_workload() {
  static const WorkloadSpec spec{
      "ipv4",
      "IPv4 forwarding: header checks, LPM in a 16-8-8 multibit trie, TTL/checksum rewrite; 32 packets/warp",
      "network",
      embedded::ipv4_ptx,
      {"2000 routes, 4 batches of 16384 packets", "2000 routes, 1 batch of 65536, 42 passes",
       "50000 routes, 32 batches of 262144", "200000 routes, 128 batches of 262144"},
      run_ipv4};
  return spec;
}

}  // namespace gpumux::workloads
