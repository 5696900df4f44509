// IPv4 forwarding of a batch of packets, one thread per packet (32 packets
// per warp): header validation (version, length, checksum), TTL check,
// longest-prefix-match route lookup, TTL decrement with an incremental
// checksum update (RFC 1624) written back into the packet.
//
// The routing table is a multibit trie with strides 16-8-8 built by
// controlled prefix expansion: a lookup reads one entry per level and stops
// at the first leaf, so packets to long prefixes take more dependent loads
// than their warp-mates (memory divergence). An entry with the top bit set
// points to a 256-entry chunk of the next level; otherwise it is a next hop
// (0: no route).
#define POINTER 0x80000000u
#define DROP_BAD_HEADER 0xffffffffu
#define DROP_TTL_EXPIRED 0xfffffffeu
#define DROP_NO_ROUTE 0xfffffffdu

// Headers are stored as on the wire (big-endian), 20 bytes each.
__device__ __forceinline__ unsigned be32(unsigned wire) { return __byte_perm(wire, 0, 0x0123); }

extern "C" __global__ void ipv4_forward(unsigned* __restrict__ headers,
                                        const unsigned* __restrict__ level16,
                                        const unsigned* __restrict__ level24,
                                        const unsigned* __restrict__ level32,
                                        unsigned* __restrict__ next_hop, int num_packets) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= num_packets) return;
  unsigned* h = headers + (size_t)i * 5;
  unsigned w[5];
#pragma unroll
  for (int k = 0; k < 5; ++k) w[k] = be32(h[k]);

  // Version 4, header length 5 words, and a header checksum that verifies.
  unsigned sum = 0;
#pragma unroll
  for (int k = 0; k < 5; ++k) sum += (w[k] >> 16) + (w[k] & 0xffffu);
  sum = (sum & 0xffffu) + (sum >> 16);
  sum = (sum & 0xffffu) + (sum >> 16);
  if ((w[0] >> 24) != 0x45u || sum != 0xffffu) {
    next_hop[i] = DROP_BAD_HEADER;
    return;
  }
  const unsigned ttl = w[2] >> 24;
  if (ttl <= 1) {
    next_hop[i] = DROP_TTL_EXPIRED;
    return;
  }

  const unsigned dst = w[4];
  unsigned e = level16[dst >> 16];
  if (e & POINTER) {
    e = level24[(e & ~POINTER) * 256 + ((dst >> 8) & 0xffu)];
    if (e & POINTER) e = level32[(e & ~POINTER) * 256 + (dst & 0xffu)];
  }
  if (e == 0) {
    next_hop[i] = DROP_NO_ROUTE;
    return;
  }

  // TTL - 1: the 16-bit word holding TTL drops by 0x0100; update the
  // checksum incrementally: HC' = ~(~HC + ~m + m').
  const unsigned old_word = w[2] >> 16, new_word = old_word - 0x0100u;
  unsigned c = (~w[2] & 0xffffu) + (~old_word & 0xffffu) + new_word;
  c = (c & 0xffffu) + (c >> 16);
  c = (c & 0xffffu) + (c >> 16);
  h[2] = be32(new_word << 16 | (~c & 0xffffu));
  next_hop[i] = e;
}
