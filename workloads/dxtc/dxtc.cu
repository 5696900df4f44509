// DXT1 (BC1) texture compression. Each 4x4 pixel block becomes two RGB565
// endpoint colours and sixteen 2-bit indices into the 4-colour palette the
// endpoints define. Sixteen lanes cooperate on a block (two blocks per warp):
// the mean and covariance of the colours are exact integer sums over the
// lanes (butterfly shuffles), a few power iterations in f32 find the principal
// axis, the pixels projecting furthest along it become the endpoints, and
// each lane picks its palette entry; the indices are packed with OR shuffles.
// The f32 steps use explicitly rounded operations so a host reference can
// reproduce them bit for bit.
#define THREADS 64
#define GROUP 16  // lanes per 4x4 block

__device__ __forceinline__ int group_sum(int v) {
#pragma unroll
  for (int m = GROUP / 2; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m, GROUP);
  return v;
}

__device__ __forceinline__ unsigned to565(int r, int g, int b) {
  return ((r * 31 + 127) / 255) << 11 | ((g * 63 + 127) / 255) << 5 | ((b * 31 + 127) / 255);
}

// The 8-bit colour a 565 endpoint decodes to.
__device__ __forceinline__ void expand565(unsigned c, int& r, int& g, int& b) {
  int r5 = c >> 11, g6 = (c >> 5) & 63, b5 = c & 31;
  r = r5 << 3 | r5 >> 2;
  g = g6 << 2 | g6 >> 4;
  b = b5 << 3 | b5 >> 2;
}

// The four 4x4 blocks of TB `tb`; the GROUP lanes of a block run together (shuffles).
__device__ __forceinline__ void dxtc_tb(const unsigned* __restrict__ image, int width,
                                        uint2* __restrict__ blocks, unsigned tb) {
  const int p = threadIdx.x % GROUP;  // pixel in the 4x4 block, row-major
  const int block = tb * (THREADS / GROUP) + threadIdx.x / GROUP;
  const int blocks_per_row = width / 4;
  const int x = (block % blocks_per_row) * 4 + p % 4, y = (block / blocks_per_row) * 4 + p / 4;
  const unsigned rgba = image[y * width + x];
  const int r = rgba & 255, g = (rgba >> 8) & 255, b = (rgba >> 16) & 255;

  // Mean and covariance, scaled by 16 and 256 to stay integral.
  const int sr = group_sum(r), sg = group_sum(g), sb = group_sum(b);
  const int cr = 16 * r - sr, cg = 16 * g - sg, cb = 16 * b - sb;  // 16 x centred colour
  const float c00 = (float)group_sum(cr * cr) * (1.f / 256), c01 = (float)group_sum(cr * cg) * (1.f / 256);
  const float c02 = (float)group_sum(cr * cb) * (1.f / 256), c11 = (float)group_sum(cg * cg) * (1.f / 256);
  const float c12 = (float)group_sum(cg * cb) * (1.f / 256), c22 = (float)group_sum(cb * cb) * (1.f / 256);

  // Power iteration for the principal axis, normalised by its largest component.
  float v0 = 1.f, v1 = 1.f, v2 = 1.f;
#pragma unroll
  for (int it = 0; it < 4; ++it) {
    float w0 = __fmaf_rn(c02, v2, __fmaf_rn(c01, v1, __fmul_rn(c00, v0)));
    float w1 = __fmaf_rn(c12, v2, __fmaf_rn(c11, v1, __fmul_rn(c01, v0)));
    float w2 = __fmaf_rn(c22, v2, __fmaf_rn(c12, v1, __fmul_rn(c02, v0)));
    float m = fmaxf(fabsf(w0), fmaxf(fabsf(w1), fabsf(w2)));
    if (m > 0.f) {
      v0 = __fdiv_rn(w0, m);
      v1 = __fdiv_rn(w1, m);
      v2 = __fdiv_rn(w2, m);
    }
  }
  const float proj = __fmaf_rn((float)cb, v2, __fmaf_rn((float)cg, v1, __fmul_rn((float)cr, v0)));

  // Pixels with the largest and smallest projection (lowest index on ties).
  float hi = proj, lo = proj;
  int hi_p = p, lo_p = p;
#pragma unroll
  for (int m = GROUP / 2; m > 0; m >>= 1) {
    float o_hi = __shfl_xor_sync(0xffffffffu, hi, m, GROUP);
    int o_hi_p = __shfl_xor_sync(0xffffffffu, hi_p, m, GROUP);
    float o_lo = __shfl_xor_sync(0xffffffffu, lo, m, GROUP);
    int o_lo_p = __shfl_xor_sync(0xffffffffu, lo_p, m, GROUP);
    if (o_hi > hi || (o_hi == hi && o_hi_p < hi_p)) { hi = o_hi; hi_p = o_hi_p; }
    if (o_lo < lo || (o_lo == lo && o_lo_p < lo_p)) { lo = o_lo; lo_p = o_lo_p; }
  }
  const unsigned hi_rgba = __shfl_sync(0xffffffffu, rgba, hi_p, GROUP);
  const unsigned lo_rgba = __shfl_sync(0xffffffffu, rgba, lo_p, GROUP);
  unsigned c0 = to565(hi_rgba & 255, (hi_rgba >> 8) & 255, (hi_rgba >> 16) & 255);
  unsigned c1 = to565(lo_rgba & 255, (lo_rgba >> 8) & 255, (lo_rgba >> 16) & 255);
  // c0 > c1 selects the 4-colour mode; equal endpoints leave every index 0.
  if (c0 < c1) {
    unsigned t = c0;
    c0 = c1;
    c1 = t;
  }
  unsigned index = 0;
  if (c0 != c1) {
    int pr[4], pg[4], pb[4];
    expand565(c0, pr[0], pg[0], pb[0]);
    expand565(c1, pr[1], pg[1], pb[1]);
    pr[2] = (2 * pr[0] + pr[1]) / 3, pg[2] = (2 * pg[0] + pg[1]) / 3, pb[2] = (2 * pb[0] + pb[1]) / 3;
    pr[3] = (pr[0] + 2 * pr[1]) / 3, pg[3] = (pg[0] + 2 * pg[1]) / 3, pb[3] = (pb[0] + 2 * pb[1]) / 3;
    int best = 1 << 30;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      int dr = r - pr[i], dg = g - pg[i], db = b - pb[i];
      int d = dr * dr + dg * dg + db * db;
      if (d < best) {
        best = d;
        index = i;
      }
    }
  }
  unsigned bits = index << (2 * p);
#pragma unroll
  for (int m = GROUP / 2; m > 0; m >>= 1) bits |= __shfl_xor_sync(0xffffffffu, bits, m, GROUP);
  if (p == 0) blocks[block] = make_uint2(c0 | c1 << 16, bits);
}

extern "C" __global__ void __launch_bounds__(THREADS)
dxtc_compress(const unsigned* __restrict__ image, int width, uint2* __restrict__ blocks) {
  dxtc_tb(image, width, blocks, blockIdx.x);
}

// Persistent threads (the QAWS paper's form): a resident grid whose TBs loop
// over dxtc_compress's TBs (`tbs` of them, four 4x4 blocks each); whole warps
// loop together, so the shuffles keep all their lanes.
extern "C" __global__ void __launch_bounds__(THREADS)
dxtc_compress_pt(const unsigned* __restrict__ image, int width, uint2* __restrict__ blocks, unsigned tbs) {
  for (unsigned tb = blockIdx.x; tb < tbs; tb += gridDim.x) dxtc_tb(image, width, blocks, tb);
}
