// Sum of absolute differences for H.264 motion estimation. For every 16x16
// macroblock of the current frame and every displacement in a +-16 pixel
// search window of the reference frame, the SADs of all the partitions H.264
// can choose from: sixteen 4x4, eight 8x4, eight 4x8, four 8x8, two 16x8, two
// 8x16 and one 16x16 block (41 values per displacement). The first kernel
// computes the 4x4 SADs from the pixels, staging the macroblock and its search
// window in shared memory; the other two build the larger partitions by
// adding smaller ones.
//
// Output layout: sads[(mb * 41 + partition) * POSITIONS + position], u16.
#define RANGE 16
#define SIDE (2 * RANGE + 1)       // displacements per axis
#define POSITIONS (SIDE * SIDE)    // 1089
#define WINDOW (16 + 2 * RANGE)    // reference pixels per window side
#define PARTITIONS 41
#define THREADS 128

// Partition numbering: 4x4 at 0..15 (row-major, 4 per row), 8x4 at 16..23
// (2 per row, 4 rows), 4x8 at 24..31 (4 per row, 2 rows), 8x8 at 32..35,
// 16x8 at 36..37, 8x16 at 38..39, 16x16 at 40.
#define P4x4 0
#define P8x4 16
#define P4x8 24
#define P8x8 32
#define P16x8 36
#define P8x16 38
#define P16x16 40

extern "C" __global__ void __launch_bounds__(THREADS)
sad_4x4(const unsigned char* __restrict__ cur, const unsigned char* __restrict__ ref, int width,
        int height, unsigned short* __restrict__ sads) {
  __shared__ unsigned char s_cur[16][16];
  __shared__ unsigned char s_win[WINDOW][WINDOW];

  const int mb_x = blockIdx.x, mb_y = blockIdx.y;
  const int mb = mb_y * gridDim.x + mb_x;
  for (int e = threadIdx.x; e < 256; e += THREADS)
    s_cur[e / 16][e % 16] = cur[(mb_y * 16 + e / 16) * width + mb_x * 16 + e % 16];
  // The window may stick out of the frame: clamp to the edge (unrestricted motion vectors).
  for (int e = threadIdx.x; e < WINDOW * WINDOW; e += THREADS) {
    int wy = e / WINDOW, wx = e % WINDOW;
    int y = min(max(mb_y * 16 - RANGE + wy, 0), height - 1);
    int x = min(max(mb_x * 16 - RANGE + wx, 0), width - 1);
    s_win[wy][wx] = ref[y * width + x];
  }
  __syncthreads();

  unsigned short* out = sads + (size_t)mb * PARTITIONS * POSITIONS;
  for (int pos = threadIdx.x; pos < POSITIONS; pos += THREADS) {
    const int oy = pos / SIDE, ox = pos % SIDE;  // window offset of the displaced macroblock
#pragma unroll
    for (int by = 0; by < 4; ++by) {
#pragma unroll
      for (int bx = 0; bx < 4; ++bx) {
        unsigned sad = 0;
#pragma unroll
        for (int r = 0; r < 4; ++r)
#pragma unroll
          for (int c = 0; c < 4; ++c)
            sad = __usad(s_cur[by * 4 + r][bx * 4 + c], s_win[oy + by * 4 + r][ox + bx * 4 + c], sad);
        out[(P4x4 + by * 4 + bx) * POSITIONS + pos] = (unsigned short)sad;
      }
    }
  }
}

// 8x4, 4x8 and 8x8 SADs from the 4x4 ones; one thread per (macroblock, displacement).
extern "C" __global__ void __launch_bounds__(THREADS)
sad_8x8(unsigned short* __restrict__ sads) {
  const int pos = blockIdx.x * THREADS + threadIdx.x;
  if (pos >= POSITIONS) return;
  unsigned short* mb_sads = sads + (size_t)blockIdx.y * PARTITIONS * POSITIONS + pos;
  unsigned s4[4][4];
#pragma unroll
  for (int b = 0; b < 16; ++b) s4[b / 4][b % 4] = mb_sads[(P4x4 + b) * POSITIONS];
#pragma unroll
  for (int by = 0; by < 4; ++by)
#pragma unroll
    for (int bx = 0; bx < 2; ++bx)
      mb_sads[(P8x4 + by * 2 + bx) * POSITIONS] = s4[by][2 * bx] + s4[by][2 * bx + 1];
#pragma unroll
  for (int by = 0; by < 2; ++by)
#pragma unroll
    for (int bx = 0; bx < 4; ++bx)
      mb_sads[(P4x8 + by * 4 + bx) * POSITIONS] = s4[2 * by][bx] + s4[2 * by + 1][bx];
#pragma unroll
  for (int by = 0; by < 2; ++by)
#pragma unroll
    for (int bx = 0; bx < 2; ++bx)
      mb_sads[(P8x8 + by * 2 + bx) * POSITIONS] = s4[2 * by][2 * bx] + s4[2 * by][2 * bx + 1] +
                                                  s4[2 * by + 1][2 * bx] +
                                                  s4[2 * by + 1][2 * bx + 1];
}

// 16x8, 8x16 and 16x16 SADs from the 8x8 ones.
extern "C" __global__ void __launch_bounds__(THREADS)
sad_16x16(unsigned short* __restrict__ sads) {
  const int pos = blockIdx.x * THREADS + threadIdx.x;
  if (pos >= POSITIONS) return;
  unsigned short* mb_sads = sads + (size_t)blockIdx.y * PARTITIONS * POSITIONS + pos;
  unsigned s8[2][2];
#pragma unroll
  for (int b = 0; b < 4; ++b) s8[b / 2][b % 2] = mb_sads[(P8x8 + b) * POSITIONS];
  mb_sads[(P16x8 + 0) * POSITIONS] = s8[0][0] + s8[0][1];
  mb_sads[(P16x8 + 1) * POSITIONS] = s8[1][0] + s8[1][1];
  mb_sads[(P8x16 + 0) * POSITIONS] = s8[0][0] + s8[1][0];
  mb_sads[(P8x16 + 1) * POSITIONS] = s8[0][1] + s8[1][1];
  mb_sads[P16x16 * POSITIONS] = s8[0][0] + s8[0][1] + s8[1][0] + s8[1][1];
}
