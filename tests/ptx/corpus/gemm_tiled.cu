// Tiled single-precision GEMM: C = alpha * A * B + beta * C (row-major).
// Each thread block computes a TILE x TILE block of C through shared-memory tiles.
#define TILE 16

extern "C" __global__ void sgemm_tiled(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int M, int N, int K, float alpha,
                                       float beta) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE + 1];  // padded to avoid bank conflicts
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
    int ak = t * TILE + threadIdx.x;
    int bk = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[row * K + ak] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (col < N && bk < K) ? B[bk * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = alpha * acc + beta * C[row * N + col];
}

// Register-blocked variant: each thread computes a 4x1 strip with float4 loads of A.
extern "C" __global__ void sgemm_strip4(const float4* __restrict__ A4, const float* __restrict__ B,
                                        float* C, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row0 = (blockIdx.y * blockDim.y + threadIdx.y) * 4;
  if (col >= N || row0 + 3 >= M) return;
  float c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  for (int k = 0; k < K / 4; ++k) {
    float4 a0 = A4[(row0 + 0) * (K / 4) + k];
    float4 a1 = A4[(row0 + 1) * (K / 4) + k];
    float4 a2 = A4[(row0 + 2) * (K / 4) + k];
    float4 a3 = A4[(row0 + 3) * (K / 4) + k];
    float b0 = B[(4 * k + 0) * N + col], b1 = B[(4 * k + 1) * N + col];
    float b2 = B[(4 * k + 2) * N + col], b3 = B[(4 * k + 3) * N + col];
    c0 += a0.x * b0 + a0.y * b1 + a0.z * b2 + a0.w * b3;
    c1 += a1.x * b0 + a1.y * b1 + a1.z * b2 + a1.w * b3;
    c2 += a2.x * b0 + a2.y * b1 + a2.z * b2 + a2.w * b3;
    c3 += a3.x * b0 + a3.y * b1 + a3.z * b2 + a3.w * b3;
  }
  C[(row0 + 0) * N + col] = c0;
  C[(row0 + 1) * N + col] = c1;
  C[(row0 + 2) * N + col] = c2;
  C[(row0 + 3) * N + col] = c3;
}
