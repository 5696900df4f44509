// ipsec: ESP-style 3DES-CTR payload encryption and ICV, one warp per packet.
#include <algorithm>
#include <array>
#include <numeric>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr int kRounds = 16, kPayloadWords = 64, kPacketsPerBlock = 4;

using SpTables = std::array<std::array<uint32_t, 64>, 8>;
using RoundKeys = std::array<std::array<uint32_t, 2 * kRounds>, 3>;

// The cipher's constant tables: eight 6->4-bit S-boxes (each row a
// permutation of 0..15, indexed DES-style by the outer bits) combined with a
// fixed 32-bit output permutation. Generated from a fixed seed, independent
// of the run's seed, so the cipher is the same in every run.
SpTables make_sp_tables() {
  Rng rng(0x1d5ec0de);
  std::array<int, 32> perm;
  std::iota(perm.begin(), perm.end(), 0);
  for (int i = 31; i > 0; --i) std::swap(perm[i], perm[rng.below(uint32_t(i + 1))]);
  SpTables sp{};
  for (int s = 0; s < 8; ++s) {
    std::array<std::array<int, 16>, 4> rows;
    for (auto& row : rows) {
      std::iota(row.begin(), row.end(), 0);
      for (int i = 15; i > 0; --i) std::swap(row[i], row[rng.below(uint32_t(i + 1))]);
    }
    for (int x = 0; x < 64; ++x) {
      int out = rows[(x >> 4 & 2) | (x & 1)][(x >> 1) & 15];
      uint32_t v = 0;
      for (int bit = 0; bit < 4; ++bit)
        if (out >> bit & 1) v |= 1u << perm[4 * s + bit];
      sp[s][x] = v;
    }
  }
  return sp;
}

uint32_t rotr4(uint32_t x) { return x >> 4 | x << 28; }

uint32_t feistel(uint32_t r, uint32_t ka, uint32_t kb, const SpTables& sp) {
  uint32_t a = r ^ ka, b = rotr4(r) ^ kb;
  return sp[0][a & 63] ^ sp[2][a >> 8 & 63] ^ sp[4][a >> 16 & 63] ^ sp[6][a >> 24 & 63] ^
         sp[1][b & 63] ^ sp[3][b >> 8 & 63] ^ sp[5][b >> 16 & 63] ^ sp[7][b >> 24 & 63];
}

void des_pass(uint32_t& left, uint32_t& right, const std::array<uint32_t, 2 * kRounds>& k,
              bool decrypt, const SpTables& sp) {
  uint32_t l = left, r = right;
  for (int round = 0; round < kRounds; ++round) {
    int kr = decrypt ? kRounds - 1 - round : round;
    uint32_t t = l ^ feistel(r, k[2 * kr], k[2 * kr + 1], sp);
    l = r;
    r = t;
  }
  left = r;
  right = l;
}

void triple_encrypt(uint32_t& hi, uint32_t& lo, const RoundKeys& keys, const SpTables& sp) {
  des_pass(hi, lo, keys[0], false, sp);
  des_pass(hi, lo, keys[1], true, sp);
  des_pass(hi, lo, keys[2], false, sp);
}

