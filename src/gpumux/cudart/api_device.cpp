// Device, error, stream and event entry points. There is one simulated
// device (the GPU config's); streams and events are the runtime's, with
// CUDA's priority convention (lower number: more urgent) mapped to gpumux's.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "gpumux/cudart/capture.h"
#include "gpumux/cudart/error_names.h"
#include "gpumux/cudart/state.h"

using gpumux::cudart::Captures;
using gpumux::cudart::CudaError;
using gpumux::cudart::Runtime;

namespace {

Runtime& rt() { return Runtime::get(); }

// CUDA stream priorities: 0 (least urgent) down to kGreatestPriority.
constexpr int kGreatestPriority = -5;

void check_device(int device) {
  if (device != 0) throw CudaError{cudaErrorInvalidDevice, fmt::format("device {} (gpumux has device 0 only)", device)};
}

cudaDeviceProp properties() {
  const gpumux::GpuConfig& c = rt().config();
  const gpumux::runtime::DeviceLimits& lim = rt().limits();
  cudaDeviceProp p{};
  std::snprintf(p.name, sizeof p.name, "gpumux %s", c.gpu.name.c_str());
  std::memcpy(p.uuid.bytes, "gpumux-simulated", 16);
  p.totalGlobalMem = gpumux::cudart::kReportedGlobalMemory;
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
  p.multiProcessorCount = int(c.gpu.num_sms);
  p.concurrentKernels = 1;
  p.asyncEngineCount = int(c.pcie.copy_engines);
  p.unifiedAddressing = 1;
  p.memoryBusWidth = int(c.dram.bus_bytes * 8 * c.gpu.num_partitions);
  p.l2CacheSize = int(uint64_t(c.l2.size_kb) * 1024);
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
  return p;
}

}  // namespace

extern "C" {

cudaError_t cudaGetDeviceCount(int* count) {
  return rt().call("cudaGetDeviceCount", [&] {
    if (!count) throw CudaError{cudaErrorInvalidValue, "null count"};
    *count = 1;
  });
}
cudaError_t cudaGetDevice(int* device) {
  return rt().call("cudaGetDevice", [&] {
    if (!device) throw CudaError{cudaErrorInvalidValue, "null device"};
    *device = 0;
  });
}
cudaError_t cudaSetDevice(int device) {
  return rt().call("cudaSetDevice", [&] { check_device(device); });
}
cudaError_t cudaInitDevice(int device, unsigned int, unsigned int) {
  return rt().call("cudaInitDevice", [&] { check_device(device); });
}
cudaError_t cudaSetDeviceFlags(unsigned int) { return cudaSuccess; }
cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  return rt().call("cudaGetDeviceFlags", [&] {
    if (!flags) throw CudaError{cudaErrorInvalidValue, "null flags"};
    *flags = 0;
  });
}
cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp*) { return cudaGetDevice(device); }

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  return rt().call("cudaGetDeviceProperties", [&] {
    check_device(device);
    if (!prop) throw CudaError{cudaErrorInvalidValue, "null properties"};
    *prop = properties();
  });
}

cudaError_t cudaDeviceGetAttribute(int* value, int attr, int device) {
  return rt().call("cudaDeviceGetAttribute", [&] {
    check_device(device);
    if (!value) throw CudaError{cudaErrorInvalidValue, "null value"};
    const cudaDeviceProp p = properties();
    const gpumux::GpuConfig& c = rt().config();
    switch (attr) {
      case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
      case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
      case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
      case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
      case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
      case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
      case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
      case cudaDevAttrMaxSharedMemoryPerBlock: *value = int(p.sharedMemPerBlock); break;
      case cudaDevAttrTotalConstantMemory: *value = int(p.totalConstMem); break;
      case cudaDevAttrWarpSize: *value = p.warpSize; break;
      case cudaDevAttrMaxPitch: *value = int(p.memPitch); break;
      case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
      case cudaDevAttrClockRate: *value = int(c.clock.core_mhz * 1000); break;  // kHz
      case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
      case cudaDevAttrIntegrated: *value = p.integrated; break;
      case cudaDevAttrCanMapHostMemory: *value = p.canMapHostMemory; break;
      case cudaDevAttrComputeMode: *value = 0; break;  // default
      case cudaDevAttrConcurrentKernels: *value = p.concurrentKernels; break;
      case cudaDevAttrEccEnabled: *value = p.ECCEnabled; break;
      case cudaDevAttrMemoryClockRate: *value = int(c.clock.dram_mhz * 1000); break;  // kHz
      case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
      case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
      case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
      case cudaDevAttrAsyncEngineCount: *value = p.asyncEngineCount; break;
      case cudaDevAttrUnifiedAddressing: *value = p.unifiedAddressing; break;
      case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
      case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
      case cudaDevAttrStreamPrioritiesSupported: *value = p.streamPrioritiesSupported; break;
      case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = int(p.sharedMemPerMultiprocessor); break;
      case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
      case cudaDevAttrManagedMemory: *value = p.managedMemory; break;
      case cudaDevAttrConcurrentManagedAccess: *value = p.concurrentManagedAccess; break;
      case cudaDevAttrCooperativeLaunch: *value = p.cooperativeLaunch; break;
      case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = int(p.sharedMemPerBlockOptin); break;
      case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
      default:
        throw CudaError{cudaErrorInvalidValue, fmt::format("device attribute {} is not supported by gpumux", attr)};
    }
  });
}

