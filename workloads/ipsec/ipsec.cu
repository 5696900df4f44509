// IPsec ESP-style encryption of packet payloads, one warp per packet: a
// 3DES-style cipher (64-bit Feistel blocks, 16 rounds, encrypt-decrypt-
// encrypt with three keys) in counter mode, so that the 32 lanes encrypt the
// 32 8-byte blocks of a 256-byte payload in parallel; shorter payloads leave
// lanes idle. The integrity check value folds the ciphertext blocks across
// the warp with XOR shuffles and lane 0 encrypts the fold (a CBC-MAC-like tag).
//
// The round function looks up eight 64-entry S-boxes whose outputs are
// already permuted ("SP" tables); they are copied to shared memory once per
// block, since lanes index them with data-dependent addresses. The round keys
// are read uniformly by all lanes: they live in constant memory.
#define WARPS_PER_BLOCK 4
#define PAYLOAD_WORDS 64  // 256 bytes
#define ROUNDS 16

__constant__ unsigned c_round_keys[3][2 * ROUNDS];  // per key, two 32-bit words per round

__device__ __forceinline__ unsigned feistel(unsigned r, unsigned ka, unsigned kb,
                                            const unsigned (*sp)[64]) {
  const unsigned a = r ^ ka;
  const unsigned b = __funnelshift_r(r, r, 4) ^ kb;
  return sp[0][a & 63] ^ sp[2][(a >> 8) & 63] ^ sp[4][(a >> 16) & 63] ^ sp[6][(a >> 24) & 63] ^
         sp[1][b & 63] ^ sp[3][(b >> 8) & 63] ^ sp[5][(b >> 16) & 63] ^ sp[7][(b >> 24) & 63];
}

// One 16-round pass with key k, forward (encrypt) or with the round keys reversed (decrypt).
__device__ __forceinline__ void des_pass(unsigned& left, unsigned& right, int k, bool decrypt,
                                         const unsigned (*sp)[64]) {
  unsigned l = left, r = right;
#pragma unroll 4
  for (int round = 0; round < ROUNDS; ++round) {
    const int kr = decrypt ? ROUNDS - 1 - round : round;
    const unsigned t = l ^ feistel(r, c_round_keys[k][2 * kr], c_round_keys[k][2 * kr + 1], sp);
    l = r;
    r = t;
  }
  left = r;  // no swap after the last round
  right = l;
}

__device__ __forceinline__ void triple_encrypt(unsigned& hi, unsigned& lo, const unsigned (*sp)[64]) {
  des_pass(hi, lo, 0, false, sp);
  des_pass(hi, lo, 1, true, sp);
  des_pass(hi, lo, 2, false, sp);
}

extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32)
ipsec_esp_encrypt(unsigned* __restrict__ payloads, const unsigned* __restrict__ lengths,
                  const unsigned* __restrict__ nonces, const unsigned* __restrict__ sp_tables,
                  unsigned* __restrict__ icv, int num_packets) {
  __shared__ unsigned s_sp[8][64];
  for (int e = threadIdx.x; e < 8 * 64; e += blockDim.x) (&s_sp[0][0])[e] = sp_tables[e];
  __syncthreads();

  const int lane = threadIdx.x % 32;
  const int packet = blockIdx.x * WARPS_PER_BLOCK + threadIdx.x / 32;
  if (packet >= num_packets) return;
  const unsigned blocks = lengths[packet] / 8;
  unsigned* data = payloads + (size_t)packet * PAYLOAD_WORDS;
  unsigned c_hi = 0, c_lo = 0;
  if (lane < blocks) {
    // Keystream block = E(nonce, block number); XOR it into the payload.
    unsigned k_hi = nonces[packet], k_lo = lane;
    triple_encrypt(k_hi, k_lo, s_sp);
    c_hi = data[2 * lane] ^ k_hi;
    c_lo = data[2 * lane + 1] ^ k_lo;
    data[2 * lane] = c_hi;
    data[2 * lane + 1] = c_lo;
  }
  // Fold the ciphertext over the warp; idle lanes contribute zero.
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) {
    c_hi ^= __shfl_xor_sync(0xffffffffu, c_hi, m);
    c_lo ^= __shfl_xor_sync(0xffffffffu, c_lo, m);
  }
  if (lane == 0) {
    unsigned t_hi = c_hi ^ blocks, t_lo = c_lo ^ nonces[packet];
    triple_encrypt(t_hi, t_lo, s_sp);
    icv[2 * packet] = t_hi;
    icv[2 * packet + 1] = t_lo;
  }
}
