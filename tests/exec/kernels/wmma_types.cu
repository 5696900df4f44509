// One tile product D = A x B + C per wmma type that compute_80 offers
// besides f16/tf32 (those are in tests/coverage/wmma_gemm.cu): s8, u8, s4,
// u4, b1 (xor and and popc), f64 and bf16. A is row-major, B column-major,
// C and D row-major, all dense in global memory. Checked by wmma_types_test.cpp.
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;
namespace wx = nvcuda::wmma::experimental;

template <int M, int N, int K, class TA, class TC, class P>
__device__ void tile(const P* a, const P* b, const TC* c, TC* d, int k_elems_per_row) {
  wmma::fragment<wmma::matrix_a, M, N, K, TA, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, TA, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, M, N, K, TC> fc;
  wmma::load_matrix_sync(fa, a, k_elems_per_row);
  wmma::load_matrix_sync(fb, b, k_elems_per_row);
  wmma::load_matrix_sync(fc, c, N, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, N, wmma::mem_row_major);
}

__global__ void wmma_s8(const signed char* a, const signed char* b, const int* c, int* d) {
  tile<16, 16, 16, signed char, int>(a, b, c, d, 16);
}
__global__ void wmma_u8(const unsigned char* a, const unsigned char* b, const int* c, int* d) {
  tile<16, 16, 16, unsigned char, int>(a, b, c, d, 16);
}
__global__ void wmma_s4(const int* a, const int* b, const int* c, int* d) {
  tile<8, 8, 32, wx::precision::s4, int>(a, b, c, d, 32);
}
__global__ void wmma_u4(const int* a, const int* b, const int* c, int* d) {
  tile<8, 8, 32, wx::precision::u4, int>(a, b, c, d, 32);
}
__global__ void wmma_f64(const double* a, const double* b, const double* c, double* d) {
  tile<8, 8, 4, double, double>(a, b, c, d, 4);
}
__global__ void wmma_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, const float* c, float* d) {
  tile<16, 16, 16, __nv_bfloat16, float>(a, b, c, d, 16);
}
__global__ void wmma_b1(const int* a, const int* b, const int* c, int* d, int use_and) {
  wmma::fragment<wmma::matrix_a, 8, 8, 128, wx::precision::b1, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 128, wx::precision::b1, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 128, int> fc;
  wmma::load_matrix_sync(fa, a, 128);
  wmma::load_matrix_sync(fb, b, 128);
  wmma::load_matrix_sync(fc, c, 8, wmma::mem_row_major);
  if (use_and)
    wmma::bmma_sync(fc, fa, fb, fc, wx::bmmaBitOpAND);
  else
    wmma::bmma_sync(fc, fa, fb, fc, wx::bmmaBitOpXOR);
  wmma::store_matrix_sync(d, fc, 8, wmma::mem_row_major);
}
