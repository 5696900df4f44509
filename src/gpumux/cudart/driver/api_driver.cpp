// The driver calls programs make around green contexts: initialization, the
// device, versions, error names, and streams (the runtime's streams: a
// driver stream is a cudaStream_t). Each delegates to libcudart.so.13's entry
// points, whose errors pass through (CUDA numbers them alike).
#include <fmt/format.h>

#include "gpumux/cudart/driver/driver_state.h"

using gpumux::cudart::driver::check_initialized;
using gpumux::cudart::driver::Driver;
using gpumux::cudart::driver::fail;

namespace {

// The driver's names of the codes this library returns and of those the
// runtime passes through (device faults); the descriptions are the runtime's,
// which numbers these errors alike.
struct ErrorName {
  CUresult code;
  const char* name;
};
#define GPUMUX_CU_ERROR(code) {code, #code}
constexpr ErrorName kErrors[] = {
    GPUMUX_CU_ERROR(CUDA_SUCCESS),
    GPUMUX_CU_ERROR(CUDA_ERROR_INVALID_VALUE),
    GPUMUX_CU_ERROR(CUDA_ERROR_NOT_INITIALIZED),
    GPUMUX_CU_ERROR(CUDA_ERROR_INVALID_DEVICE),
    GPUMUX_CU_ERROR(CUDA_ERROR_INVALID_CONTEXT),
    GPUMUX_CU_ERROR(CUDA_ERROR_INVALID_HANDLE),
    GPUMUX_CU_ERROR(CUDA_ERROR_ILLEGAL_ADDRESS),
    GPUMUX_CU_ERROR(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES),
    GPUMUX_CU_ERROR(CUDA_ERROR_ASSERT),
    GPUMUX_CU_ERROR(CUDA_ERROR_HARDWARE_STACK_ERROR),
    GPUMUX_CU_ERROR(CUDA_ERROR_ILLEGAL_INSTRUCTION),
    GPUMUX_CU_ERROR(CUDA_ERROR_MISALIGNED_ADDRESS),
    GPUMUX_CU_ERROR(CUDA_ERROR_LAUNCH_FAILED),
    GPUMUX_CU_ERROR(CUDA_ERROR_NOT_SUPPORTED),
    GPUMUX_CU_ERROR(CUDA_ERROR_INVALID_RESOURCE_TYPE),
    GPUMUX_CU_ERROR(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION),
    GPUMUX_CU_ERROR(CUDA_ERROR_UNKNOWN),
};
#undef GPUMUX_CU_ERROR

const char* error_name(CUresult e) {
  for (const ErrorName& n : kErrors)
    if (n.code == e) return n.name;
  return nullptr;
}

}  // namespace

extern "C" {

CUresult cuInit(unsigned int flags) {
  if (flags != 0) return fail("cuInit", CUDA_ERROR_INVALID_VALUE, fmt::format("flags {:#x}: must be 0", flags));
  Driver::get().initialized = true;
  return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int* version) {
  if (!version) return CUDA_ERROR_INVALID_VALUE;
  *version = 13000;  // the runtime's (cudaDriverGetVersion)
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int* count) {
  if (CUresult e = check_initialized("cuDeviceGetCount")) return e;
  if (!count) return fail("cuDeviceGetCount", CUDA_ERROR_INVALID_VALUE, "null count");
  *count = 1;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (CUresult e = check_initialized("cuDeviceGet")) return e;
  if (!device) return fail("cuDeviceGet", CUDA_ERROR_INVALID_VALUE, "null device");
  if (ordinal != 0)
    return fail("cuDeviceGet", CUDA_ERROR_INVALID_DEVICE, fmt::format("device {}: gpumux has device 0", ordinal));
  *device = 0;
  return CUDA_SUCCESS;
}

// CUdevice_attribute numbers the attributes as cudaDeviceAttr does.
CUresult cuDeviceGetAttribute(int* value, int attrib, CUdevice dev) {
  if (CUresult e = check_initialized("cuDeviceGetAttribute")) return e;
  return cudaDeviceGetAttribute(value, attrib, dev);
}

// An unknown code: CUDA_ERROR_INVALID_VALUE and a null string, as the driver documents.
CUresult cuGetErrorName(CUresult error, const char** pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  *pStr = error_name(error);
  return *pStr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult error, const char** pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  *pStr = error_name(error) ? cudaGetErrorString(error) : nullptr;
  return *pStr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuCtxSynchronize() {
  if (CUresult e = check_initialized("cuCtxSynchronize")) return e;
  return cudaDeviceSynchronize();
}

CUresult cuStreamCreateWithPriority(CUstream* phStream, unsigned int flags, int priority) {
  if (CUresult e = check_initialized("cuStreamCreateWithPriority")) return e;
  return cudaStreamCreateWithPriority(phStream, flags, priority);
}

CUresult cuStreamCreate(CUstream* phStream, unsigned int flags) { return cuStreamCreateWithPriority(phStream, flags, 0); }

CUresult cuStreamSynchronize(CUstream hStream) {
  if (CUresult e = check_initialized("cuStreamSynchronize")) return e;
  return cudaStreamSynchronize(hStream);
}

// cuda.h's cuStreamDestroy is cuStreamDestroy_v2 (the name programs call);
// the unversioned one is the same call under the old name.
CUresult cuStreamDestroy_v2(CUstream hStream) {
  if (CUresult e = check_initialized("cuStreamDestroy")) return e;
  Driver& d = Driver::get();
  std::lock_guard lock(d.mutex);
  d.green_streams.erase(hStream);
  return cudaStreamDestroy(hStream);
}

CUresult cuStreamDestroy(CUstream hStream) { return cuStreamDestroy_v2(hStream); }

}  // extern "C"