cudaError_t cudaDeviceGetLimit(size_t* value, int limit) {
  return rt().call("cudaDeviceGetLimit", [&] {
    if (!value) throw CudaError{cudaErrorInvalidValue, "null value"};
    if (limit == cudaLimitMallocHeapSize)
      *value = rt().session().heap_limit();
    else if (limit == cudaLimitStackSize)
      *value = rt().limits().max_local_bytes_per_thread;
    else
      throw CudaError{cudaErrorUnsupportedLimit, fmt::format("limit {} is not supported", limit)};
  });
}
cudaError_t cudaDeviceSetLimit(int limit, size_t value) {
  return rt().call("cudaDeviceSetLimit", [&] {
    if (limit == cudaLimitMallocHeapSize)
      rt().session().set_heap_limit(value);
    else if (limit != cudaLimitStackSize && limit != cudaLimitPrintfFifoSize)  // both are fixed: hints
      throw CudaError{cudaErrorUnsupportedLimit, fmt::format("limit {} is not supported", limit)};
  });
}
cudaError_t cudaDeviceSetCacheConfig(int) { return cudaSuccess; }
cudaError_t cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  if (leastPriority) *leastPriority = 0;
  if (greatestPriority) *greatestPriority = kGreatestPriority;
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() {
  return rt().device_call("cudaDeviceSynchronize", [] {
    Captures::get().check_wait();
    rt().session().synchronize();
  });
}

// Like a real reset: the context with its allocations, streams, events and
// error state (sticky faults included) is replaced by a fresh one.
cudaError_t cudaDeviceReset() {
  return rt().call("cudaDeviceReset", [] { rt().reset(); });
}

cudaError_t cudaDriverGetVersion(int* v) {
  if (!v) return cudaErrorInvalidValue;
  *v = 13000;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* v) { return cudaDriverGetVersion(v); }

cudaError_t cudaDeviceCanAccessPeer(int* canAccessPeer, int device, int peerDevice) {
  return rt().call("cudaDeviceCanAccessPeer", [&] {
    check_device(device);
    check_device(peerDevice);
    if (!canAccessPeer) throw CudaError{cudaErrorInvalidValue, "null result"};
    *canAccessPeer = 0;
  });
}
cudaError_t cudaProfilerStart() { return cudaSuccess; }
cudaError_t cudaProfilerStop() { return cudaSuccess; }

// gpumux's own entry point (declare it extern "C" in the program): the host
// spends `ns` nanoseconds of simulated CPU time here, a declared CPU phase.
// Under gpumux serve the GPU and the other programs run on meanwhile; alone
// on an in-process GPU it takes no simulated time (no one else runs).
cudaError_t gpumuxHostCompute(double ns) {
  return rt().call("gpumuxHostCompute", [&] { rt().session().host_compute(ns); });
}

cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f) {
  return {x, y, z, w, f};
}

cudaError_t cudaGetLastError() { return rt().take_last_error(); }
cudaError_t cudaPeekAtLastError() { return rt().peek_last_error(); }
const char* cudaGetErrorName(cudaError_t e) { return gpumux::cudart::error_name(e); }
const char* cudaGetErrorString(cudaError_t e) { return gpumux::cudart::error_string(e); }

