// cudaLaunchKernelEx with launch attributes (cooperative, one-block clusters,
// hints), the refusal of attributes gpumux cannot honour, and kernel lookups
// by host stub (cudaGetKernel, cudaGetFuncBySymbol, cudaFuncGetName).
#include <cooperative_groups.h>
#include <cstring>

#include "check.h"

namespace cg = cooperative_groups;

// Each block adds its index to a counter; after a grid barrier every thread
// of block 0 reads the total (needs a cooperative launch).
__global__ void grid_total(int* counter, int* totals) {
  if (threadIdx.x == 0) atomicAdd(counter, int(blockIdx.x));
  cg::this_grid().sync();
  if (blockIdx.x == 0) totals[threadIdx.x] = *counter;
}

__global__ void scale(float* v, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= s;
}

int main() {
  const int n = 1000;
  float* v;
  CHECK_CUDA(cudaMalloc(&v, n * sizeof(float)));
  float h[n];
  for (int i = 0; i < n; ++i) h[i] = float(i);
  CHECK_CUDA(cudaMemcpy(v, h, sizeof h, cudaMemcpyHostToDevice));

  cudaLaunchConfig_t config = {};
  config.gridDim = dim3((n + 127) / 128);
  config.blockDim = dim3(128);
  cudaLaunchAttribute attrs[3];
  attrs[0].id = cudaLaunchAttributeClusterDimension;
  attrs[0].val.clusterDim.x = attrs[0].val.clusterDim.y = attrs[0].val.clusterDim.z = 1;
  attrs[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attrs[1].val.programmaticStreamSerializationAllowed = 1;
  attrs[2].id = cudaLaunchAttributeIgnore;
  config.attrs = attrs;
  config.numAttrs = 3;
  CHECK_CUDA(cudaLaunchKernelEx(&config, scale, v, 2.0f, n));
  float got[n];
  CHECK_CUDA(cudaMemcpy(got, v, sizeof got, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(got[i] == 2.0f * i);

  // A cooperative launch through the attribute: the grid barrier works.
  int *counter, *totals;
  CHECK_CUDA(cudaMalloc(&counter, sizeof(int)));
  CHECK_CUDA(cudaMalloc(&totals, 64 * sizeof(int)));
  CHECK_CUDA(cudaMemset(counter, 0, sizeof(int)));
  cudaLaunchAttribute coop;
  coop.id = cudaLaunchAttributeCooperative;
  coop.val.cooperative = 1;
  cudaLaunchConfig_t cc = {};
  cc.gridDim = dim3(8);
  cc.blockDim = dim3(64);
  cc.attrs = &coop;
  cc.numAttrs = 1;
  CHECK_CUDA(cudaLaunchKernelEx(&cc, grid_total, counter, totals));
  int tot[64];
  CHECK_CUDA(cudaMemcpy(tot, totals, sizeof tot, cudaMemcpyDeviceToHost));
  for (int t = 0; t < 64; ++t) CHECK(tot[t] == 0 + 1 + 2 + 3 + 4 + 5 + 6 + 7);

  // Clusters of several blocks (compute capability 9.0) and per-launch
  // priorities are refused, not ignored; the error is not sticky.
  attrs[0].val.clusterDim.x = 2;
  CHECK_ERR(cudaLaunchKernelEx(&config, scale, v, 2.0f, n), cudaErrorNotSupported);
  CHECK_ERR(cudaGetLastError(), cudaErrorNotSupported);
  cudaLaunchAttribute prio;
  prio.id = cudaLaunchAttributePriority;
  prio.val.priority = 1;
  config.attrs = &prio;
  config.numAttrs = 1;
  CHECK_ERR(cudaLaunchKernelEx(&config, scale, v, 2.0f, n), cudaErrorNotSupported);
  CHECK_ERR(cudaGetLastError(), cudaErrorNotSupported);
  config.numAttrs = 0;
  CHECK_CUDA(cudaLaunchKernelEx(&config, scale, v, 0.5f, n));
  CHECK_CUDA(cudaMemcpy(got, v, sizeof got, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(got[i] == float(i));

  // Kernel lookups by host stub.
  cudaKernel_t k = nullptr;
  CHECK_CUDA(cudaGetKernel(&k, scale));
  CHECK(k != nullptr);
  cudaFunction_t f = nullptr;
  CHECK_CUDA(cudaGetFuncBySymbol(&f, reinterpret_cast<const void*>(scale)));
  CHECK(f != nullptr);
  const char* name = nullptr;
  CHECK_CUDA(cudaFuncGetName(&name, reinterpret_cast<const void*>(scale)));
  CHECK(name && std::strcmp(name, "_Z5scalePffi") == 0);
  int not_a_kernel = 0;
  CHECK_ERR(cudaFuncGetName(&name, &not_a_kernel), cudaErrorInvalidDeviceFunction);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidDeviceFunction);
  std::printf("PASS launch_ex\n");
  return 0;
}
