// One of several programs sharing a GPU through gpumux serve: a tiny
// iterative stencil whose inputs depend on its argument, with a declared CPU
// phase between iterations. It checks its result against the CPU and prints
// it with the simulated time its events measured.
//   served_worker SEED [hang|big-copy]
//     hang: after the first iteration, wait to be killed
//     big-copy: first copy a 16 MB buffer to the device (a copy that keeps
//     the copy engine busy for milliseconds of simulated time)
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "check.h"

// gpumux's libcudart: a declared CPU phase. Weak, so that the program links
// against NVIDIA's runtime and runs on a real GPU too (where it is null).
extern "C" __attribute__((weak)) cudaError_t gpumuxHostCompute(double ns);

__global__ void smooth(const float* in, float* out, int n, float w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float l = in[i > 0 ? i - 1 : i], r = in[i + 1 < n ? i + 1 : i];
  out[i] = w * in[i] + 0.5f * (1 - w) * (l + r);
}

int main(int argc, char** argv) {
  CHECK(argc >= 2);
  const int seed = std::atoi(argv[1]), iterations = 3;
  const bool hang = argc >= 3 && std::strcmp(argv[2], "hang") == 0;
  const bool big_copy = argc >= 3 && std::strcmp(argv[2], "big-copy") == 0;
  CHECK(argc < 3 || hang || big_copy);
  const int n = 1024 + 256 * seed;
  std::vector<float> h(n), ref(n), tmp(n);
  for (int i = 0; i < n; ++i) h[i] = ref[i] = float((i * 7 + seed * 13) % 31);
  float *a, *b;
  CHECK_CUDA(cudaMalloc(&a, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&b, n * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(a, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  if (big_copy) {
    const size_t bytes = size_t(16) << 20;
    std::vector<unsigned char> big(bytes, 7), back(16);
    unsigned char* d;
    CHECK_CUDA(cudaMalloc(&d, bytes));
    CHECK_CUDA(cudaMemcpy(d, big.data(), bytes, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(back.data(), d + bytes - back.size(), back.size(), cudaMemcpyDeviceToHost));
    for (unsigned char b : back) CHECK(b == 7);
    CHECK_CUDA(cudaFree(d));
  }
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  CHECK_CUDA(cudaEventRecord(start, 0));
  for (int it = 0; it < iterations; ++it) {
    smooth<<<(n + 127) / 128, 128>>>(a, b, n, 0.5f);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    if (hang) {  // killed here by the test, its kernel done and its next request never sent
      std::printf("served_worker %d: waiting to be killed\n", seed);
      std::fflush(stdout);
      pause();
    }
    CHECK(gpumuxHostCompute);
    CHECK_CUDA(gpumuxHostCompute(2000.0));
    std::swap(a, b);
  }
  CHECK_CUDA(cudaEventRecord(stop, 0));
  CHECK_CUDA(cudaMemcpy(h.data(), a, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  for (int it = 0; it < iterations; ++it) {
    for (int i = 0; i < n; ++i)
      tmp[i] = 0.5f * ref[i] + 0.25f * (ref[i > 0 ? i - 1 : i] + ref[i + 1 < n ? i + 1 : i]);
    ref.swap(tmp);
  }
  for (int i = 0; i < n; ++i) CHECK(std::fabs(h[i] - ref[i]) <= 1e-4f * std::fabs(ref[i]) + 1e-5f);
  CHECK(ms > 0);
  std::printf("served_worker %d: %d elements ok, %.6f ms simulated\n", seed, n, ms);
  CHECK_CUDA(cudaFree(a));
  CHECK_CUDA(cudaFree(b));
  CHECK_CUDA(cudaDeviceReset());
  return 0;
}
