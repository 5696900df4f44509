// Device, error, stream and event entry points. There is one simulated
// device (the GPU config's); streams and events are the runtime's, with
// CUDA's priority convention (lower number: more urgent) mapped to gpumux's.
#include <algorithm>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "gpumux/cudart/capture.h"
#include "gpumux/cudart/device_attributes.h"
#include "gpumux/cudart/error_names.h"
#include "gpumux/cudart/state.h"
#include "gpumux/mem/request.h"

using gpumux::cudart::Captures;
using gpumux::cudart::check_device;
using gpumux::cudart::CudaError;
using gpumux::cudart::Runtime;

namespace {

Runtime& rt() { return Runtime::get(); }

// CUDA stream priorities: 0 (least urgent) down to kGreatestPriority.
constexpr int kGreatestPriority = -5;
constexpr unsigned kStreamNonBlocking = 0x1;  // cudaStreamNonBlocking

cudaError_t create_stream(const char* api, cudaStream_t* stream, unsigned flags, int priority,
                          std::span<const unsigned> sms) {
  return rt().call(api, [&] {
    if (!stream) throw CudaError{cudaErrorInvalidValue, "null stream"};
    if (flags & ~kStreamNonBlocking) throw CudaError{cudaErrorInvalidValue, fmt::format("stream flags {:#x}", flags)};
    int p = std::clamp(priority, kGreatestPriority, 0);
    // A stream without SMs of its own is the current context's: a green context's SMs, if one is current.
    if (sms.empty()) sms = Runtime::current_sms();
    *stream = new CUstream_st{rt().session().create_stream(-p, sms), {}, flags};  // gpumux: higher is more urgent
  });
}

// The L2 set-aside for persisting accesses (cudaLimitPersistingL2CacheSize):
// accepted and reported, not modeled in the L2 (docs/cuda-programs.md).
size_t& persisting_l2_bytes() {
  static size_t bytes = 0;
  return bytes;
}

// The stream attributes of a handle; the default stream's (null, cudaStreamLegacy,
// cudaStreamPerThread) live here.
std::map<int, cudaLaunchAttributeValue>& attributes_of(cudaStream_t s) {
  static std::map<int, cudaLaunchAttributeValue> default_stream;
  return reinterpret_cast<uintptr_t>(s) > 2 ? s->attributes : default_stream;
}

// What a stream attribute is before it is set (CUDA's defaults).
cudaLaunchAttributeValue default_attribute(cudaStream_t s, int attr) {
  cudaLaunchAttributeValue v{};
  switch (attr) {
    case cudaLaunchAttributeAccessPolicyWindow: break;  // no window
    case cudaLaunchAttributeSynchronizationPolicy: v.syncPolicy = 1; break;  // cudaSyncPolicyAuto
    case cudaLaunchAttributePriority: v.priority = -Runtime::stream_of(s).priority; break;
    case cudaLaunchAttributeMemSyncDomainMap: v.memSyncDomainMap.remote = 1; break;
    case cudaLaunchAttributeMemSyncDomain: break;  // cudaLaunchMemSyncDomainDefault
    default: throw CudaError{cudaErrorInvalidValue, fmt::format("{} is not a stream attribute", attr)};
  }
  return v;
}

void check_attribute(int attr, const cudaLaunchAttributeValue& v) {
  switch (attr) {
    case cudaLaunchAttributeAccessPolicyWindow: {
      const cudaAccessPolicyWindow& w = v.accessPolicyWindow;
      const size_t max = size_t(gpumux::cudart::device_attribute(rt().config(), rt().limits(), rt().device_sm_count(),
                                                                 cudaDevAttrMaxAccessPolicyWindowSize).value());
      if (w.num_bytes > max || !(w.hitRatio >= 0.0f && w.hitRatio <= 1.0f) || w.hitProp < cudaAccessPropertyNormal ||
          w.hitProp > cudaAccessPropertyPersisting ||
          (w.missProp != cudaAccessPropertyNormal && w.missProp != cudaAccessPropertyStreaming))
        throw CudaError{cudaErrorInvalidValue,
                        fmt::format("access policy window of {} bytes (at most {}), hit ratio {}, hit property {}, "
                                    "miss property {} (normal or streaming)",
                                    w.num_bytes, max, w.hitRatio, w.hitProp, w.missProp)};
      return;
    }
    case cudaLaunchAttributeSynchronizationPolicy:
      if (v.syncPolicy < 1 || v.syncPolicy > 4)
        throw CudaError{cudaErrorInvalidValue, fmt::format("synchronization policy {}", v.syncPolicy)};
      return;
    case cudaLaunchAttributeMemSyncDomain:
      if (v.memSyncDomain != 0 && v.memSyncDomain != 1)
        throw CudaError{cudaErrorInvalidValue, fmt::format("memory synchronization domain {}", v.memSyncDomain)};
      return;
    case cudaLaunchAttributeMemSyncDomainMap: return;
    case cudaLaunchAttributePriority:
      throw CudaError{cudaErrorInvalidValue, "gpumux fixes a stream's priority when it is created"};
    default: throw CudaError{cudaErrorInvalidValue, fmt::format("{} is not a stream attribute", attr)};
  }
}

// At a synchronization memory pools give back what they hold beyond their release threshold.
void synchronize() {
  rt().session().synchronize();
  rt().pools().trim_to_thresholds(rt().session());
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
    *prop = gpumux::cudart::device_properties(rt().config(), rt().limits(), rt().device_sm_count());
  });
}

