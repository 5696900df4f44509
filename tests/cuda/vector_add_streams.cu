// Vector add split over two streams of different priorities, with pinned host
// buffers, async copies and events timing each half in simulated time.
#include <cmath>
#include <vector>

#include "check.h"

__global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 4096, half = n / 2;
  float *ha, *hb, *hc;
  CHECK_CUDA(cudaMallocHost(&ha, n * sizeof(float)));
  CHECK_CUDA(cudaHostAlloc(&hb, n * sizeof(float), cudaHostAllocDefault));
  CHECK_CUDA(cudaMallocHost(&hc, n * sizeof(float)));
  for (int i = 0; i < n; ++i) ha[i] = float(i), hb[i] = 0.5f * float(i), hc[i] = -1;
  float *a, *b, *c;
  CHECK_CUDA(cudaMalloc(&a, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&b, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&c, n * sizeof(float)));

  int least = 1, greatest = 1;
  CHECK_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  CHECK(greatest < least);
  cudaStream_t s[2];
  CHECK_CUDA(cudaStreamCreateWithPriority(&s[0], cudaStreamNonBlocking, greatest));
  CHECK_CUDA(cudaStreamCreate(&s[1]));
  int prio = 0;
  CHECK_CUDA(cudaStreamGetPriority(s[0], &prio));
  CHECK(prio == greatest);

  cudaEvent_t start[2], stop[2];
  for (int k = 0; k < 2; ++k) {
    CHECK_CUDA(cudaEventCreate(&start[k]));
    CHECK_CUDA(cudaEventCreateWithFlags(&stop[k], cudaEventDefault));
  }
  for (int k = 0; k < 2; ++k) {
    int off = k * half;
    CHECK_CUDA(cudaEventRecord(start[k], s[k]));
    CHECK_CUDA(cudaMemcpyAsync(a + off, ha + off, half * sizeof(float), cudaMemcpyHostToDevice, s[k]));
    CHECK_CUDA(cudaMemcpyAsync(b + off, hb + off, half * sizeof(float), cudaMemcpyHostToDevice, s[k]));
    vadd<<<(half + 255) / 256, 256, 0, s[k]>>>(a + off, b + off, c + off, half);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpyAsync(hc + off, c + off, half * sizeof(float), cudaMemcpyDeviceToHost, s[k]));
    CHECK_CUDA(cudaEventRecord(stop[k], s[k]));
  }
  for (int k = 0; k < 2; ++k) CHECK_CUDA(cudaStreamSynchronize(s[k]));
  CHECK_CUDA(cudaEventSynchronize(stop[1]));
  CHECK_CUDA(cudaStreamQuery(s[0]));
  CHECK_CUDA(cudaStreamSynchronize(cudaStreamPerThread));
  CHECK_CUDA(cudaEventQuery(stop[0]));
  for (int i = 0; i < n; ++i) CHECK(hc[i] == 1.5f * float(i));
  for (int k = 0; k < 2; ++k) {
    float ms = -1;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start[k], stop[k]));
    // Three copies of 8 KB over PCIe and a kernel: microseconds of simulated time.
    CHECK(ms > 0.001f && ms < 10.0f);
    std::printf("half %d: %.6f ms simulated\n", k, ms);
  }
  // A launch through the runtime API instead of <<<>>>, on the special legacy-stream handle.
  int m = n;
  void* args[] = {&c, &b, &a, &m};  // a = c + b
  CHECK_CUDA(cudaLaunchKernel((const void*)vadd, dim3(n / 128), dim3(128), args, 0, cudaStreamLegacy));
  CHECK_CUDA(cudaMemcpy(ha, a, n * sizeof(float), cudaMemcpyDefault));
  for (int i = 0; i < n; ++i) CHECK(ha[i] == 2.0f * float(i));

  for (int k = 0; k < 2; ++k) {
    CHECK_CUDA(cudaEventDestroy(start[k]));
    CHECK_CUDA(cudaEventDestroy(stop[k]));
    CHECK_CUDA(cudaStreamDestroy(s[k]));
  }
  CHECK_CUDA(cudaFree(a));
  CHECK_CUDA(cudaFree(b));
  CHECK_CUDA(cudaFree(c));
  CHECK_CUDA(cudaFreeHost(ha));
  CHECK_CUDA(cudaFreeHost(hb));
  CHECK_CUDA(cudaFreeHost(hc));
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("PASS vector_add_streams\n");
  return 0;
}
