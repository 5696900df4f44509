// cuGetProcAddress: the implemented driver functions by base name, as the
// runtime's cudaGetDriverEntryPoint asks for them (api_single_device.cpp).
// Functions gpumux does not implement are "not found" (a null pointer and
// CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, as the driver answers for a symbol it
// lacks), so that programs probing for optional functions take their other path.
#include <dlfcn.h>

#include <cstring>
#include <string>

#include <fmt/format.h>

#include "gpumux/cudart/driver/driver_state.h"

using gpumux::cudart::driver::fail;

namespace {

constexpr int kDriverVersion = 13000;  // cuDriverGetVersion's
enum : int { kFound = 0, kSymbolNotFound = 1 };  // CUdriverProcAddressQueryResult

// Base names of the implemented functions (api_driver.cpp, api_green.cpp, api_context.cpp, this file).
constexpr const char* kImplemented[] = {
    "cuInit", "cuDriverGetVersion", "cuDeviceGetCount", "cuDeviceGet", "cuDeviceGetAttribute", "cuGetErrorName",
    "cuGetErrorString", "cuCtxSynchronize", "cuStreamCreate", "cuStreamCreateWithPriority", "cuStreamSynchronize",
    "cuStreamDestroy", "cuStreamGetGreenCtx", "cuDeviceGetDevResource", "cuDevSmResourceSplitByCount",
    "cuDevResourceGenerateDesc", "cuGreenCtxCreate", "cuGreenCtxDestroy", "cuGreenCtxGetDevResource",
    "cuGreenCtxGetId", "cuGreenCtxStreamCreate", "cuGetProcAddress", "cuCtxFromGreenCtx", "cuCtxGetCurrent",
    "cuCtxSetCurrent", "cuCtxPushCurrent", "cuCtxPopCurrent", "cuCtxGetDevice"};

// The exported name of `base` at `version`: cuda.h's versioned names for the
// functions that have one (cuStreamDestroy_v2, cuCtxPushCurrent_v2 and
// cuCtxPopCurrent_v2 since CUDA 4.0, cuGetProcAddress_v2 since 12.0). The
// version at which each function appeared is not checked.
std::string exported_name(const char* base, int version) {
  for (const char* v2 : {"cuStreamDestroy", "cuCtxPushCurrent", "cuCtxPopCurrent"})
    if (std::strcmp(base, v2) == 0 && version >= 4000) return std::string(base) + "_v2";
  if (std::strcmp(base, "cuGetProcAddress") == 0 && version >= 12000) return "cuGetProcAddress_v2";
  return base;
}

}  // namespace

extern "C" {

// Flags (legacy or per-thread default stream) select the same functions:
// every call is ordered after the program's earlier work anyway.
CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion, unsigned long long flags,
                             int* symbolStatus) {
  const char* api = "cuGetProcAddress";
  if (!symbol || !pfn) return fail(api, CUDA_ERROR_INVALID_VALUE, "null symbol or pfn");
  if (cudaVersion > kDriverVersion)
    return fail(api, CUDA_ERROR_INVALID_VALUE, fmt::format("CUDA version {} is newer than the driver's {}",
                                                           cudaVersion, kDriverVersion));
  if (flags > 3) return fail(api, CUDA_ERROR_INVALID_VALUE, fmt::format("flags {:#x}", flags));
  *pfn = nullptr;
  for (const char* base : kImplemented)
    if (std::strcmp(base, symbol) == 0) {
      void* self = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);  // this library, loaded
      *pfn = self ? dlsym(self, exported_name(base, cudaVersion).c_str()) : nullptr;
      if (self) dlclose(self);
    }
  if (!*pfn) fmt::print(stderr, "gpumux: {}: {} is not implemented by gpumux's libcuda.so.1\n", api, symbol);
  if (symbolStatus) *symbolStatus = *pfn ? kFound : kSymbolNotFound;
  return CUDA_SUCCESS;
}

CUresult cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, unsigned long long flags) {
  return cuGetProcAddress_v2(symbol, pfn, cudaVersion, flags, nullptr);
}

}  // extern "C"
