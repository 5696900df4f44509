// Separable convolution with filter taps in constant memory, and a lookup
// table in constant memory with an initializer.
#define RADIUS 4
__constant__ float c_taps[2 * RADIUS + 1];
__constant__ int c_lut[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
__constant__ double c_scale = 0.125;
__constant__ unsigned char c_bytes[5] = {1, 2, 3, 250, 255};
__constant__ short c_shorts[3] = {-1, 300, -32768};

extern "C" __global__ void conv_rows(const float* in, float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
#pragma unroll
  for (int k = -RADIUS; k <= RADIUS; ++k) {
    int xx = min(max(x + k, 0), w - 1);
    s += c_taps[k + RADIUS] * in[y * w + xx];
  }
  out[y * w + x] = s * float(c_scale);
}

extern "C" __global__ void popcount_lut(const unsigned* in, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = in[i], c = 0;
  for (int nib = 0; nib < 8; ++nib) c += c_lut[(v >> (4 * nib)) & 15];
  out[i] = c + c_bytes[i % 5] + c_shorts[i % 3];
}
