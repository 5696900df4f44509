// cudaGetDriverEntryPoint and ByVersion: driver functions through the
// driver's own cuGetProcAddress, as NVIDIA's runtime does. The driver is
// gpumux's libcuda.so.1 (driver/, docs/cuda-programs.md "Driver API"),
// loaded from the runtime's folder's search path if the program did not link it.
#include <dlfcn.h>

#include <fmt/format.h>

#include "gpumux/cudart/state.h"

using gpumux::cudart::CudaError;
using gpumux::cudart::Runtime;

extern "C" {

cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** funcPtr, unsigned int cudaVersion,
                                             unsigned long long flags, int* driverStatus) {
  return Runtime::get().call("cudaGetDriverEntryPointByVersion", [&] {
    if (!symbol || !funcPtr) throw CudaError{cudaErrorInvalidValue, "null symbol or funcPtr"};
    void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    using GetProcAddress = int (*)(const char*, void**, int, unsigned long long, int*);
    auto get = driver ? reinterpret_cast<GetProcAddress>(dlsym(driver, "cuGetProcAddress_v2")) : nullptr;
    if (!get)
      throw CudaError{cudaErrorNotSupported,
                      fmt::format("gpumux's libcuda.so.1 did not load ({}): run the program with gpumux exec",
                                  driver ? "no cuGetProcAddress_v2" : dlerror())};
    // The flags (cudaEnable*) and query results (cudaDriverEntryPoint*) number
    // as the driver's CU_GET_PROC_ADDRESS_* do; so do the errors it returns.
    if (int e = get(symbol, funcPtr, int(cudaVersion), flags, driverStatus))
      throw CudaError{e, fmt::format("cuGetProcAddress of {}", symbol)};
  });
}

cudaError_t cudaGetDriverEntryPoint(const char* symbol, void** funcPtr, unsigned long long flags, int* driverStatus) {
  return cudaGetDriverEntryPointByVersion(symbol, funcPtr, 13000, flags, driverStatus);  // this runtime's version
}

}  // extern "C"
