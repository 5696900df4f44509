// Coverage: the SIMD intrinsics of CUDA's math API and the PTX video
// instructions, and cooperative groups' tiles wider than a warp. nvcc 13
// lowers __vabsdiffu4, __vsadu4 and __vabsdiffs4 to vabsdiff4 (the last two
// with .add and on sign-flipped bytes) and the other intrinsics to plain
// integer code; the rest of the video family (selectors, saturation, the .add
// accumulate and the lane-mask merge, the scalar forms) is reached through
// inline PTX. A 64-thread tile's reduce keeps its scratch in the block's
// reserved shared memory, found through %reserved_smem_offset_1.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

// out[16 * i + k]: intrinsic k of (a[i], b[i]).
extern "C" __global__ void simd_intrinsics(const unsigned* a, const unsigned* b, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned x = a[i], y = b[i];
  unsigned* o = out + 16 * i;
  o[0] = __vabsdiffu4(x, y);
  o[1] = __vsadu4(x, y);
  o[2] = __vabsdiffs4(x, y);
  o[3] = __vadd4(x, y);
  o[4] = __vmaxu2(x, y);
  o[5] = __vsetgtu4(x, y);
  o[6] = __vavgu4(x, y);
  o[7] = __vminu4(x, y);
  o[8] = __vsub2(x, y);
  o[9] = __vmaxs4(x, y);
  o[10] = __vsetges2(x, y);
  o[11] = __vaddus4(x, y);
  o[12] = __vabsdiffu2(x, y);
  o[13] = __vsads2(x, y);
  o[14] = __vcmpeq4(x, y);
  o[15] = __vhaddu2(x, y);
}

#define VIDEO(k, text) asm(text : "=r"(o[k]) : "r"(x), "r"(y), "r"(z))

// out[16 * i + k]: video instruction k of (a[i], b[i], c[i]).
extern "C" __global__ void video_asm(const unsigned* a, const unsigned* b, const unsigned* c, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned x = a[i], y = b[i], z = c[i];
  unsigned* o = out + 16 * i;
  VIDEO(0, "vadd4.u32.u32.u32.sat %0, %1, %2, %3;");
  VIDEO(1, "vsub4.s32.s32.s32.sat %0, %1, %2, %3;");
  VIDEO(2, "vavrg4.u32.u32.u32 %0, %1, %2, %3;");
  VIDEO(3, "vmin4.s32.s32.s32 %0.b20, %1.b0123, %2.b4455, %3;");
  VIDEO(4, "vmax4.u32.u32.u32.add %0, %1, %2, %3;");
  VIDEO(5, "vset4.u32.u32.lt.add %0, %1, %2, %3;");
  VIDEO(6, "vadd2.s32.s32.s32.sat %0, %1.h01, %2.h32, %3;");
  VIDEO(7, "vsub2.u32.u32.u32 %0.h1, %1, %2, %3;");
  VIDEO(8, "vavrg2.s32.s32.s32 %0, %1, %2, %3;");
  VIDEO(9, "vset2.s32.s32.ge %0, %1, %2, %3;");
  VIDEO(10, "vadd.u32.u32.u32.sat %0, %1.b1, %2.b3;");
  VIDEO(11, "vsub.s32.s32.s32.sat %0, %1, %2;");
  VIDEO(12, "vabsdiff.u32.s32.s32.add %0, %1.h0, %2.h1, %3;");
  VIDEO(13, "vmax.s32.u32.s32.sat %0.b2, %1.b0, %2.h1, %3;");
  VIDEO(14, "vshl.u32.u32.u32.clamp.min %0, %1, %2.b0, %3;");
  VIDEO(15, "vset.u32.s32.gt.max %0, %1.h1, %2.b2, %3;");
}

// out[blockIdx.x * 2 + t]: the sum of tile t (64 threads) of the block.
extern "C" __global__ void tile64_reduce(const int* in, int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<64> tile = cg::tiled_partition<64>(block);
  const int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  const int sum = cg::reduce(tile, v, cg::plus<int>());
  if (tile.thread_rank() == 0) out[blockIdx.x * (blockDim.x / 64) + threadIdx.x / 64] = sum;
}
