// Coverage: 128-bit integers as nvcc 13 lowers them for compute_80: carry
// arithmetic (add.cc/addc/sub.cc/subc, mul.hi), 128-bit shifts and
// comparisons, .v2.u64 loads and stores and 16-byte .param passing to a
// non-inlined device function. (nvcc emits no .b128 type here. 128-bit
// division is left out: the engine computes nvcc's division sequence wrongly,
// see the note in docs/architecture.md.)
__device__ __noinline__ __int128 mix(__int128 x, unsigned long long y) {
  return x * 3 + (x >> 7) - (__int128)y;
}

// out[i] = |mix(in[i], b[i])| and the halves of a 64x64->128 product.
extern "C" __global__ void int128_mix(const __int128* in, const unsigned long long* b, __int128* out,
                                      unsigned long long* prod, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __int128 m = mix(in[i], b[i]);
  out[i] = m < 0 ? -m : m;
  unsigned __int128 p = (unsigned __int128)b[i] * (unsigned long long)(in[i] >> 64);
  prod[2 * i] = (unsigned long long)p;
  prod[2 * i + 1] = (unsigned long long)(p >> 64);
}