CheckResult run_ipsec(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  // Event mode (docs/edge.md): one pass, each event one packet from the NIC
  // for one warp (a TB of 32 threads; its S-boxes in shared memory make it a
  // TB-level event kernel).
  const bool events = ctx.event_source().has_value();
  const int packets = events ? int(host::event_count(ctx, host::by_size(size, 64u, 512u, 8192u, 32768u)))
                             : host::by_size(size, 64, 512, 8192, 32768);
  // Passes encrypt the batch again in place (counter mode: every second pass
  // restores the plaintext); the tags are those of the last pass.
  const int passes = events ? 1 : host::passes(size, 5);
  Rng rng(seed);
  const SpTables sp = make_sp_tables();
  RoundKeys keys;
  for (auto& k : keys)
    for (uint32_t& w : k) w = rng.u32();

  // Payloads: mostly full 256-byte packets, a quarter shorter (64..248 bytes).
  std::vector<uint32_t> payload(size_t(packets) * kPayloadWords), lengths(packets), nonces(packets);
  for (uint32_t& w : payload) w = rng.u32();
  for (int p = 0; p < packets; ++p) {
    lengths[p] = rng.below(4) ? 256 : 64 + 8 * rng.below(24);
    nonces[p] = rng.u32();
  }

  ctx.memcpy_to_symbol(mod, "c_round_keys", keys.data(), sizeof(keys));
  // Events: the NIC writes each payload itself; lengths and nonces (the
  // packets' metadata) are copied beforehand, like the cipher's tables.
  runtime::DevPtr d_payload = events ? ctx.malloc(payload.size() * 4) : ctx.malloc_copy(payload),
                  d_lengths = ctx.malloc_copy(lengths), d_nonces = ctx.malloc_copy(nonces);
  std::vector<uint32_t> sp_flat;
  for (const auto& t : sp) sp_flat.insert(sp_flat.end(), t.begin(), t.end());
  runtime::DevPtr d_sp = ctx.malloc_copy(sp_flat);
  runtime::DevPtr d_icv = ctx.malloc(uint64_t(packets) * 8);
  const runtime::Kernel kernel = mod.kernel("ipsec_esp_encrypt");
  constexpr uint64_t kPayloadBytes = kPayloadWords * 4;
  if (events)
    host::deliver_events(
        ctx, kernel, 32, 32, uint32_t(packets),
        [&](uint32_t e) {
          runtime::KernelArgs a;
          a.add(d_payload + e * kPayloadBytes).add(d_lengths + uint64_t(e) * 4).add(d_nonces + uint64_t(e) * 4);
          a.add(d_sp).add(d_icv + uint64_t(e) * 8).add(int32_t(1));
          return a;
        },
        [&](uint32_t e) {
          return host::payload_of(d_payload + e * kPayloadBytes, payload, size_t(e) * kPayloadWords, kPayloadWords);
        });
  else
    for (int p = 0; p < passes; ++p)
      host::launch(ctx, kernel, host::blocks_for(packets, kPacketsPerBlock), kPacketsPerBlock * 32, d_payload,
                   d_lengths, d_nonces, d_sp, d_icv, packets);
  std::vector<uint32_t> got_payload = ctx.read<uint32_t>(d_payload, payload.size());
  std::vector<uint32_t> got_icv = ctx.read<uint32_t>(d_icv, size_t(packets) * 2);

  std::vector<uint32_t> want_payload = payload, want_icv(size_t(packets) * 2);
  for (int pass = 0; pass < passes; ++pass)
    for (int p = 0; p < packets; ++p) {
      uint32_t blocks = lengths[p] / 8, fold_hi = 0, fold_lo = 0;
      for (uint32_t b = 0; b < blocks; ++b) {
        uint32_t k_hi = nonces[p], k_lo = b;
        triple_encrypt(k_hi, k_lo, keys, sp);
        uint32_t* d = &want_payload[size_t(p) * kPayloadWords + 2 * b];
        d[0] ^= k_hi;
        d[1] ^= k_lo;
        fold_hi ^= d[0];
        fold_lo ^= d[1];
      }
      uint32_t t_hi = fold_hi ^ blocks, t_lo = fold_lo ^ nonces[p];
      triple_encrypt(t_hi, t_lo, keys, sp);
      want_icv[2 * p] = t_hi;
      want_icv[2 * p + 1] = t_lo;
    }
  return host::check_all({check_exact(got_payload, want_payload, "payload word"),
                          check_exact(got_icv, want_icv, "ICV word")});
}

}  // namespace

const WorkloadSpec& ipsec_workload() {
  static const WorkloadSpec spec{
      "ipsec",
      "ESP encryption: 3DES-style Feistel in counter mode, S-boxes in shared memory, one warp per packet",
      "network",
      embedded::ipsec_ptx,
      {"64 packets of 64-256 B", "512 packets, 5 passes", "8192 packets", "32768 packets"},
      run_ipsec};
  return spec;
}

}  // namespace gpumux::workloads