// An unknown attribute is cudaErrorInvalidValue, an ordinary (non-sticky) error:
// it is the call's return value and the thread's last error until
// cudaGetLastError takes it; later calls and launches are unaffected.
cudaError_t cudaDeviceGetAttribute(int* value, int attr, int device) {
  return rt().call("cudaDeviceGetAttribute", [&] {
    check_device(device);
    if (!value) throw CudaError{cudaErrorInvalidValue, "null value"};
    std::optional<int> v = gpumux::cudart::device_attribute(rt().config(), rt().limits(), rt().device_sm_count(), attr);
    if (!v) throw CudaError{cudaErrorInvalidValue, fmt::format("{} is not a device attribute of CUDA 13", attr)};
    *value = *v;
  });
}

cudaError_t cudaDeviceGetLimit(size_t* value, int limit) {
  return rt().call("cudaDeviceGetLimit", [&] {
    if (!value) throw CudaError{cudaErrorInvalidValue, "null value"};
    if (limit == cudaLimitMallocHeapSize)
      *value = rt().session().heap_limit();
    else if (limit == cudaLimitStackSize)
      *value = rt().limits().max_local_bytes_per_thread;
    else if (limit == cudaLimitPersistingL2CacheSize)
      *value = persisting_l2_bytes();
    else if (limit == cudaLimitMaxL2FetchGranularity)
      *value = gpumux::mem::kSectorBytes;  // what gpumux's L2 fetches from DRAM, whatever the hint
    else
      throw CudaError{cudaErrorUnsupportedLimit, fmt::format("limit {} is not supported", limit)};
  });
}
cudaError_t cudaDeviceSetLimit(int limit, size_t value) {
  return rt().call("cudaDeviceSetLimit", [&] {
    const auto max_persisting = gpumux::cudart::device_attribute(rt().config(), rt().limits(), rt().device_sm_count(),
                                                                 cudaDevAttrMaxPersistingL2CacheSize).value();
    if (limit == cudaLimitMallocHeapSize)
      rt().session().set_heap_limit(value);
    else if (limit == cudaLimitPersistingL2CacheSize && value > size_t(max_persisting))
      throw CudaError{cudaErrorInvalidValue,
                      fmt::format("{} bytes of persisting L2: at most {} (cudaDevAttrMaxPersistingL2CacheSize)", value,
                                  max_persisting)};
    else if (limit == cudaLimitPersistingL2CacheSize)
      persisting_l2_bytes() = value;
    else if (limit == cudaLimitMaxL2FetchGranularity && value > 128)
      throw CudaError{cudaErrorInvalidValue, fmt::format("L2 fetch granularity {}: at most 128", value)};
    else if (limit != cudaLimitStackSize && limit != cudaLimitPrintfFifoSize &&
             limit != cudaLimitMaxL2FetchGranularity)  // fixed: hints
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
    synchronize();
  });
}

// Like a real reset: the context with its allocations, streams, events and
// error state (sticky faults included) is replaced by a fresh one.
cudaError_t cudaDeviceReset() {
  return rt().call("cudaDeviceReset", [] {
    rt().reset();
    persisting_l2_bytes() = 0;
    attributes_of(nullptr).clear();
  });
}

