#include "gpumux/cudart/error_names.h"

#include "gpumux/cudart/graph_abi.h"

namespace gpumux::cudart {

namespace {

struct ErrorText {
  cudaError_t code;
  const char* name;
  const char* text;
};

#define GPUMUX_ERROR(code, text) {code, #code, text}
constexpr ErrorText kErrors[] = {
    GPUMUX_ERROR(cudaSuccess, "no error"),
    GPUMUX_ERROR(cudaErrorInvalidValue, "invalid argument"),
    GPUMUX_ERROR(cudaErrorMemoryAllocation, "out of memory"),
    GPUMUX_ERROR(cudaErrorInitializationError, "initialization error"),
    GPUMUX_ERROR(cudaErrorInvalidConfiguration, "invalid configuration argument"),
    GPUMUX_ERROR(cudaErrorInvalidPitchValue, "invalid pitch argument"),
    GPUMUX_ERROR(cudaErrorInvalidSymbol, "invalid device symbol"),
    GPUMUX_ERROR(cudaErrorInvalidHostPointer, "invalid host pointer"),
    GPUMUX_ERROR(cudaErrorInvalidDevicePointer, "invalid device pointer"),
    GPUMUX_ERROR(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"),
    GPUMUX_ERROR(cudaErrorMissingConfiguration, "__global__ function call is not configured"),
    GPUMUX_ERROR(cudaErrorInvalidDeviceFunction, "invalid device function"),
    GPUMUX_ERROR(cudaErrorNoDevice, "no CUDA-capable device is detected"),
    GPUMUX_ERROR(cudaErrorInvalidDevice, "invalid device ordinal"),
    GPUMUX_ERROR(cudaErrorInvalidKernelImage, "device kernel image is invalid"),
    GPUMUX_ERROR(cudaErrorDeviceUninitialized, "invalid device context"),
    GPUMUX_ERROR(cudaErrorNoKernelImageForDevice, "no kernel image is available for execution on the device"),
    GPUMUX_ERROR(cudaErrorUnsupportedLimit, "limit is not supported on this architecture"),
    GPUMUX_ERROR(cudaErrorInvalidPtx, "a PTX JIT compilation failed"),
    GPUMUX_ERROR(cudaErrorInvalidResourceHandle, "invalid resource handle"),
    GPUMUX_ERROR(cudaErrorIllegalState, "the operation cannot be performed in the present state"),
    GPUMUX_ERROR(cudaErrorSymbolNotFound, "named symbol not found"),
    GPUMUX_ERROR(cudaErrorNotReady, "device not ready"),
    GPUMUX_ERROR(cudaErrorIllegalAddress, "an illegal memory access was encountered"),
    GPUMUX_ERROR(cudaErrorLaunchOutOfResources, "too many resources requested for launch"),
    GPUMUX_ERROR(cudaErrorAssert, "device-side assert triggered"),
    GPUMUX_ERROR(cudaErrorHardwareStackError, "hardware stack error"),
    GPUMUX_ERROR(cudaErrorIllegalInstruction, "an illegal instruction was encountered"),
    GPUMUX_ERROR(cudaErrorMisalignedAddress, "misaligned address"),
    GPUMUX_ERROR(cudaErrorLaunchFailure, "unspecified launch failure"),
    GPUMUX_ERROR(cudaErrorCooperativeLaunchTooLarge, "too many blocks in cooperative launch"),
    GPUMUX_ERROR(cudaErrorNotSupported, "operation not supported"),
    GPUMUX_ERROR(cudaErrorStreamCaptureUnsupported, "operation not permitted when stream is capturing"),
    GPUMUX_ERROR(cudaErrorStreamCaptureInvalidated, "operation failed due to a previous error during capture"),
    GPUMUX_ERROR(cudaErrorStreamCaptureMerge, "operation would result in a merge of separate capture sequences"),
    GPUMUX_ERROR(cudaErrorStreamCaptureUnmatched, "capture was not ended in the same stream as it began"),
    GPUMUX_ERROR(cudaErrorStreamCaptureUnjoined, "capturing stream has unjoined work"),
    GPUMUX_ERROR(cudaErrorStreamCaptureIsolation,
                 "dependency created on uncaptured work in another stream"),
    GPUMUX_ERROR(cudaErrorStreamCaptureImplicit,
                 "operation would make the legacy stream depend on a capturing blocking stream"),
    GPUMUX_ERROR(cudaErrorCapturedEvent, "operation not permitted on an event last recorded in a capturing stream"),
    GPUMUX_ERROR(cudaErrorStreamCaptureWrongThread,
                 "attempt to terminate a thread-local capture sequence from another thread"),
    GPUMUX_ERROR(cudaErrorGraphExecUpdateFailure, "the graph update was not performed because it included changes "
                                                  "which violated constraints specific to instantiated graph update"),
    GPUMUX_ERROR(cudaErrorInvalidResourceType, "invalid resource type"),
    GPUMUX_ERROR(cudaErrorInvalidResourceConfiguration, "invalid resource configuration"),
    GPUMUX_ERROR(cudaErrorUnknown, "unknown error"),
};
#undef GPUMUX_ERROR

const ErrorText* find(cudaError_t e) {
  for (const ErrorText& t : kErrors)
    if (t.code == e) return &t;
  return nullptr;
}

}  // namespace

const char* error_name(cudaError_t e) {
  const ErrorText* t = find(e);
  return t ? t->name : "cudaErrorUnknown";
}

const char* error_string(cudaError_t e) {
  const ErrorText* t = find(e);
  return t ? t->text : "unrecognized error code";
}

}  // namespace gpumux::cudart
