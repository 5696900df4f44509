// The C ABI of the CUDA driver API (libcuda.so.1) for the calls gpumux's
// driver library implements: the types, enum values and struct layouts,
// declared here from the documented API (NVIDIA's cuda.h is not included).
// CUdevResource must match CUDA 13's byte for byte: programs allocate it and
// read its `sm` fields at fixed offsets.
#pragma once

#include <cstddef>
#include <cstdint>

struct CUstream_st;  // the runtime's stream (cudart/state.h): driver and runtime streams are one

extern "C" {

using CUresult = int;
// CUresult values used by gpumux (CUDA 13 numbering). Where the runtime's
// cudaError_t has the same meaning it has the same number (700, 710, 719, ...),
// so runtime errors pass through as driver errors.
enum : int {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_ASSERT = 710,
  CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
  CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
  CUDA_ERROR_MISALIGNED_ADDRESS = 716,
  CUDA_ERROR_LAUNCH_FAILED = 719,
  CUDA_ERROR_NOT_SUPPORTED = 801,
  CUDA_ERROR_INVALID_RESOURCE_TYPE = 914,
  CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION = 915,
  CUDA_ERROR_UNKNOWN = 999,
};

using CUdevice = int;
using CUstream = CUstream_st*;
using CUgreenCtx = struct CUgreenCtx_st*;
using CUcontext = struct CUctx_st*;
using CUdevResourceDesc = struct CUdevResourceDesc_st*;

enum : unsigned {
  CU_STREAM_NON_BLOCKING = 0x1,
  CU_GREEN_CTX_DEFAULT_STREAM = 0x1,  // required by cuGreenCtxCreate
  CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING = 0x1,
  CU_DEV_SM_RESOURCE_SPLIT_MAX_POTENTIAL_CLUSTER_SIZE = 0x2,
};

using CUdevResourceType = int;
enum : int { CU_DEV_RESOURCE_TYPE_INVALID = 0, CU_DEV_RESOURCE_TYPE_SM = 1 };

struct CUdevSmResource {
  unsigned smCount;
  unsigned minSmPartitionSize;
  unsigned smCoscheduledAlignment;
};

// A tagged union: the type, 92 bytes the driver keeps to itself (gpumux: which
// SM set the resource is, driver_state.h), and the type's public fields.
struct CUdevResource {
  CUdevResourceType type;
  unsigned char internal[92];
  union {
    CUdevSmResource sm;
    unsigned char oversize[48];
  };
};
static_assert(sizeof(CUdevResource) == 144 && offsetof(CUdevResource, sm) == 96);

}  // extern "C"