// No line persists in gpumux's L2 (the set-aside is not modeled): nothing to reset.
cudaError_t cudaCtxResetPersistingL2Cache() { return cudaSuccess; }

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

// cudaStreamNonBlocking only: every stream is ordered after the program's
// earlier work anyway (see "Streams" in docs/cuda-programs.md), which the flag
// permits. The flag is kept for cudaStreamGetFlags.
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority) {
  return create_stream("cudaStreamCreate", stream, flags, priority, {});
}
// The SMs of the device as the program sees it (under gpumux serve with mig:
// its instance's), for gpumux's libcuda.so.1 (cuDeviceGetDevResource): up to
// `capacity` SM ids into `sms`, their number into *count; 0: every SM.
cudaError_t gpumuxDeviceSms(unsigned int* sms, unsigned int capacity, unsigned int* count) {
  return rt().call("gpumuxDeviceSms", [&] {
    if (!count || (capacity && !sms)) throw CudaError{cudaErrorInvalidValue, "null sms or count"};
    std::vector<uint32_t> v = rt().session().device_sms();
    std::copy_n(v.begin(), std::min<size_t>(v.size(), capacity), sms);
    *count = unsigned(v.size());
  });
}
// A stream whose kernels place TBs on SMs `sms[0..count)` only (by SM id):
// the streams of green contexts, created by gpumux's libcuda.so.1
// (cuGreenCtxStreamCreate, cuCtxFromGreenCtx).
cudaError_t gpumuxStreamCreateOnSms(cudaStream_t* stream, unsigned int flags, int priority, const unsigned int* sms,
                                    unsigned int count) {
  if (count && !sms) return cudaErrorInvalidValue;
  return create_stream("gpumuxStreamCreateOnSms", stream, flags, priority, {sms, count});
}
// Makes a green context current on the calling thread (gpumux's libcuda.so.1,
// cuCtxSetCurrent): launches into the default stream go to `default_stream`,
// and cudaStreamCreate's streams get SMs `sms[0..count)`; a null stream and
// no SMs: the primary context again.
cudaError_t gpumuxSetCurrentContext(cudaStream_t default_stream, const unsigned int* sms, unsigned int count) {
  if ((count && !sms) || (reinterpret_cast<uintptr_t>(default_stream) <= 2) != (count == 0))
    return cudaErrorInvalidValue;
  Runtime::set_current_context(default_stream, {sms, count});
  return cudaSuccess;
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
// The default streams (null, cudaStreamLegacy, cudaStreamPerThread) are one
// stream in gpumux: id 0, no flags.
cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int* flags) {
  if (!flags) return cudaErrorInvalidValue;
  *flags = reinterpret_cast<uintptr_t>(stream) > 2 ? stream->flags : 0;
  return cudaSuccess;
}
cudaError_t cudaStreamGetId(cudaStream_t stream, unsigned long long* id) {
  if (!id) return cudaErrorInvalidValue;
  *id = Runtime::stream_of(stream).id;
  return cudaSuccess;
}
cudaError_t cudaStreamGetDevice(cudaStream_t, int* device) {
  if (!device) return cudaErrorInvalidValue;
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src) {
  return rt().call("cudaStreamCopyAttributes", [&] { attributes_of(dst) = attributes_of(src); });
}
// Every call is ordered after the program's earlier work: stream waits are device waits.
cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  return rt().device_call("cudaStreamSynchronize", [&] {
    Captures::get().check_wait(stream);
    synchronize();
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

// Stream attributes are kept and returned; the access policy window is not modeled in the L2.
cudaError_t cudaStreamSetAttribute(cudaStream_t stream, int attr, const cudaLaunchAttributeValue* value) {
  return rt().call("cudaStreamSetAttribute", [&] {
    if (!value) throw CudaError{cudaErrorInvalidValue, "null value"};
    check_attribute(attr, *value);
    attributes_of(stream)[attr] = *value;
  });
}
cudaError_t cudaStreamGetAttribute(cudaStream_t stream, int attr, cudaLaunchAttributeValue* value) {
  return rt().call("cudaStreamGetAttribute", [&] {
    if (!value) throw CudaError{cudaErrorInvalidValue, "null value"};
    const auto& set = attributes_of(stream);
    auto it = set.find(attr);
    *value = it != set.end() ? it->second : default_attribute(stream, attr);
  });
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
    rt().pools().trim_to_thresholds(rt().session());
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
