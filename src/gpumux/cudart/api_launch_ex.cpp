// cudaLaunchKernelExC (the extensible launch behind cudaLaunchKernelEx) and the
// lookups of kernels by their host stub: cudaGetKernel, cudaGetFuncBySymbol,
// cudaFuncGetName.
#include <fmt/format.h>

#include "gpumux/cudart/state.h"

using gpumux::cudart::CudaError;
using gpumux::cudart::Runtime;

extern "C" {

// CUDA 13's cudaLaunchAttribute and cudaLaunchConfig_t (driver_types.h): an id
// padded to 8 bytes, then the 64-byte value union streams share.
struct cudaLaunchAttribute {
  int id;
  char pad[4];
  cudaLaunchAttributeValue val;
};
struct cudaLaunchConfig_t {
  dim3 gridDim;
  dim3 blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute* attrs;
  unsigned int numAttrs;
};
static_assert(sizeof(cudaLaunchAttribute) == 72 && sizeof(cudaLaunchConfig_t) == 56);

}  // extern "C"

namespace {

Runtime& rt() { return Runtime::get(); }

// cudaLaunchAttributeID values (CUDA 13).
enum : int {
  kIgnore = 0,
  kAccessPolicyWindow = 1,
  kCooperative = 2,
  kClusterDimension = 4,
  kClusterSchedulingPolicyPreference = 5,
  kProgrammaticStreamSerialization = 6,
  kMemSyncDomainMap = 9,
  kMemSyncDomain = 10,
  kPreferredClusterDimension = 11,
  kPreferredSharedMemoryCarveout = 14,
};

// Whether the launch is cooperative. Attributes that only permit or hint
// (an L2 access policy, a shared-memory carveout, memory sync domains, a
// dependent launch's early start, clusters of one block) leave the launch as
// it is, which is a legal execution of each; the others are refused rather
// than silently ignored.
bool cooperative_of(const cudaLaunchConfig_t& c) {
  if (c.numAttrs && !c.attrs) throw CudaError{cudaErrorInvalidValue, "numAttrs > 0 with null attrs"};
  bool cooperative = false;
  for (unsigned i = 0; i < c.numAttrs; ++i) {
    const cudaLaunchAttribute& a = c.attrs[i];
    switch (a.id) {
      case kCooperative: cooperative = a.val.cooperative != 0; break;
      case kClusterDimension:
      case kPreferredClusterDimension:
        if (a.val.clusterDim.x * a.val.clusterDim.y * a.val.clusterDim.z > 1)
          throw CudaError{cudaErrorNotSupported, "thread block clusters need compute capability 9.0; the simulated "
                                                 "device is 8.0"};
        break;
      case kIgnore:
      case kAccessPolicyWindow:
      case kClusterSchedulingPolicyPreference:
      case kProgrammaticStreamSerialization:
      case kMemSyncDomainMap:
      case kMemSyncDomain:
      case kPreferredSharedMemoryCarveout: break;
      default:
        throw CudaError{cudaErrorNotSupported,
                        fmt::format("launch attribute {} is not supported by gpumux (docs/cuda-programs.md)", a.id)};
    }
  }
  return cooperative;
}

}  // namespace

extern "C" {

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) {
  return rt().device_call("cudaLaunchKernelExC", [&] {
    if (!config) throw CudaError{cudaErrorInvalidValue, "null launch configuration"};
    const bool cooperative = cooperative_of(*config);
    rt().launch(rt().kernel(func), config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
                config->stream, cooperative);
  });
}

// A kernel's handle is its registration entry, as __cudaGetKernel gives it.
cudaError_t cudaGetKernel(cudaKernel_t* kernel, const void* entry) {
  return rt().call("cudaGetKernel", [&] {
    if (!kernel) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    *kernel = reinterpret_cast<cudaKernel_t>(&rt().kernel(entry));
  });
}
cudaError_t cudaGetFuncBySymbol(void** function, const void* symbol) {
  return rt().call("cudaGetFuncBySymbol", [&] {
    if (!function) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    *function = &rt().kernel(symbol);
  });
}
// The device function's (mangled) name, as the real runtime reports it.
cudaError_t cudaFuncGetName(const char** name, const void* func) {
  return rt().call("cudaFuncGetName", [&] {
    if (!name) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    *name = rt().kernel(func).name.c_str();
  });
}

}  // extern "C"
