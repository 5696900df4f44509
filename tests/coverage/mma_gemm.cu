// Coverage: tensor-core GEMMs written with mma.sync and ldmatrix the way
// hand-tuned kernels (CUTLASS-style) write them in inline PTX. One warp per
// 16x8 output tile; A is M x K row-major, B is K x N column-major
// (B^T row-major), C is M x N row-major.
#include <cuda_fp16.h>

// f16 inputs, f32 accumulate: m16n8k16, A and B fragments loaded with ldmatrix.
extern "C" __global__ void mma_f16_gemm(const __half* a, const __half* bt, float* c, int m, int n, int k) {
  __shared__ __align__(16) __half sa[16 * 16];
  __shared__ __align__(16) __half sb[8 * 16];
  const int lane = threadIdx.x;
  const int row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
  float acc[4] = {0, 0, 0, 0};
  for (int k0 = 0; k0 < k; k0 += 16) {
    for (int e = lane; e < 16 * 16; e += 32) sa[e] = a[(row0 + e / 16) * k + k0 + e % 16];
    for (int e = lane; e < 8 * 16; e += 32) sb[e] = bt[(col0 + e / 16) * k + k0 + e % 16];
    __syncwarp();
    unsigned ra[4], rb[2];
    // x4: matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15).
    const __half* pa = &sa[(lane % 16) * 16 + (lane / 16) * 8];
    unsigned sa_addr = unsigned(__cvta_generic_to_shared(pa));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(ra[0]), "=r"(ra[1]), "=r"(ra[2]), "=r"(ra[3]) : "r"(sa_addr));
    // x2 over B^T (n x k row-major = B column-major): matrices (k 0-7), (k 8-15).
    const __half* pb = &sb[(lane % 8) * 16 + ((lane / 8) % 2) * 8];
    unsigned sb_addr = unsigned(__cvta_generic_to_shared(pb));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                 : "=r"(rb[0]), "=r"(rb[1]) : "r"(sb_addr));
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
        : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
    __syncwarp();
  }
  const int g = lane / 4, t = lane % 4;
  c[(row0 + g) * n + col0 + 2 * t] = acc[0];
  c[(row0 + g) * n + col0 + 2 * t + 1] = acc[1];
  c[(row0 + g + 8) * n + col0 + 2 * t] = acc[2];
  c[(row0 + g + 8) * n + col0 + 2 * t + 1] = acc[3];
}

// tf32 inputs (converted with cvt.rna.tf32.f32), f32 accumulate: m16n8k8,
// fragments loaded straight from global memory.
extern "C" __global__ void mma_tf32_gemm(const float* a, const float* bt, float* c, int m, int n, int k) {
  const int lane = threadIdx.x;
  const int row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
  const int g = lane / 4, t = lane % 4;
  float acc[4] = {0, 0, 0, 0};
  for (int k0 = 0; k0 < k; k0 += 8) {
    unsigned ra[4], rb[2];
    const float av[4] = {a[(row0 + g) * k + k0 + t], a[(row0 + g + 8) * k + k0 + t],
                         a[(row0 + g) * k + k0 + t + 4], a[(row0 + g + 8) * k + k0 + t + 4]};
    const float bv[2] = {bt[(col0 + g) * k + k0 + t], bt[(col0 + g) * k + k0 + t + 4]};
    for (int i = 0; i < 4; ++i) asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(ra[i]) : "f"(av[i]));
    for (int i = 0; i < 2; ++i) asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(rb[i]) : "f"(bv[i]));
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
        : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
  }
  c[(row0 + g) * n + col0 + 2 * t] = acc[0];
  c[(row0 + g) * n + col0 + 2 * t + 1] = acc[1];
  c[(row0 + g + 8) * n + col0 + 2 * t] = acc[2];
  c[(row0 + g + 8) * n + col0 + 2 * t + 1] = acc[3];
}
