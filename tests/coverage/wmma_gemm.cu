// Coverage: the CUDA WMMA API (nvcuda::wmma) the way the CUDA samples use it.
// One warp per 16x16 output tile; A is M x K row-major, B is K x N
// column-major (B^T row-major), C = 2 (A B) + 1 is M x N row-major.
#include <mma.h>

using namespace nvcuda;

// f16 inputs, f32 accumulator, m16n16k16; an element-wise pass over the
// accumulator fragment before the store.
extern "C" __global__ void wmma_f16_gemm(const half* a, const half* bt, float* c, int m, int n, int k) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  const int row0 = blockIdx.y * 16, col0 = blockIdx.x * 16;
  wmma::fill_fragment(fc, 0.0f);
  for (int k0 = 0; k0 < k; k0 += 16) {
    wmma::load_matrix_sync(fa, a + row0 * k + k0, k);
    wmma::load_matrix_sync(fb, bt + col0 * k + k0, k);
    wmma::mma_sync(fc, fa, fb, fc);
  }
  for (int i = 0; i < fc.num_elements; ++i) fc.x[i] = 2.0f * fc.x[i] + 1.0f;
  wmma::store_matrix_sync(c + row0 * n + col0, fc, n, wmma::mem_row_major);
}

// tf32 inputs (m16n16k8) staged through shared memory, accumulator loaded
// from C and stored column-major into ct (C^T row-major): ct = A B + C.
extern "C" __global__ void wmma_tf32_gemm(const float* a, const float* bt, const float* c, float* ct, int m, int n,
                                          int k) {
  __shared__ float sa[16 * 8], sb[16 * 8];
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
  const int row0 = blockIdx.y * 16, col0 = blockIdx.x * 16;
  wmma::load_matrix_sync(fc, c + row0 * n + col0, n, wmma::mem_row_major);
  for (int k0 = 0; k0 < k; k0 += 8) {
    for (int e = threadIdx.x; e < 16 * 8; e += 32) {
      sa[e] = a[(row0 + e / 8) * k + k0 + e % 8];
      sb[e] = bt[(col0 + e / 8) * k + k0 + e % 8];
    }
    __syncwarp();
    wmma::load_matrix_sync(fa, sa, 8);
    wmma::load_matrix_sync(fb, sb, 8);
    for (int i = 0; i < fa.num_elements; ++i) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
    for (int i = 0; i < fb.num_elements; ++i) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
    wmma::mma_sync(fc, fa, fb, fc);
    __syncwarp();
  }
  wmma::store_matrix_sync(ct + col0 * m + row0, fc, m, wmma::mem_col_major);
}
