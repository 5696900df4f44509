// Every cudaDeviceAttr of CUDA 13 has a value, the matching cudaDeviceProp
// field has the same one, an unknown attribute is an ordinary error that
// cudaGetLastError reports once and that no later call or launch inherits,
// and the persisting-L2 controls (limit, stream access policy windows) are
// accepted within the device's reported bounds.
#include <cstring>
#include <vector>

#include "check.h"

__global__ void scale(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * in[i] + 1;
}

// The attributes of CUDA 13's cudaDeviceAttr, by number (the gaps are none).
bool is_attribute(int a) {
  return a >= 1 && a <= 147 && a != 44 && !(a >= 102 && a <= 105) && a != 107 && a != 110 && a != 136 &&
         a != 137 && a != 146;
}

int attribute(cudaDeviceAttr a) {
  int v = -12345;
  CHECK_CUDA(cudaDeviceGetAttribute(&v, a, 0));
  return v;
}

// Each attribute that has a cudaDeviceProp field against that field.
void check_against_properties(const cudaDeviceProp& p) {
  struct Pair {
    cudaDeviceAttr attr;
    long long prop;
  };
  const Pair pairs[] = {
      {cudaDevAttrMaxThreadsPerBlock, p.maxThreadsPerBlock},
      {cudaDevAttrMaxBlockDimX, p.maxThreadsDim[0]},
      {cudaDevAttrMaxBlockDimY, p.maxThreadsDim[1]},
      {cudaDevAttrMaxBlockDimZ, p.maxThreadsDim[2]},
      {cudaDevAttrMaxGridDimX, p.maxGridSize[0]},
      {cudaDevAttrMaxGridDimY, p.maxGridSize[1]},
      {cudaDevAttrMaxGridDimZ, p.maxGridSize[2]},
      {cudaDevAttrMaxSharedMemoryPerBlock, (long long)p.sharedMemPerBlock},
      {cudaDevAttrTotalConstantMemory, (long long)p.totalConstMem},
      {cudaDevAttrWarpSize, p.warpSize},
      {cudaDevAttrMaxPitch, (long long)p.memPitch},
      {cudaDevAttrMaxRegistersPerBlock, p.regsPerBlock},
      {cudaDevAttrTextureAlignment, (long long)p.textureAlignment},
      {cudaDevAttrMultiProcessorCount, p.multiProcessorCount},
      {cudaDevAttrIntegrated, p.integrated},
      {cudaDevAttrCanMapHostMemory, p.canMapHostMemory},
      {cudaDevAttrMaxTexture1DWidth, p.maxTexture1D},
      {cudaDevAttrMaxTexture2DWidth, p.maxTexture2D[0]},
      {cudaDevAttrMaxTexture2DHeight, p.maxTexture2D[1]},
      {cudaDevAttrMaxTexture3DWidth, p.maxTexture3D[0]},
      {cudaDevAttrMaxTexture3DHeight, p.maxTexture3D[1]},
      {cudaDevAttrMaxTexture3DDepth, p.maxTexture3D[2]},
      {cudaDevAttrMaxTexture2DLayeredWidth, p.maxTexture2DLayered[0]},
      {cudaDevAttrMaxTexture2DLayeredHeight, p.maxTexture2DLayered[1]},
      {cudaDevAttrMaxTexture2DLayeredLayers, p.maxTexture2DLayered[2]},
      {cudaDevAttrSurfaceAlignment, (long long)p.surfaceAlignment},
      {cudaDevAttrConcurrentKernels, p.concurrentKernels},
      {cudaDevAttrEccEnabled, p.ECCEnabled},
      {cudaDevAttrPciBusId, p.pciBusID},
      {cudaDevAttrPciDeviceId, p.pciDeviceID},
      {cudaDevAttrTccDriver, p.tccDriver},
      {cudaDevAttrGlobalMemoryBusWidth, p.memoryBusWidth},
      {cudaDevAttrL2CacheSize, p.l2CacheSize},
      {cudaDevAttrMaxThreadsPerMultiProcessor, p.maxThreadsPerMultiProcessor},
      {cudaDevAttrAsyncEngineCount, p.asyncEngineCount},
      {cudaDevAttrUnifiedAddressing, p.unifiedAddressing},
      {cudaDevAttrMaxTexture1DLayeredWidth, p.maxTexture1DLayered[0]},
      {cudaDevAttrMaxTexture1DLayeredLayers, p.maxTexture1DLayered[1]},
      {cudaDevAttrMaxTexture2DGatherWidth, p.maxTexture2DGather[0]},
      {cudaDevAttrMaxTexture2DGatherHeight, p.maxTexture2DGather[1]},
      {cudaDevAttrMaxTexture3DWidthAlt, p.maxTexture3DAlt[0]},
      {cudaDevAttrMaxTexture3DHeightAlt, p.maxTexture3DAlt[1]},
      {cudaDevAttrMaxTexture3DDepthAlt, p.maxTexture3DAlt[2]},
      {cudaDevAttrPciDomainId, p.pciDomainID},
      {cudaDevAttrTexturePitchAlignment, (long long)p.texturePitchAlignment},
      {cudaDevAttrMaxTextureCubemapWidth, p.maxTextureCubemap},
      {cudaDevAttrMaxTextureCubemapLayeredWidth, p.maxTextureCubemapLayered[0]},
      {cudaDevAttrMaxTextureCubemapLayeredLayers, p.maxTextureCubemapLayered[1]},
      {cudaDevAttrMaxSurface1DWidth, p.maxSurface1D},
      {cudaDevAttrMaxSurface2DWidth, p.maxSurface2D[0]},
      {cudaDevAttrMaxSurface2DHeight, p.maxSurface2D[1]},
      {cudaDevAttrMaxSurface3DWidth, p.maxSurface3D[0]},
      {cudaDevAttrMaxSurface3DHeight, p.maxSurface3D[1]},
      {cudaDevAttrMaxSurface3DDepth, p.maxSurface3D[2]},
      {cudaDevAttrMaxSurface1DLayeredWidth, p.maxSurface1DLayered[0]},
      {cudaDevAttrMaxSurface1DLayeredLayers, p.maxSurface1DLayered[1]},
      {cudaDevAttrMaxSurface2DLayeredWidth, p.maxSurface2DLayered[0]},
      {cudaDevAttrMaxSurface2DLayeredHeight, p.maxSurface2DLayered[1]},
      {cudaDevAttrMaxSurface2DLayeredLayers, p.maxSurface2DLayered[2]},
      {cudaDevAttrMaxSurfaceCubemapWidth, p.maxSurfaceCubemap},
      {cudaDevAttrMaxSurfaceCubemapLayeredWidth, p.maxSurfaceCubemapLayered[0]},
      {cudaDevAttrMaxSurfaceCubemapLayeredLayers, p.maxSurfaceCubemapLayered[1]},
      {cudaDevAttrMaxTexture2DLinearWidth, p.maxTexture2DLinear[0]},
      {cudaDevAttrMaxTexture2DLinearHeight, p.maxTexture2DLinear[1]},
      {cudaDevAttrMaxTexture2DLinearPitch, p.maxTexture2DLinear[2]},
      {cudaDevAttrMaxTexture2DMipmappedWidth, p.maxTexture2DMipmap[0]},
      {cudaDevAttrMaxTexture2DMipmappedHeight, p.maxTexture2DMipmap[1]},
      {cudaDevAttrComputeCapabilityMajor, p.major},
      {cudaDevAttrComputeCapabilityMinor, p.minor},
      {cudaDevAttrMaxTexture1DMipmappedWidth, p.maxTexture1DMipmap},
      {cudaDevAttrStreamPrioritiesSupported, p.streamPrioritiesSupported},
      {cudaDevAttrGlobalL1CacheSupported, p.globalL1CacheSupported},
      {cudaDevAttrLocalL1CacheSupported, p.localL1CacheSupported},
      {cudaDevAttrMaxSharedMemoryPerMultiprocessor, (long long)p.sharedMemPerMultiprocessor},
      {cudaDevAttrMaxRegistersPerMultiprocessor, p.regsPerMultiprocessor},
      {cudaDevAttrManagedMemory, p.managedMemory},
      {cudaDevAttrIsMultiGpuBoard, p.isMultiGpuBoard},
      {cudaDevAttrMultiGpuBoardGroupID, p.multiGpuBoardGroupID},
      {cudaDevAttrHostNativeAtomicSupported, p.hostNativeAtomicSupported},
      {cudaDevAttrPageableMemoryAccess, p.pageableMemoryAccess},
      {cudaDevAttrConcurrentManagedAccess, p.concurrentManagedAccess},
      {cudaDevAttrComputePreemptionSupported, p.computePreemptionSupported},
      {cudaDevAttrCanUseHostPointerForRegisteredMem, p.canUseHostPointerForRegisteredMem},
      {cudaDevAttrCooperativeLaunch, p.cooperativeLaunch},
      {cudaDevAttrMaxSharedMemoryPerBlockOptin, (long long)p.sharedMemPerBlockOptin},
      {cudaDevAttrPageableMemoryAccessUsesHostPageTables, p.pageableMemoryAccessUsesHostPageTables},
      {cudaDevAttrDirectManagedMemAccessFromHost, p.directManagedMemAccessFromHost},
      {cudaDevAttrMaxBlocksPerMultiprocessor, p.maxBlocksPerMultiProcessor},
      {cudaDevAttrMaxPersistingL2CacheSize, p.persistingL2CacheMaxSize},
      {cudaDevAttrMaxAccessPolicyWindowSize, p.accessPolicyMaxWindowSize},
      {cudaDevAttrReservedSharedMemoryPerBlock, (long long)p.reservedSharedMemPerBlock},
      {cudaDevAttrHostRegisterSupported, p.hostRegisterSupported},
      {cudaDevAttrSparseCudaArraySupported, p.sparseCudaArraySupported},
      {cudaDevAttrHostRegisterReadOnlySupported, p.hostRegisterReadOnlySupported},
      {cudaDevAttrTimelineSemaphoreInteropSupported, p.timelineSemaphoreInteropSupported},
      {cudaDevAttrMemoryPoolsSupported, p.memoryPoolsSupported},
      {cudaDevAttrGPUDirectRDMASupported, p.gpuDirectRDMASupported},
      {cudaDevAttrGPUDirectRDMAFlushWritesOptions, (long long)p.gpuDirectRDMAFlushWritesOptions},
      {cudaDevAttrGPUDirectRDMAWritesOrdering, p.gpuDirectRDMAWritesOrdering},
      {cudaDevAttrMemoryPoolSupportedHandleTypes, (long long)p.memoryPoolSupportedHandleTypes},
      {cudaDevAttrClusterLaunch, p.clusterLaunch},
      {cudaDevAttrDeferredMappingCudaArraySupported, p.deferredMappingCudaArraySupported},
      {cudaDevAttrIpcEventSupport, p.ipcEventSupported},
      {cudaDevAttrNumaConfig, p.deviceNumaConfig},
      {cudaDevAttrNumaId, p.deviceNumaId},
      {cudaDevAttrMpsEnabled, p.mpsEnabled},
      {cudaDevAttrHostNumaId, p.hostNumaId},
      {cudaDevAttrGpuPciDeviceId, (long long)p.gpuPciDeviceID},
      {cudaDevAttrGpuPciSubsystemId, (long long)p.gpuPciSubsystemID},
      {cudaDevAttrHostNumaMultinodeIpcSupported, p.hostNumaMultinodeIpcSupported},
  };
  for (const Pair& q : pairs) {
    if (attribute(q.attr) != q.prop) {
      std::fprintf(stderr, "FAIL attribute %d = %d, its cudaDeviceProp field %lld\n", int(q.attr), attribute(q.attr),
                   q.prop);
      std::exit(1);
    }
  }
}