// ---- streams ----

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int, int priority) {
  return rt().call("cudaStreamCreate", [&] {
    if (!stream) throw CudaError{cudaErrorInvalidValue, "null stream"};
    int p = std::clamp(priority, kGreatestPriority, 0);
    *stream = new CUstream_st{rt().session().create_stream(-p)};  // gpumux: higher is more urgent
  });
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  return cudaStreamCreateWithPriority(stream, flags, 0);
}
cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithPriority(stream, 0, 0); }
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  return rt().call("cudaStreamDestroy", [&] {
    if (reinterpret_cast<uintptr_t>(stream) <= 2)
      throw CudaError{cudaErrorInvalidResourceHandle, "the default stream cannot be destroyed"};
    Captures::get().forget(stream);
    delete stream;
  });
}
cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority) {
  if (!priority) return cudaErrorInvalidValue;
  *priority = -Runtime::stream_of(stream).priority;
  return cudaSuccess;
}
// Every call is ordered after the program's earlier work: stream waits are device waits.
cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  return rt().device_call("cudaStreamSynchronize", [&] {
    Captures::get().check_wait(stream);
    rt().session().synchronize();
  });
}
// Simulated time advances only while the program waits, so a query waits.
cudaError_t cudaStreamQuery(cudaStream_t stream) { return cudaStreamSynchronize(stream); }
// Outside capture the event's work is done when recorded; in capture the wait forks or joins (capture.h).
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  return rt().call("cudaStreamWaitEvent", [&] {
    if (!event) throw CudaError{cudaErrorInvalidResourceHandle, "null event"};
    Captures::get().wait(stream, event, flags);
  });
}

// Host functions run when the stream's earlier work is done: at once, after a
// wait; in a capturing stream they become host nodes.
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, void (*fn)(void*), void* userData) {
  bool captured = false;
  cudaError_t e = rt().call("cudaLaunchHostFunc", [&] {
    if (Captures::get().info(stream).status == cudaStreamCaptureStatusNone) return;
    if (!fn) throw CudaError{cudaErrorInvalidValue, "null host function"};
    captured = Captures::get().capture(stream, cudaGraphNodeTypeHost, cudaHostNodeParams{fn, userData}) != nullptr;
  });
  if (e != cudaSuccess || captured) return e;
  e = cudaStreamSynchronize(stream);
  if (e == cudaSuccess && fn) fn(userData);
  return e;
}
cudaError_t cudaStreamAddCallback(cudaStream_t stream, void (*callback)(cudaStream_t, cudaError_t, void*),
                                  void* userData, unsigned int) {
  cudaError_t e = cudaStreamSynchronize(stream);
  if (callback) callback(stream, e, userData);
  return cudaSuccess;
}

// ---- events ----

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int) {
  return rt().call("cudaEventCreate", [&] {
    if (!event) throw CudaError{cudaErrorInvalidValue, "null event"};
    *event = new CUevent_st{rt().session().create_event()};
  });
}
cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, 0); }
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  return rt().call("cudaEventDestroy", [&] {
    if (!event) throw CudaError{cudaErrorInvalidResourceHandle, "null event"};
    Captures::get().forget(event);
    delete event;
  });
}
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  return rt().device_call("cudaEventRecord", [&] {
    if (!event) throw CudaError{cudaErrorInvalidResourceHandle, "null event"};
    if (!Captures::get().record(event, stream, flags)) rt().session().record(event->event, Runtime::stream_of(stream));
  });
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return cudaEventRecordWithFlags(event, stream, 0);
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  return rt().device_call("cudaEventSynchronize", [&] {
    if (!event) throw CudaError{cudaErrorInvalidResourceHandle, "null event"};
    Captures::get().check_host_wait(event);
    Captures::get().check_unsafe_call();
    rt().session().event_synchronize(event->event);
  });
}
cudaError_t cudaEventQuery(cudaEvent_t event) { return cudaEventSynchronize(event); }
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  return rt().call("cudaEventElapsedTime", [&] {
    if (!ms || !start || !end) throw CudaError{cudaErrorInvalidValue, "null argument"};
    *ms = float(rt().session().event_elapsed_ms(start->event, end->event));
  });
}

}  // extern "C"
