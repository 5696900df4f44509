#include "gpumux/cudart/device_attributes.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "gpumux/cudart/state.h"
#include "gpumux/ptx/resources.h"

namespace gpumux::cudart {

namespace {

// Texture and surface size limits of compute capability 8.0 (CUDA C++
// Programming Guide, "Technical Specifications per Compute Capability"; the
// 2D linear limits and the 1D linear width as an A100 reports them).
constexpr int kTex1D = 131072, kTex2D[2] = {131072, 65536}, kTex3D = 16384, kTex3DAlt[3] = {8192, 8192, 32768};
constexpr int kTexLayered = 32768, kLayers = 2048, kCubemapLayers = 2046, kTexMipmap = 32768;
constexpr int kTex2DLinear[3] = {131072, 65000, 2097120}, kTex1DLinear = 1 << 27;
constexpr int kSurface1D = 32768, kSurface2D[2] = {131072, 65536}, kSurface3D = 16384;
// An A100's largest cudaAccessPolicyWindow::num_bytes (cudaDevAttrMaxAccessPolicyWindowSize).
constexpr int kMaxAccessPolicyWindow = 134213632;
// Memory synchronization domains of compute capability 8.0 (the domains arrive with 9.0).
constexpr int kMemSyncDomains = 1;

}  // namespace

cudaDeviceProp device_properties(const GpuConfig& c, const runtime::DeviceLimits& lim, uint32_t sms) {
  cudaDeviceProp p{};
  std::snprintf(p.name, sizeof p.name, "gpumux %s", c.gpu.name.c_str());
  std::memcpy(p.uuid.bytes, "gpumux-simulated", 16);
  p.totalGlobalMem = kReportedGlobalMemory;
  p.sharedMemPerBlock = lim.max_smem_per_block;
  p.regsPerBlock = int(std::min<uint32_t>(c.sm.registers, 65536));
  p.warpSize = 32;
  p.memPitch = 0x7fffffff;
  p.maxThreadsPerBlock = int(lim.max_threads_per_block);
  p.maxThreadsDim[0] = p.maxThreadsDim[1] = int(std::min<uint32_t>(1024, lim.max_threads_per_block));
  p.maxThreadsDim[2] = 64;
  p.maxGridSize[0] = 0x7fffffff;
  p.maxGridSize[1] = p.maxGridSize[2] = 65535;
  p.totalConstMem = 65536;
  p.major = 8;  // the PTX gpumux executes is compute_80's
  p.minor = 0;
  p.textureAlignment = 512;
  p.texturePitchAlignment = 32;
  p.multiProcessorCount = int(sms);
  p.maxTexture1D = kTex1D;
  p.maxTexture1DMipmap = kTexMipmap;
  p.maxTexture2D[0] = kTex2D[0];
  p.maxTexture2D[1] = kTex2D[1];
  p.maxTexture2DMipmap[0] = p.maxTexture2DMipmap[1] = kTexMipmap;
  std::copy(kTex2DLinear, kTex2DLinear + 3, p.maxTexture2DLinear);
  p.maxTexture2DGather[0] = p.maxTexture2DGather[1] = kTexLayered;
  p.maxTexture3D[0] = p.maxTexture3D[1] = p.maxTexture3D[2] = kTex3D;
  std::copy(kTex3DAlt, kTex3DAlt + 3, p.maxTexture3DAlt);
  p.maxTextureCubemap = kTexLayered;
  p.maxTexture1DLayered[0] = kTexLayered;
  p.maxTexture1DLayered[1] = kLayers;
  p.maxTexture2DLayered[0] = p.maxTexture2DLayered[1] = kTexLayered;
  p.maxTexture2DLayered[2] = kLayers;
  p.maxTextureCubemapLayered[0] = kTexLayered;
  p.maxTextureCubemapLayered[1] = kCubemapLayers;
  p.maxSurface1D = kSurface1D;
  p.maxSurface2D[0] = kSurface2D[0];
  p.maxSurface2D[1] = kSurface2D[1];
  p.maxSurface3D[0] = p.maxSurface3D[1] = p.maxSurface3D[2] = kSurface3D;
  p.maxSurface1DLayered[0] = kSurface1D;
  p.maxSurface1DLayered[1] = kLayers;
  p.maxSurface2DLayered[0] = p.maxSurface2DLayered[1] = kSurface1D;
  p.maxSurface2DLayered[2] = kLayers;
  p.maxSurfaceCubemap = kSurface1D;
  p.maxSurfaceCubemapLayered[0] = kSurface1D;
  p.maxSurfaceCubemapLayered[1] = kCubemapLayers;
  p.surfaceAlignment = 512;
  p.concurrentKernels = 1;
  p.asyncEngineCount = int(c.pcie.copy_engines);
  p.unifiedAddressing = 1;
  p.memoryBusWidth = int(c.dram.bus_bytes * 8 * c.gpu.num_partitions);
  p.l2CacheSize = int(uint64_t(c.l2.size_kb) * 1024);
  // An A100 lets 30 of its 40 MB of L2 persist: the same share of this L2.
  p.persistingL2CacheMaxSize = p.l2CacheSize / 4 * 3;
  p.maxThreadsPerMultiProcessor = int(c.sm.max_threads);
  p.streamPrioritiesSupported = 1;
  p.globalL1CacheSupported = 1;
  p.localL1CacheSupported = 1;
  p.sharedMemPerMultiprocessor = c.sm.shared_mem_bytes;
  p.regsPerMultiprocessor = int(c.sm.registers);
  p.managedMemory = 1;
  p.concurrentManagedAccess = 0;  // see cudart/managed.h
  p.computePreemptionSupported = 1;
  p.cooperativeLaunch = 1;  // grids that fit the GPU at once (cudaLaunchCooperativeKernel)
  p.sharedMemPerBlockOptin = lim.max_smem_per_block;
  p.maxBlocksPerMultiProcessor = int(c.sm.tb_slots);
  p.accessPolicyMaxWindowSize = kMaxAccessPolicyWindow;
  p.reservedSharedMemPerBlock = ptx::kReservedSmemBytes;
  p.hostRegisterSupported = 1;     // cudaHostRegister is accepted
  p.memoryPoolsSupported = 1;      // cudaMallocAsync, cudaMemPool* (api_mempool.cpp)
  p.deviceNumaId = -1;             // no NUMA node
  p.hostNumaId = -1;
  // Everything else is 0: not integrated, no mapped or pageable host memory,
  // no ECC, no PCI identity, no IPC, no interop, no clusters (compute 9.0).
  return p;
}

std::optional<int> device_attribute(const GpuConfig& c, const runtime::DeviceLimits& lim, uint32_t sms, int attr) {
  const cudaDeviceProp p = device_properties(c, lim, sms);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: return p.maxThreadsPerBlock;
    case cudaDevAttrMaxBlockDimX: return p.maxThreadsDim[0];
    case cudaDevAttrMaxBlockDimY: return p.maxThreadsDim[1];
    case cudaDevAttrMaxBlockDimZ: return p.maxThreadsDim[2];
    case cudaDevAttrMaxGridDimX: return p.maxGridSize[0];
    case cudaDevAttrMaxGridDimY: return p.maxGridSize[1];
    case cudaDevAttrMaxGridDimZ: return p.maxGridSize[2];
    case cudaDevAttrMaxSharedMemoryPerBlock: return int(p.sharedMemPerBlock);
    case cudaDevAttrTotalConstantMemory: return int(p.totalConstMem);
    case cudaDevAttrWarpSize: return p.warpSize;
    case cudaDevAttrMaxPitch: return int(p.memPitch);
    case cudaDevAttrMaxRegistersPerBlock: return p.regsPerBlock;
    case cudaDevAttrClockRate: return int(c.clock.core_mhz * 1000);  // kHz
    case cudaDevAttrTextureAlignment: return int(p.textureAlignment);
    case cudaDevAttrGpuOverlap: return p.asyncEngineCount > 0;  // copies overlap kernels
    case cudaDevAttrMultiProcessorCount: return p.multiProcessorCount;
    case cudaDevAttrKernelExecTimeout: return 0;  // no display watchdog
    case cudaDevAttrIntegrated: return p.integrated;
    case cudaDevAttrCanMapHostMemory: return p.canMapHostMemory;
    case cudaDevAttrComputeMode: return 0;  // cudaComputeModeDefault
    case cudaDevAttrMaxTexture1DWidth: return p.maxTexture1D;
    case cudaDevAttrMaxTexture2DWidth: return p.maxTexture2D[0];
    case cudaDevAttrMaxTexture2DHeight: return p.maxTexture2D[1];
    case cudaDevAttrMaxTexture3DWidth: return p.maxTexture3D[0];
    case cudaDevAttrMaxTexture3DHeight: return p.maxTexture3D[1];
    case cudaDevAttrMaxTexture3DDepth: return p.maxTexture3D[2];
    case cudaDevAttrMaxTexture2DLayeredWidth: return p.maxTexture2DLayered[0];
    case cudaDevAttrMaxTexture2DLayeredHeight: return p.maxTexture2DLayered[1];
    case cudaDevAttrMaxTexture2DLayeredLayers: return p.maxTexture2DLayered[2];
    case cudaDevAttrSurfaceAlignment: return int(p.surfaceAlignment);
    case cudaDevAttrConcurrentKernels: return p.concurrentKernels;
    case cudaDevAttrEccEnabled: return p.ECCEnabled;
    case cudaDevAttrPciBusId: return p.pciBusID;
    case cudaDevAttrPciDeviceId: return p.pciDeviceID;
    case cudaDevAttrTccDriver: return p.tccDriver;
    case cudaDevAttrMemoryClockRate: return int(c.clock.dram_mhz * 1000);  // kHz
    case cudaDevAttrGlobalMemoryBusWidth: return p.memoryBusWidth;
    case cudaDevAttrL2CacheSize: return p.l2CacheSize;
    case cudaDevAttrMaxThreadsPerMultiProcessor: return p.maxThreadsPerMultiProcessor;
    case cudaDevAttrAsyncEngineCount: return p.asyncEngineCount;
    case cudaDevAttrUnifiedAddressing: return p.unifiedAddressing;
    case cudaDevAttrMaxTexture1DLayeredWidth: return p.maxTexture1DLayered[0];
    case cudaDevAttrMaxTexture1DLayeredLayers: return p.maxTexture1DLayered[1];
    case cudaDevAttrMaxTexture2DGatherWidth: return p.maxTexture2DGather[0];
    case cudaDevAttrMaxTexture2DGatherHeight: return p.maxTexture2DGather[1];
    case cudaDevAttrMaxTexture3DWidthAlt: return p.maxTexture3DAlt[0];
    case cudaDevAttrMaxTexture3DHeightAlt: return p.maxTexture3DAlt[1];
    case cudaDevAttrMaxTexture3DDepthAlt: return p.maxTexture3DAlt[2];
    case cudaDevAttrPciDomainId: return p.pciDomainID;
    case cudaDevAttrTexturePitchAlignment: return int(p.texturePitchAlignment);
    case cudaDevAttrMaxTextureCubemapWidth: return p.maxTextureCubemap;
    case cudaDevAttrMaxTextureCubemapLayeredWidth: return p.maxTextureCubemapLayered[0];
    case cudaDevAttrMaxTextureCubemapLayeredLayers: return p.maxTextureCubemapLayered[1];
    case cudaDevAttrMaxSurface1DWidth: return p.maxSurface1D;
    case cudaDevAttrMaxSurface2DWidth: return p.maxSurface2D[0];
    case cudaDevAttrMaxSurface2DHeight: return p.maxSurface2D[1];
    case cudaDevAttrMaxSurface3DWidth: return p.maxSurface3D[0];
    case cudaDevAttrMaxSurface3DHeight: return p.maxSurface3D[1];
    case cudaDevAttrMaxSurface3DDepth: return p.maxSurface3D[2];
    case cudaDevAttrMaxSurface1DLayeredWidth: return p.maxSurface1DLayered[0];
    case cudaDevAttrMaxSurface1DLayeredLayers: return p.maxSurface1DLayered[1];
    case cudaDevAttrMaxSurface2DLayeredWidth: return p.maxSurface2DLayered[0];
    case cudaDevAttrMaxSurface2DLayeredHeight: return p.maxSurface2DLayered[1];
    case cudaDevAttrMaxSurface2DLayeredLayers: return p.maxSurface2DLayered[2];
    case cudaDevAttrMaxSurfaceCubemapWidth: return p.maxSurfaceCubemap;
    case cudaDevAttrMaxSurfaceCubemapLayeredWidth: return p.maxSurfaceCubemapLayered[0];
    case cudaDevAttrMaxSurfaceCubemapLayeredLayers: return p.maxSurfaceCubemapLayered[1];
    case cudaDevAttrMaxTexture1DLinearWidth: return kTex1DLinear;
    case cudaDevAttrMaxTexture2DLinearWidth: return p.maxTexture2DLinear[0];
    case cudaDevAttrMaxTexture2DLinearHeight: return p.maxTexture2DLinear[1];
    case cudaDevAttrMaxTexture2DLinearPitch: return p.maxTexture2DLinear[2];
    case cudaDevAttrMaxTexture2DMipmappedWidth: return p.maxTexture2DMipmap[0];
    case cudaDevAttrMaxTexture2DMipmappedHeight: return p.maxTexture2DMipmap[1];
    case cudaDevAttrComputeCapabilityMajor: return p.major;
    case cudaDevAttrComputeCapabilityMinor: return p.minor;
    case cudaDevAttrMaxTexture1DMipmappedWidth: return p.maxTexture1DMipmap;
    case cudaDevAttrStreamPrioritiesSupported: return p.streamPrioritiesSupported;
    case cudaDevAttrGlobalL1CacheSupported: return p.globalL1CacheSupported;
    case cudaDevAttrLocalL1CacheSupported: return p.localL1CacheSupported;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: return int(p.sharedMemPerMultiprocessor);
    case cudaDevAttrMaxRegistersPerMultiprocessor: return p.regsPerMultiprocessor;
    case cudaDevAttrManagedMemory: return p.managedMemory;
    case cudaDevAttrIsMultiGpuBoard: return p.isMultiGpuBoard;
    case cudaDevAttrMultiGpuBoardGroupID: return p.multiGpuBoardGroupID;
    case cudaDevAttrHostNativeAtomicSupported: return p.hostNativeAtomicSupported;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio:  // warp instructions per cycle of the FP32 and FP64 units
      return int(std::max<uint32_t>(1, c.sm.interval.fp64 / std::max<uint32_t>(1, c.sm.interval.fp32)));
    case cudaDevAttrPageableMemoryAccess: return p.pageableMemoryAccess;
    case cudaDevAttrConcurrentManagedAccess: return p.concurrentManagedAccess;
    case cudaDevAttrComputePreemptionSupported: return p.computePreemptionSupported;
    case cudaDevAttrCanUseHostPointerForRegisteredMem: return p.canUseHostPointerForRegisteredMem;
    case cudaDevAttrReserved92:  // the deprecated v1 stream memory operations
    case cudaDevAttrReserved93:
    case cudaDevAttrReserved94: return 0;
    case cudaDevAttrCooperativeLaunch: return p.cooperativeLaunch;
    case cudaDevAttrReserved96: return 0;  // cudaLaunchCooperativeKernelMultiDevice is not supported
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: return int(p.sharedMemPerBlockOptin);
    case cudaDevAttrCanFlushRemoteWrites: return 0;
    case cudaDevAttrHostRegisterSupported: return p.hostRegisterSupported;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables: return p.pageableMemoryAccessUsesHostPageTables;
    case cudaDevAttrDirectManagedMemAccessFromHost: return p.directManagedMemAccessFromHost;
    case cudaDevAttrMaxBlocksPerMultiprocessor: return p.maxBlocksPerMultiProcessor;
    case cudaDevAttrMaxPersistingL2CacheSize: return p.persistingL2CacheMaxSize;
    case cudaDevAttrMaxAccessPolicyWindowSize: return p.accessPolicyMaxWindowSize;
    case cudaDevAttrReservedSharedMemoryPerBlock: return int(p.reservedSharedMemPerBlock);
    case cudaDevAttrSparseCudaArraySupported: return p.sparseCudaArraySupported;
    case cudaDevAttrHostRegisterReadOnlySupported: return p.hostRegisterReadOnlySupported;
    case cudaDevAttrTimelineSemaphoreInteropSupported: return p.timelineSemaphoreInteropSupported;
    case cudaDevAttrMemoryPoolsSupported: return p.memoryPoolsSupported;
    case cudaDevAttrGPUDirectRDMASupported: return p.gpuDirectRDMASupported;
    case cudaDevAttrGPUDirectRDMAFlushWritesOptions: return int(p.gpuDirectRDMAFlushWritesOptions);
    case cudaDevAttrGPUDirectRDMAWritesOrdering: return p.gpuDirectRDMAWritesOrdering;
    case cudaDevAttrMemoryPoolSupportedHandleTypes: return int(p.memoryPoolSupportedHandleTypes);
    case cudaDevAttrClusterLaunch: return p.clusterLaunch;
    case cudaDevAttrDeferredMappingCudaArraySupported: return p.deferredMappingCudaArraySupported;
    case cudaDevAttrReserved122:  // 64-bit stream memory operations, wait-value NOR, dma_buf
    case cudaDevAttrReserved123:
    case cudaDevAttrReserved124: return 0;
    case cudaDevAttrIpcEventSupport: return p.ipcEventSupported;
    case cudaDevAttrMemSyncDomainCount: return kMemSyncDomains;
    case cudaDevAttrReserved127:  // tensor maps (compute 9.0), fabric handles
    case cudaDevAttrReserved128: return 0;
    case cudaDevAttrReserved129: return p.unifiedFunctionPointers;
    case cudaDevAttrNumaConfig: return p.deviceNumaConfig;
    case cudaDevAttrNumaId: return p.deviceNumaId;
    case cudaDevAttrReserved132: return 0;  // multicast
    case cudaDevAttrMpsEnabled: return p.mpsEnabled;
    case cudaDevAttrHostNumaId: return p.hostNumaId;
    case cudaDevAttrD3D12CigSupported: return 0;
    case cudaDevAttrVulkanCigSupported: return 0;
    case cudaDevAttrGpuPciDeviceId: return int(p.gpuPciDeviceID);
    case cudaDevAttrGpuPciSubsystemId: return int(p.gpuPciSubsystemID);
    case cudaDevAttrReserved141: return 0;  // host NUMA virtual memory management
    case cudaDevAttrHostNumaMemoryPoolsSupported: return 0;
    case cudaDevAttrHostNumaMultinodeIpcSupported: return p.hostNumaMultinodeIpcSupported;
    case cudaDevAttrHostMemoryPoolsSupported: return 0;  // pools hold device memory only
    case cudaDevAttrReserved145: return 0;                // host virtual memory management
    case cudaDevAttrOnlyPartialHostNativeAtomicSupported: return 0;
    default: return std::nullopt;
  }
}

}  // namespace gpumux::cudart
