// N-body force computation with fast-math intrinsics, plus a kernel exercising
// transcendental approximations (sin/cos/exp/log/tanh/rsqrt).
extern "C" __global__ void nbody_forces(const float4* pos, float4* acc, int n, float eps2) {
  extern __shared__ float4 tile[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 pi = i < n ? pos[i] : make_float4(0, 0, 0, 0);
  float3 a = make_float3(0, 0, 0);
  for (int base = 0; base < n; base += blockDim.x) {
    int j = base + threadIdx.x;
    tile[threadIdx.x] = j < n ? pos[j] : make_float4(0, 0, 0, 0);
    __syncthreads();
    for (int k = 0; k < blockDim.x && base + k < n; ++k) {
      float4 pj = tile[k];
      float3 r = make_float3(pj.x - pi.x, pj.y - pi.y, pj.z - pi.z);
      float d2 = r.x * r.x + r.y * r.y + r.z * r.z + eps2;
      float inv = rsqrtf(d2);
      float s = pj.w * inv * inv * inv;
      a.x += r.x * s;
      a.y += r.y * s;
      a.z += r.z * s;
    }
    __syncthreads();
  }
  if (i < n) acc[i] = make_float4(a.x, a.y, a.z, 0.0f);
}

extern "C" __global__ void transcendentals(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  float r = __sinf(v) + __cosf(v) + __expf(v) + __logf(fabsf(v) + 1.0f) + __fdividef(v, 3.0f);
  r += tanhf(v) + sqrtf(fabsf(v)) + exp2f(v) + __frcp_rn(v + 2.0f) + __fsqrt_rn(fabsf(v));
  r += fminf(v, 1.0f) + fmaxf(v, -1.0f) + copysignf(1.0f, v) + __saturatef(v) + truncf(v) + rintf(v);
  r += (isinf(v) ? 1.0f : 0.0f) + (isfinite(v) ? 2.0f : 0.0f) + (float)(signbit(v) != 0);
  y[i] = r + __fmul_rz(v, 1.5f) + __fadd_rd(v, 0.1f) + __fmaf_ru(v, v, 1e-3f);
}

extern "C" __global__ void accurate_math(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sinf(x[i]) * expf(-x[i]) + logf(1.0f + fabsf(x[i])) / (1.0f + x[i] * x[i]);
}
