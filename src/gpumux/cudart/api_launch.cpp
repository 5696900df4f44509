// Entry points of nvcc's generated host code (registration, <<<>>>) and the
// launch, function-attribute and occupancy API.
#include <algorithm>

#include <fmt/format.h>

#include "gpumux/cudart/state.h"
#include "gpumux/exec/loaded_module.h"

using gpumux::cudart::CudaError;
using gpumux::cudart::Runtime;

namespace {

Runtime& rt() { return Runtime::get(); }

}  // namespace

extern "C" {

void** __cudaRegisterFatBinary(void* fatCubin) { return rt().register_fatbin(fatCubin); }

void __cudaRegisterFatBinaryEnd(void** handle) { rt().finish_registration(handle); }

void __cudaUnregisterFatBinary(void**) {}  // modules live until the process ends

char __cudaInitModule(void**) { return 1; }

void __cudaRegisterFunction(void** handle, const char* hostFun, char*, const char* deviceName, int, uint3*, uint3*,
                            dim3*, dim3*, int*) {
  rt().register_function(handle, hostFun, deviceName);
}

void __cudaRegisterVar(void** handle, char* hostVar, char*, const char* deviceName, int, size_t size, int, int) {
  rt().register_variable(handle, hostVar, deviceName, size, nullptr);
}

void __cudaRegisterManagedVar(void** handle, void** hostVarPtrAddress, char*, const char* deviceName, int,
                              size_t size, int, int) {
  rt().register_variable(handle, hostVarPtrAddress, deviceName, size, hostVarPtrAddress);
}

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, cudaStream_t stream) {
  rt().push_config({gridDim, blockDim, sharedMem, stream});
  return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem, void* stream) {
  auto c = rt().pop_config();
  if (!c) return cudaErrorMissingConfiguration;
  *gridDim = c->grid;
  *blockDim = c->block;
  *sharedMem = c->smem;
  *static_cast<cudaStream_t*>(stream) = c->stream;
  return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* func) {
  return rt().call("__cudaGetKernel", [&] { *kernel = reinterpret_cast<cudaKernel_t>(&rt().kernel(func)); });
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                               cudaStream_t stream) {
  return rt().device_call("cudaLaunchKernel", [&] {
    if (!kernel) throw CudaError{cudaErrorInvalidDeviceFunction, "launch of an unregistered kernel"};
    rt().launch(*reinterpret_cast<gpumux::cudart::KernelEntry*>(kernel), gridDim, blockDim, args, sharedMem,
                stream, false);
  });
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args,
                                    size_t sharedMem, cudaStream_t stream) {
  return __cudaLaunchKernel(kernel, gridDim, blockDim, args, sharedMem, stream);
}

cudaError_t cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                             cudaStream_t stream) {
  return rt().device_call("cudaLaunchKernel", [&] {
    rt().launch(rt().kernel(func), gridDim, blockDim, args, sharedMem, stream, false);
  });
}

cudaError_t cudaLaunchKernel_ptsz(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                                  cudaStream_t stream) {
  return cudaLaunchKernel(func, gridDim, blockDim, args, sharedMem, stream);
}

// The _ptsz variant is this function under a second name (CMakeLists.txt).
cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                                        size_t sharedMem, cudaStream_t stream) {
  return rt().device_call("cudaLaunchCooperativeKernel", [&] {
    rt().launch(rt().kernel(func), gridDim, blockDim, args, sharedMem, stream, true);
  });
}

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
  return rt().call("cudaFuncGetAttributes", [&] {
    if (!attr) throw CudaError{cudaErrorInvalidValue, "null attributes"};
    gpumux::cudart::KernelEntry& ke = rt().kernel(func);
    gpumux::runtime::Kernel k = rt().loaded_kernel(ke);
    const gpumux::exec::KernelLayout& kl = k.module().kernel(k.index());
    const gpumux::ptx::Function& fn = k.function();
    *attr = {};
    attr->sharedSizeBytes = kl.shared.dynamic_offset;
    attr->localSizeBytes = kl.resources.local_bytes;
    uint64_t max_threads = rt().limits().max_threads_per_block;
    if (fn.maxntid[0])
      max_threads = std::min<uint64_t>(max_threads, uint64_t(fn.maxntid[0]) * std::max(1u, fn.maxntid[1]) *
                                                        std::max(1u, fn.maxntid[2]));
    attr->maxThreadsPerBlock = int(max_threads);
    attr->numRegs = int(kl.resources.registers);
    attr->ptxVersion = 80;
    attr->binaryVersion = 80;
    uint64_t max_smem = rt().limits().max_smem_per_block - kl.shared.dynamic_offset;
    attr->maxDynamicSharedSizeBytes = ke.max_dynamic_smem >= 0 ? ke.max_dynamic_smem : int(max_smem);
    attr->preferredShmemCarveout = -1;
  });
}

cudaError_t cudaFuncSetAttribute(const void* func, int attr, int value) {
  return rt().call("cudaFuncSetAttribute", [&] {
    gpumux::cudart::KernelEntry& ke = rt().kernel(func);
    gpumux::runtime::Kernel k = rt().loaded_kernel(ke);
    if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
      uint64_t static_smem = k.module().kernel(k.index()).shared.dynamic_offset;
      if (value < 0 || static_smem + uint64_t(value) > rt().limits().max_smem_per_block)
        throw CudaError{cudaErrorInvalidValue,
                        fmt::format("{} bytes of dynamic shared memory for {}: at most {} fit a block",
                                    value, ke.name, rt().limits().max_smem_per_block - static_smem)};
      ke.max_dynamic_smem = value;
    } else if (attr != cudaFuncAttributePreferredSharedMemoryCarveout) {
      throw CudaError{cudaErrorInvalidValue, fmt::format("function attribute {} is not supported", attr)};
    }
  });
}

// The L1/shared split is fixed by the GPU config: cache preferences are hints.
cudaError_t cudaFuncSetCacheConfig(const void* func, int) {
  return rt().call("cudaFuncSetCacheConfig", [&] { rt().kernel(func); });
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* func, int blockSize,
                                                                   size_t dynamicSMemSize, unsigned int) {
  return rt().call("cudaOccupancyMaxActiveBlocksPerMultiprocessor", [&] {
    if (!numBlocks) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    *numBlocks = rt().blocks_per_sm(rt().loaded_kernel(rt().kernel(func)), blockSize, dynamicSMemSize);
  });
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func, int blockSize,
                                                          size_t dynamicSMemSize) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize, 0);
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* dynamicSmemSize, const void* func, int numBlocks,
                                                      int blockSize) {
  return rt().call("cudaOccupancyAvailableDynamicSMemPerBlock", [&] {
    if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0) throw CudaError{cudaErrorInvalidValue, ""};
    gpumux::runtime::Kernel k = rt().loaded_kernel(rt().kernel(func));
    uint64_t static_smem = k.module().kernel(k.index()).shared.dynamic_offset;
    uint64_t per_block = rt().config().sm.shared_mem_bytes / uint64_t(numBlocks);
    per_block = std::min<uint64_t>(per_block, rt().limits().max_smem_per_block);
    *dynamicSmemSize = per_block > static_smem ? per_block - static_smem : 0;
  });
}

}  // extern "C"
