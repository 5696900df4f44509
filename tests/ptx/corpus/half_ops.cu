// Half-precision kernels with cuda_fp16.h: scalar and half2 arithmetic, conversions,
// and a mixed-precision dot product accumulating in f32.
#include <cuda_fp16.h>

extern "C" __global__ void haxpy(int n, __half a, const __half* x, __half* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __hfma(a, x[i], y[i]);
}

extern "C" __global__ void h2_relu_scale(int n2, __half2 scale, const __half2* x, __half2* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2) {
    __half2 v = __hmul2(x[i], scale);
    y[i] = __hmax2(v, __float2half2_rn(0.0f));
  }
}

extern "C" __global__ void mixed_dot(const __half* a, const __half* b, float* out, int n) {
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc += __half2float(a[i]) * __half2float(b[i]);
  for (int off = 16; off; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, acc);
}

extern "C" __global__ void f32_to_f16(const float* in, __half* out, unsigned short* bits, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __half h = __float2half_rn(in[i]);
    out[i] = __hlt(h, __float2half(65000.f)) ? h : __float2half(0.f);
    bits[i] = __half_as_ushort(__hadd(h, __int2half_rn(i)));
  }
}

extern "C" __global__ void half_atomics(__half2* acc2, __half* acc, const __half* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(acc, x[i]);
    atomicAdd(acc2, __halves2half2(x[i], __hneg(x[i])));
  }
}
