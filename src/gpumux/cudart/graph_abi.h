// The C ABI of CUDA 13's graph and stream-capture API (cuda_runtime_api.h,
// driver_types.h): the types, enum values and struct layouts gpumux's graphs
// use, declared from the documented API. Layouts must match CUDA 13's byte
// for byte (tests/cuda/graphs.cu passes them through the real headers).
#pragma once

#include "gpumux/cudart/cuda_abi.h"

extern "C" {

enum : int {
  cudaErrorIllegalState = 401,
  cudaErrorStreamCaptureUnsupported = 900,
  cudaErrorStreamCaptureInvalidated = 901,
  cudaErrorStreamCaptureMerge = 902,
  cudaErrorStreamCaptureUnmatched = 903,
  cudaErrorStreamCaptureUnjoined = 904,
  cudaErrorStreamCaptureIsolation = 905,
  cudaErrorStreamCaptureImplicit = 906,
  cudaErrorCapturedEvent = 907,
  cudaErrorStreamCaptureWrongThread = 908,
  cudaErrorGraphExecUpdateFailure = 910,
};

struct CUgraph_st;
struct CUgraphNode_st;
struct CUgraphExec_st;
using cudaGraph_t = CUgraph_st*;
using cudaGraphNode_t = CUgraphNode_st*;
using cudaGraphExec_t = CUgraphExec_st*;
using cudaHostFn_t = void (*)(void*);
using cudaGraphConditionalHandle = unsigned long long;

enum cudaGraphNodeType : int {
  cudaGraphNodeTypeKernel = 0,
  cudaGraphNodeTypeMemcpy = 1,
  cudaGraphNodeTypeMemset = 2,
  cudaGraphNodeTypeHost = 3,
  cudaGraphNodeTypeGraph = 4,
  cudaGraphNodeTypeEmpty = 5,
  cudaGraphNodeTypeWaitEvent = 6,
  cudaGraphNodeTypeEventRecord = 7,
  cudaGraphNodeTypeExtSemaphoreSignal = 8,
  cudaGraphNodeTypeExtSemaphoreWait = 9,
  cudaGraphNodeTypeMemAlloc = 10,
  cudaGraphNodeTypeMemFree = 11,
  cudaGraphNodeTypeConditional = 13,
};

enum cudaStreamCaptureStatus : int {
  cudaStreamCaptureStatusNone = 0,
  cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2,
};
enum cudaStreamCaptureMode : int {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2,
};
enum : unsigned {
  cudaStreamAddCaptureDependencies = 0,
  cudaStreamSetCaptureDependencies = 1,
  cudaEventRecordExternal = 1,  // cudaEventRecordWithFlags: a record node when capturing
  cudaEventWaitExternal = 1,    // cudaStreamWaitEventWithFlags: a wait node when capturing
  cudaGraphCondAssignDefault = 1,
  cudaGraphDebugDotFlagsVerbose = 1,
};

enum cudaGraphConditionalNodeType : int {
  cudaGraphCondTypeIf = 0,
  cudaGraphCondTypeWhile = 1,
  cudaGraphCondTypeSwitch = 2,
};

enum cudaGraphExecUpdateResult : int {
  cudaGraphExecUpdateSuccess = 0,
  cudaGraphExecUpdateError = 1,
  cudaGraphExecUpdateErrorTopologyChanged = 2,
  cudaGraphExecUpdateErrorNodeTypeChanged = 3,
  cudaGraphExecUpdateErrorFunctionChanged = 4,
  cudaGraphExecUpdateErrorParametersChanged = 5,
  cudaGraphExecUpdateErrorNotSupported = 6,
};
enum cudaGraphInstantiateResult : int {
  cudaGraphInstantiateSuccess = 0,
  cudaGraphInstantiateError = 1,
  cudaGraphInstantiateInvalidStructure = 2,
};

struct cudaKernelNodeParams {
  void* func;  // the kernel's host stub
  dim3 gridDim;
  dim3 blockDim;
  unsigned int sharedMemBytes;
  void** kernelParams;
  void** extra;
};
struct cudaMemsetParams {
  void* dst;
  size_t pitch;
  unsigned int value;
  unsigned int elementSize;  // 1, 2 or 4 bytes
  size_t width;              // in elements
  size_t height;
};
struct cudaHostNodeParams {
  cudaHostFn_t fn;
  void* userData;
};
struct cudaMemAllocNodeParams {
  cudaMemPoolProps poolProps;
  const void* accessDescs;
  size_t accessDescCount;
  size_t bytesize;
  void* dptr;  // out
};
struct cudaConditionalNodeParams {
  cudaGraphConditionalHandle handle;
  cudaGraphConditionalNodeType type;
  unsigned int size;         // bodies: 1 (while), 1 or 2 (if), any (switch)
  cudaGraph_t* phGraph_out;  // out: the bodies, owned by the node
};
// cudaGraphAddNode's parameters: the members of its union gpumux supports.
struct cudaGraphNodeParams {
  cudaGraphNodeType type;
  int reserved0[3];
  union {
    long long reserved1[29];
    cudaKernelNodeParams kernel;
    struct {
      int flags;
      int reserved[3];
      cudaMemcpy3DParms copyParams;
    } memcpy;
    cudaMemsetParams memset;
    cudaHostNodeParams host;
    struct {
      cudaGraph_t graph;
      int ownership;
    } graph;
    struct {
      cudaEvent_t event;
    } event;  // eventWait and eventRecord
    cudaMemAllocNodeParams alloc;
    struct {
      void* dptr;
    } free;
    cudaConditionalNodeParams conditional;
  };
  long long reserved2;
};
static_assert(sizeof(cudaGraphNodeParams) == 256, "CUDA 13 layout");

struct cudaGraphEdgeData {
  unsigned char from_port, to_port, type, reserved[5];
};
struct cudaGraphInstantiateParams {
  unsigned long long flags;
  cudaStream_t uploadStream;
  cudaGraphNode_t errNode_out;
  cudaGraphInstantiateResult result_out;
};
struct cudaGraphExecUpdateResultInfo {
  cudaGraphExecUpdateResult result;
  cudaGraphNode_t errorNode;
  cudaGraphNode_t errorFromNode;
};

}  // extern "C"
