// Integer arithmetic and bit manipulation: 64-bit multiply-high, division and
// remainder, 24-bit multiplies, SAD, dp4a/dp2a, bit-field extract/insert,
// saturating conversions and byte packing.
extern "C" __global__ void int_math(const int* a, const int* b, long long* out, unsigned* uout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i] | 1;
  unsigned ux = x, uy = y;
  long long wide = (long long)x * y;
  long long q = wide / (y + 3) + wide % 7;
  out[i] = q + __mulhi(x, y) + __umul64hi(ux, 0x9e3779b97f4a7c15ull) + __mul64hi(wide, -5);
  unsigned r = __umulhi(ux, uy) + __mul24(x, y) + __umul24(ux, uy) + __sad(x, y, 3u) + __usad(ux, uy, 1u);
  r += ux / uy + ux % 13u + (unsigned)abs(x) + min(ux, uy) + (unsigned)max(x, -y);
  r += __dp4a(x, y, 5) + __dp4a(ux, uy, 7u) + __dp2a_lo(x, y, 1) + __dp2a_hi(ux, uy, 2u);
  uout[i] = r;
}

extern "C" __global__ void bitfields(const unsigned* in, unsigned* out, unsigned long long* out64, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = in[i];
  unsigned e;
  asm("bfe.u32 %0, %1, 4, 8;" : "=r"(e) : "r"(v));
  int se;
  asm("bfe.s32 %0, %1, %2, 5;" : "=r"(se) : "r"(v), "r"(i & 31));
  unsigned ins;
  asm("bfi.b32 %0, %1, %2, 8, 4;" : "=r"(ins) : "r"(e), "r"(v));
  unsigned msb;
  asm("bfind.u32 %0, %1;" : "=r"(msb) : "r"(v));
  unsigned shamt;
  asm("bfind.shiftamt.s32 %0, %1;" : "=r"(shamt) : "r"(se));
  unsigned l3;
  asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(l3) : "r"(v), "r"(e), "r"(ins));
  unsigned long long w = ((unsigned long long)v << 32) | e;
  out64[i] = __brevll(w) + __popcll(w) + __clzll(w) + __ffsll(w) + (w >> (i & 63)) + ((long long)w >> 3);
  out[i] = e + se + ins + msb + shamt + l3 + __byte_perm(v, e, 0x5410) + __popc(v) + (v << (i & 31));
}

extern "C" __global__ void saturating(const int* in, unsigned char* u8, signed char* s8, short* s16,
                                      float* f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  u8[i] = (unsigned char)min(max(v, 0), 255);
  s8[i] = (signed char)v;
  s16[i] = (short)(v >> 8);
  unsigned char sat;
  asm("cvt.sat.u8.s32 %0, %1;" : "=h"(*(unsigned short*)&sat) : "r"(v));
  f[i] = __int2float_rn(v) + __uint2float_rz((unsigned)v) + (float)(long long)v + __ll2float_rd(v) + sat;
}

extern "C" __global__ void sel_and_compare(const int* a, const float* x, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int s;
  asm("{ .reg .pred p, q;\n\t"
      "setp.lt.and.s32 p|q, %1, 10, 1;\n\t"
      "selp.s32 %0, %1, -7, p;\n\t"
      "@!q add.s32 %0, %0, 1;\n\t}"
      : "=r"(s) : "r"(a[i]));
  unsigned st;
  asm("set.gt.u32.f32 %0, %1, 0f3F800000;" : "=r"(st) : "f"(x[i]));
  int sl;
  asm("slct.s32.f32 %0, %1, %2, %3;" : "=r"(sl) : "r"(a[i]), "r"(-a[i]), "f"(x[i]));
  float cs;
  asm("{ .reg .pred fin;\n\t"
      "testp.finite.f32 fin, %1;\n\t"
      "selp.f32 %0, 1.0, 0d4000000000000000, fin;\n\t}"
      : "=f"(cs) : "f"(x[i]));
  out[i] = s + st + sl + (int)cs;
}