int main() {
  // Every attribute: a value; every other number: cudaErrorInvalidValue.
  int known = 0;
  for (int a = -1; a <= 200; ++a) {
    int v = -12345;
    cudaError_t e = cudaDeviceGetAttribute(&v, cudaDeviceAttr(a), 0);
    if (is_attribute(a)) {
      if (e != cudaSuccess) std::fprintf(stderr, "FAIL attribute %d: %s\n", a, cudaGetErrorName(e));
      CHECK(e == cudaSuccess);
      ++known;
    } else {
      CHECK(e == cudaErrorInvalidValue && v == -12345);
    }
  }
  CHECK(known == 137);
  // The ones that broke programs (GPU overlap, kernel timeout, 1D linear texture width,
  // single/double performance ratio, memory pools) have an Ampere part's values.
  CHECK(attribute(cudaDevAttrGpuOverlap) == 1);
  CHECK(attribute(cudaDevAttrKernelExecTimeout) == 0);
  CHECK(attribute(cudaDevAttrMaxTexture1DLinearWidth) >= (1 << 27));
  CHECK(attribute(cudaDevAttrSingleToDoublePrecisionPerfRatio) >= 1);
  CHECK(attribute(cudaDevAttrMemoryPoolsSupported) == 1);
  CHECK(attribute(cudaDevAttrComputeCapabilityMajor) == 8);
  CHECK(attribute(cudaDevAttrReservedSharedMemoryPerBlock) == 1024);
  CHECK(attribute(cudaDevAttrMemSyncDomainCount) == 1);
  CHECK(attribute(cudaDevAttrMaxPersistingL2CacheSize) > 0);
  CHECK(attribute(cudaDevAttrMaxPersistingL2CacheSize) <= attribute(cudaDevAttrL2CacheSize));

  cudaDeviceProp p;
  std::memset(&p, 0xff, sizeof p);
  CHECK_CUDA(cudaGetDeviceProperties(&p, 0));
  check_against_properties(p);

  // The unknown attributes' error is the last error, once; it is not sticky.
  CHECK_ERR(cudaPeekAtLastError(), cudaErrorInvalidValue);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidValue);
  CHECK_CUDA(cudaGetLastError());
  // A failing query right before a launch: the launch and its check succeed anyway.
  int v = 0;
  CHECK_ERR(cudaDeviceGetAttribute(&v, cudaDeviceAttr(44), 0), cudaErrorInvalidValue);
  const int n = 1000;
  std::vector<int> in(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = i - 300;
  int *din, *dout;
  CHECK_CUDA(cudaMalloc(&din, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dout, n * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  void* args[] = {&din, &dout, const_cast<int*>(&n)};
  CHECK_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(scale), dim3(4), dim3(256), args, 0, nullptr));
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidValue);  // still the query's: nothing cleared it
  scale<<<4, 256>>>(din, dout, n);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(out[i] == 3 * in[i] + 1);

  // Persisting L2: the limit up to the device's maximum, then reset.
  const size_t max_persisting = size_t(attribute(cudaDevAttrMaxPersistingL2CacheSize));
  size_t limit = 1;
  CHECK_CUDA(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
  CHECK(limit == 0);
  CHECK_CUDA(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, max_persisting / 2));
  CHECK_CUDA(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
  CHECK(limit == max_persisting / 2);
  CHECK_ERR(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, max_persisting + 1), cudaErrorInvalidValue);
  CHECK_CUDA(cudaCtxResetPersistingL2Cache());

  // An access policy window on a stream, read back; the default stream keeps its own.
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, -2));
  cudaStreamAttrValue w = {};
  CHECK_CUDA(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &w));
  CHECK(w.accessPolicyWindow.base_ptr == nullptr && w.accessPolicyWindow.num_bytes == 0);
  w.accessPolicyWindow.base_ptr = din;
  w.accessPolicyWindow.num_bytes = n * sizeof(int);
  w.accessPolicyWindow.hitRatio = 0.6f;
  w.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  w.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  CHECK_CUDA(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &w));
  cudaStreamAttrValue r = {};
  CHECK_CUDA(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &r));
  CHECK(r.accessPolicyWindow.base_ptr == din && r.accessPolicyWindow.num_bytes == n * sizeof(int) &&
        r.accessPolicyWindow.hitRatio == 0.6f && r.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting &&
        r.accessPolicyWindow.missProp == cudaAccessPropertyStreaming);
  CHECK_CUDA(cudaStreamGetAttribute(nullptr, cudaStreamAttributeAccessPolicyWindow, &r));
  CHECK(r.accessPolicyWindow.num_bytes == 0);
  CHECK_CUDA(cudaStreamGetAttribute(s, cudaStreamAttributePriority, &r));
  CHECK(r.priority == -2);
  CHECK_CUDA(cudaStreamGetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &r));
  CHECK(r.syncPolicy == cudaSyncPolicyAuto);
  // Too large a window, a persisting miss property, a hit ratio above 1.
  cudaStreamAttrValue bad = w;
  bad.accessPolicyWindow.num_bytes = size_t(attribute(cudaDevAttrMaxAccessPolicyWindowSize)) + 1;
  CHECK_ERR(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &bad), cudaErrorInvalidValue);
  bad = w;
  bad.accessPolicyWindow.missProp = cudaAccessPropertyPersisting;
  CHECK_ERR(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &bad), cudaErrorInvalidValue);
  bad = w;
  bad.accessPolicyWindow.hitRatio = 1.5f;
  CHECK_ERR(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &bad), cudaErrorInvalidValue);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidValue);
  // The window's stream runs its kernels as before.
  scale<<<4, 256, 0, s>>>(dout, din, n);
  CHECK_CUDA(cudaStreamSynchronize(s));
  CHECK_CUDA(cudaMemcpy(out.data(), din, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(out[i] == 3 * (3 * in[i] + 1) + 1);
  CHECK_CUDA(cudaStreamDestroy(s));
  CHECK_CUDA(cudaFree(din));
  CHECK_CUDA(cudaFree(dout));
  std::printf("PASS device_attributes (%d attributes)\n", known);
  return 0;
}
