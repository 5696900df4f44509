// Coverage: 128-bit integers as nvcc 13 lowers them for compute_80: carry
// arithmetic (add.cc/addc/sub.cc/subc, mul.hi), 128-bit shifts and
// comparisons, .v2.u64 loads and stores and 16-byte .param passing to a
// non-inlined device function, and 128-bit division and remainder by constants
// and by variables (nvcc inlines them as long division with carry chains that
// read the flag of a subtraction with addc). (nvcc emits no .b128 type here.)
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

// Unsigned and signed quotients and remainders, by constants and by the
// per-element divisors du[i] (nonzero) and ds[i] (nonzero).
extern "C" __global__ void int128_div(const unsigned __int128* u, const __int128* s, const unsigned __int128* du,
                                      const __int128* ds, unsigned __int128* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned __int128* o = out + 8 * i;
  o[0] = u[i] / 10u;
  o[1] = u[i] % 1000000007u;
  o[2] = (unsigned __int128)(s[i] / 7);
  o[3] = (unsigned __int128)(s[i] % -13);
  o[4] = u[i] / du[i];
  o[5] = u[i] % du[i];
  o[6] = (unsigned __int128)(s[i] / ds[i]);
  o[7] = (unsigned __int128)(s[i] % ds[i]);
}
