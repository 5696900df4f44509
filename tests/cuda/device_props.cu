// Device count and selection, properties against attributes (a layout
// mismatch of cudaDeviceProp shows up as a difference), and the simulated
// GPU's SM count given on the command line.
#include <cstdlib>
#include <cstring>

#include "check.h"

int main(int argc, char** argv) {
  CHECK(argc == 3);  // expected SM count and GPU config name
  int count = 0, dev = -1;
  CHECK_CUDA(cudaGetDeviceCount(&count));
  CHECK(count == 1);
  CHECK_CUDA(cudaSetDevice(0));
  CHECK_CUDA(cudaGetDevice(&dev));
  CHECK(dev == 0);
  CHECK_ERR(cudaSetDevice(1), cudaErrorInvalidDevice);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidDevice);
  CHECK_CUDA(cudaGetLastError());

  cudaDeviceProp p;
  std::memset(&p, 0xff, sizeof p);
  CHECK_CUDA(cudaGetDeviceProperties(&p, 0));
  CHECK(std::strstr(p.name, argv[2]) != nullptr);
  CHECK(p.multiProcessorCount == std::atoi(argv[1]));
  CHECK(p.warpSize == 32);
  CHECK(p.major == 8 && p.minor == 0);
  auto attr = [](cudaDeviceAttr a) {
    int v = -1;
    CHECK_CUDA(cudaDeviceGetAttribute(&v, a, 0));
    return v;
  };
  CHECK(attr(cudaDevAttrMultiProcessorCount) == p.multiProcessorCount);
  CHECK(attr(cudaDevAttrMaxThreadsPerBlock) == p.maxThreadsPerBlock);
  CHECK(attr(cudaDevAttrMaxBlockDimX) == p.maxThreadsDim[0]);
  CHECK(attr(cudaDevAttrMaxBlockDimZ) == p.maxThreadsDim[2]);
  CHECK(attr(cudaDevAttrMaxGridDimY) == p.maxGridSize[1]);
  CHECK(attr(cudaDevAttrMaxSharedMemoryPerBlock) == int(p.sharedMemPerBlock));
  CHECK(attr(cudaDevAttrMaxRegistersPerBlock) == p.regsPerBlock);
  CHECK(attr(cudaDevAttrL2CacheSize) == p.l2CacheSize);
  CHECK(attr(cudaDevAttrMaxThreadsPerMultiProcessor) == p.maxThreadsPerMultiProcessor);
  CHECK(attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor) == int(p.sharedMemPerMultiprocessor));
  CHECK(attr(cudaDevAttrMaxRegistersPerMultiprocessor) == p.regsPerMultiprocessor);
  CHECK(attr(cudaDevAttrMaxBlocksPerMultiprocessor) == p.maxBlocksPerMultiProcessor);
  CHECK(attr(cudaDevAttrGlobalMemoryBusWidth) == p.memoryBusWidth);
  CHECK(attr(cudaDevAttrManagedMemory) == p.managedMemory && p.managedMemory == 1);
  CHECK(attr(cudaDevAttrComputeCapabilityMajor) == 8);
  CHECK(attr(cudaDevAttrClockRate) > 100000);  // kHz
  CHECK(p.maxThreadsPerMultiProcessor >= p.maxThreadsPerBlock);
  CHECK(p.sharedMemPerBlockOptin >= p.sharedMemPerBlock);
  CHECK(p.totalGlobalMem >= (size_t(1) << 30));
  CHECK(p.reserved[0] == 0 && p.reserved[55] == 0);  // the whole struct was written

  int driver = 0, runtime = 0;
  CHECK_CUDA(cudaDriverGetVersion(&driver));
  CHECK_CUDA(cudaRuntimeGetVersion(&runtime));
  CHECK(runtime >= 13000);
  size_t heap = 0;
  CHECK_CUDA(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20));
  CHECK_CUDA(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
  CHECK(heap == (1 << 20));
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaDeviceReset());
  std::printf("%s: %d SMs, %d threads/SM, %zu B shared/SM\n", p.name, p.multiProcessorCount,
              p.maxThreadsPerMultiProcessor, p.sharedMemPerMultiprocessor);
  std::printf("PASS device_props\n");
  return 0;
}
