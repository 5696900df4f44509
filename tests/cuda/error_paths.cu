// The errors a real GPU reports: a bad pointer to cudaMemcpy, an illegal
// launch configuration, an unregistered symbol, an unimplemented entry point,
// and an out-of-bounds kernel ending in cudaErrorIllegalAddress, which is
// sticky afterwards until cudaDeviceReset.
#include <cstring>

#include "check.h"

__device__ int small_array[4];

__global__ void fill(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i;
}

__global__ void past_the_end(int* p) { p[threadIdx.x + 1000000] = 1; }

int main() {
  int* d;
  CHECK_CUDA(cudaMalloc(&d, 64 * sizeof(int)));
  int host[64] = {};
  // A host pointer where a device pointer belongs.
  CHECK_ERR(cudaMemcpy(host, host, sizeof host, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidValue);
  CHECK_CUDA(cudaGetLastError());  // non-sticky: cleared by the read
  // A copy overrunning the allocation.
  CHECK_ERR(cudaMemcpy(d, host, 65 * sizeof(int), cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  CHECK_ERR(cudaMemcpy(d, host, 4, (cudaMemcpyKind)7), cudaErrorInvalidMemcpyDirection);
  CHECK_ERR(cudaFree(host), cudaErrorInvalidValue);
  CHECK_ERR(cudaMemcpyToSymbol(small_array, host, 5 * sizeof(int)), cudaErrorInvalidValue);
  CHECK_ERR(cudaMemcpyToSymbol(host, host, 4), cudaErrorInvalidSymbol);
  cudaGetLastError();

  // Illegal launch configurations: the launch fails, the device stays usable.
  fill<<<1, 2048>>>(d, 64);
  CHECK_ERR(cudaPeekAtLastError(), cudaErrorInvalidConfiguration);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidConfiguration);
  fill<<<0, 32>>>(d, 64);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidConfiguration);
  fill<<<1, dim3(1, 1, 65)>>>(d, 64);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidConfiguration);
  fill<<<1, 64>>>(d, 64);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64; ++i) CHECK(host[i] == i);

  CHECK(std::strcmp(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress") == 0);
  CHECK(std::strcmp(cudaGetErrorString(cudaSuccess), "no error") == 0);

  // An entry point gpumux does not implement returns an error, never crashes.
  cudaEvent_t event;
  CHECK_CUDA(cudaEventCreate(&event));
  cudaIpcEventHandle_t ipc;
  CHECK_ERR(cudaIpcGetEventHandle(&ipc, event), cudaErrorNotSupported);
  cudaGetLastError();

  // Out of bounds: the launch itself succeeds, the fault is reported at the
  // next synchronization and stays (sticky) for every later call.
  past_the_end<<<1, 32>>>(d);
  CHECK_CUDA(cudaGetLastError());
  CHECK_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  CHECK_ERR(cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost), cudaErrorIllegalAddress);
  CHECK_ERR(cudaGetLastError(), cudaErrorIllegalAddress);
  CHECK_ERR(cudaGetLastError(), cudaErrorIllegalAddress);
  // A reset recovers: a new context, the kernels reloaded, no error.
  CHECK_CUDA(cudaDeviceReset());
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMalloc(&d, 64 * sizeof(int)));
  fill<<<1, 64>>>(d, 64);
  CHECK_CUDA(cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64; ++i) CHECK(host[i] == i);
  std::printf("PASS error_paths\n");
  return 0;
}
