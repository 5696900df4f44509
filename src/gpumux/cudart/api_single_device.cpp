// Entry points about several devices, answered for gpumux's single device 0:
// peer copies between device 0 and itself are device-to-device copies; peer
// access and P2P attributes need a second device (cudaErrorInvalidDevice, as
// the runtime answers for a device and itself); the device's PCI name;
// cudaSetValidDevices. Also the shared-memory bank configuration, fixed at four
// bytes on compute capability 8.0 (the setters have no effect there, as on a
// GPU), and cudaFuncGetParamInfo from the kernel's PTX parameters.
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "gpumux/cudart/state.h"
#include "gpumux/exec/loaded_module.h"

using gpumux::cudart::check_device;
using gpumux::cudart::CudaError;
using gpumux::cudart::Runtime;

namespace {

Runtime& rt() { return Runtime::get(); }

// Peer access is between two different devices.
[[noreturn]] void no_peer(int peer) {
  check_device(peer);
  throw CudaError{cudaErrorInvalidDevice, "peer access of device 0 to itself (gpumux has one device)"};
}

// Domain, bus and device of the PCI name match the device properties (all 0:
// gpumux models no PCI identity).
constexpr const char* kPciBusId = "0000:00:00.0";
constexpr int kSharedMemBankSizeFourByte = 1;  // cudaSharedMemConfig

}  // namespace

extern "C" {

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, int kind);  // api_memory.cpp
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, int kind, cudaStream_t stream);

cudaError_t cudaMemcpyPeer(void* dst, int dstDevice, const void* src, int srcDevice, size_t count) {
  auto devices = [&] {
    check_device(dstDevice);
    check_device(srcDevice);
  };
  if (cudaError_t e = rt().call("cudaMemcpyPeer", devices); e != cudaSuccess) return e;
  return cudaMemcpy(dst, src, count, cudaMemcpyDeviceToDevice);
}
cudaError_t cudaMemcpyPeerAsync(void* dst, int dstDevice, const void* src, int srcDevice, size_t count,
                                cudaStream_t stream) {
  auto devices = [&] {
    check_device(dstDevice);
    check_device(srcDevice);
  };
  if (cudaError_t e = rt().call("cudaMemcpyPeerAsync", devices); e != cudaSuccess) return e;
  return cudaMemcpyAsync(dst, src, count, cudaMemcpyDeviceToDevice, stream);
}

cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int) {
  return rt().call("cudaDeviceEnablePeerAccess", [&] { no_peer(peerDevice); });
}
cudaError_t cudaDeviceDisablePeerAccess(int peerDevice) {
  return rt().call("cudaDeviceDisablePeerAccess", [&] { no_peer(peerDevice); });
}
cudaError_t cudaDeviceGetP2PAttribute(int* value, int, int srcDevice, int dstDevice) {
  return rt().call("cudaDeviceGetP2PAttribute", [&] {
    if (!value) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    check_device(srcDevice);
    no_peer(dstDevice);
  });
}

cudaError_t cudaDeviceGetPCIBusId(char* pciBusId, int len, int device) {
  return rt().call("cudaDeviceGetPCIBusId", [&] {
    check_device(device);
    if (!pciBusId || len <= 0) throw CudaError{cudaErrorInvalidValue, "null or empty result buffer"};
    std::snprintf(pciBusId, size_t(len), "%s", kPciBusId);
  });
}
// Accepts the forms the runtime documents: [domain]:[bus]:[device].[function],
// [domain]:[bus]:[device] and [bus]:[device].[function], in hexadecimal.
cudaError_t cudaDeviceGetByPCIBusId(int* device, const char* pciBusId) {
  return rt().call("cudaDeviceGetByPCIBusId", [&] {
    if (!device || !pciBusId) throw CudaError{cudaErrorInvalidValue, "null argument"};
    unsigned domain = 0, bus = 0, dev = 0, function = 0;
    char tail = 0;
    const bool parsed = std::sscanf(pciBusId, "%x:%x:%x.%x%c", &domain, &bus, &dev, &function, &tail) == 4 ||
                        std::sscanf(pciBusId, "%x:%x:%x%c", &domain, &bus, &dev, &tail) == 3 ||
                        (domain = 0, std::sscanf(pciBusId, "%x:%x.%x%c", &bus, &dev, &function, &tail) == 3);
    if (!parsed) throw CudaError{cudaErrorInvalidValue, fmt::format("'{}' is not a PCI bus id", pciBusId)};
    if (domain || bus || dev || function)
      throw CudaError{cudaErrorInvalidDevice, fmt::format("no device at PCI {} (device 0 is {})", pciBusId, kPciBusId)};
    *device = 0;
  });
}

cudaError_t cudaSetValidDevices(int* deviceArr, int len) {
  return rt().call("cudaSetValidDevices", [&] {
    if (len < 0 || (len > 0 && !deviceArr)) throw CudaError{cudaErrorInvalidValue, "bad device list"};
    for (int i = 0; i < len; ++i) check_device(deviceArr[i]);
  });
}

cudaError_t cudaDeviceGetSharedMemConfig(int* config) {
  if (!config) return cudaErrorInvalidValue;
  *config = kSharedMemBankSizeFourByte;
  return cudaSuccess;
}
cudaError_t cudaDeviceSetSharedMemConfig(int config) {
  return config >= 0 && config <= 2 ? cudaSuccess : cudaErrorInvalidValue;
}
cudaError_t cudaFuncSetSharedMemConfig(const void* func, int config) {
  return rt().call("cudaFuncSetSharedMemConfig", [&] {
    rt().kernel(func);
    if (config < 0 || config > 2) throw CudaError{cudaErrorInvalidValue, fmt::format("shared memory config {}", config)};
  });
}

// Offset and size of a kernel parameter in the parameter buffer (the PTX
// .param declarations, which nvcc lays out as the ABI does).
cudaError_t cudaFuncGetParamInfo(const void* func, size_t paramIndex, size_t* paramOffset, size_t* paramSize) {
  return rt().call("cudaFuncGetParamInfo", [&] {
    const gpumux::ptx::Function& f = rt().loaded_kernel(rt().kernel(func)).function();
    if (paramIndex >= f.params.size())
      throw CudaError{cudaErrorInvalidValue,
                      fmt::format("parameter {} of {} (it has {})", paramIndex, f.name, f.params.size())};
    if (paramOffset) *paramOffset = f.params[paramIndex].offset;
    if (paramSize) *paramSize = f.params[paramIndex].size;
  });
}

}  // extern "C"
