// Memory entry points: allocation (device, pinned host, managed), copies and
// memsets (1D, 2D, 3D on pitched memory, symbols; the Async forms behave as the synchronous ones:
// every copy is ordered after the program's earlier device work), pointer
// queries.
#include <cstdlib>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "gpumux/cudart/state.h"

using gpumux::cudart::CudaError;
using gpumux::cudart::Runtime;
using gpumux::runtime::DevPtr;
using gpumux::runtime::Transfer;

namespace {

Runtime& rt() { return Runtime::get(); }

std::map<const void*, size_t>& pinned_blocks() {  // cudaMallocHost/cudaHostAlloc blocks by address
  static std::map<const void*, size_t> blocks;
  return blocks;
}

DevPtr addr(const void* p) { return reinterpret_cast<DevPtr>(p); }

bool is_device(const void* p) { return rt().session().is_device(addr(p)); }

void null_check(const void* p, const char* what) {
  if (!p) throw CudaError{cudaErrorInvalidValue, fmt::format("null {}", what)};
}

// Whether each side of a copy is device memory: managed memory always is (its
// host mirror is refreshed after the call); otherwise the kind says, and
// cudaMemcpyDefault looks the pointer up.
std::pair<bool, bool> sides(const void* dst, const void* src, int kind) {
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
    throw CudaError{cudaErrorInvalidMemcpyDirection, fmt::format("invalid cudaMemcpyKind {}", kind)};
  auto& managed = rt().managed();
  bool src_dev = managed.contains(addr(src)) ||
                 (kind == cudaMemcpyDefault ? is_device(src)
                                            : kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice);
  bool dst_dev = managed.contains(addr(dst)) ||
                 (kind == cudaMemcpyDefault ? is_device(dst)
                                            : kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice);
  return {dst_dev, src_dev};
}

// A box of `depth` slices of `height` rows of `width` bytes; rows are
// `pitch` apart and slices `pitch * rows` apart (its allocation's height).
struct Box {
  size_t pitch, rows;
};

// Copies the box, ordered after earlier device work, then spends the
// transfer time of the whole copy.
void copy_box(void* dst, Box db, const void* src, Box sb, size_t width, size_t height, size_t depth, int kind) {
  if ((height > 1 || depth > 1) && (width > db.pitch || width > sb.pitch))
    throw CudaError{cudaErrorInvalidPitchValue,
                    fmt::format("row width {} exceeds the pitch (dst {}, src {})", width, db.pitch, sb.pitch)};
  auto [dst_dev, src_dev] = sides(dst, src, kind);
  gpumux::cudart::Session& mem = rt().session();
  mem.synchronize();
  if (!width || !height || !depth) return;
  std::vector<uint8_t> row(src_dev && dst_dev ? width : 0);
  for (size_t z = 0; z < depth; ++z) {
    for (size_t r = 0; r < height; ++r) {
      auto* d = static_cast<uint8_t*>(dst) + (z * db.rows + r) * db.pitch;
      const auto* s = static_cast<const uint8_t*>(src) + (z * sb.rows + r) * sb.pitch;
      if (src_dev && dst_dev) {
        mem.read(addr(s), row.data(), width);
        mem.write(addr(d), row.data(), width);
      } else if (dst_dev) {
        mem.write(addr(d), s, width);
      } else if (src_dev) {
        mem.read(addr(s), d, width);
      } else {
        std::memmove(d, s, width);
      }
    }
  }
  if (src_dev || dst_dev)
    mem.transfer(dst_dev && src_dev ? Transfer::DeviceToDevice
                                 : dst_dev          ? Transfer::HostToDevice
                                                    : Transfer::DeviceToHost,
                            uint64_t(width) * height * depth);
}

void copy_rows(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height, int kind) {
  copy_box(dst, {dpitch, height}, src, {spitch, height}, width, height, 1, kind);
}

void fill_box(void* dst, Box b, int value, size_t width, size_t height, size_t depth) {
  if ((height > 1 || depth > 1) && width > b.pitch)
    throw CudaError{cudaErrorInvalidPitchValue, fmt::format("row width {} exceeds the pitch {}", width, b.pitch)};
  gpumux::cudart::Session& mem = rt().session();
  mem.synchronize();
  if (!width || !height || !depth) return;
  for (size_t z = 0; z < depth; ++z)
    for (size_t r = 0; r < height; ++r)
      mem.fill(addr(dst) + (z * b.rows + r) * b.pitch, uint8_t(value), width);
  mem.transfer(Transfer::Memset, uint64_t(width) * height * depth);
}

void fill_rows(void* dst, size_t pitch, int value, size_t width, size_t height) {
  fill_box(dst, {pitch, height}, value, width, height, 1);
}

// The first byte of `pos` in a pitched allocation.
void* at(const cudaPitchedPtr& p, const cudaPos& pos) {
  return static_cast<uint8_t*>(p.ptr) + (pos.z * p.ysize + pos.y) * p.pitch + pos.x;
}

void copy_3d(const cudaMemcpy3DParms* p) {
  null_check(p, "parameters");
  if (p->srcArray || p->dstArray) return gpumux::cudart::copy_3d_array(*p);
  copy_box(at(p->dstPtr, p->dstPos), {p->dstPtr.pitch, p->dstPtr.ysize}, at(p->srcPtr, p->srcPos),
           {p->srcPtr.pitch, p->srcPtr.ysize}, p->extent.width, p->extent.height, p->extent.depth, p->kind);
}

// The device range [symbol + offset, + count), checked against the variable's size.
void* symbol_range(const void* symbol, size_t count, size_t offset) {
  auto [base, size] = rt().symbol(symbol);
  if (offset + count > size)
    throw CudaError{cudaErrorInvalidValue,
                    fmt::format("{} bytes at offset {} overrun the {}-byte device variable", count, offset, size)};
  return reinterpret_cast<void*>(base + offset);
}

}  // namespace

extern "C" {

cudaError_t cudaMalloc(void** devPtr, size_t size) {
  return rt().call("cudaMalloc", [&] {
    null_check(devPtr, "result pointer");
    *devPtr = reinterpret_cast<void*>(rt().session().malloc(size ? size : 1));
  });
}

cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height) {
  return rt().call("cudaMallocPitch", [&] {
    null_check(devPtr, "result pointer");
    null_check(pitch, "pitch pointer");
    constexpr size_t kPitchAlignment = 512;  // cudaDeviceProp::texturePitchAlignment rounded like CUDA does
    *pitch = (width + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
    *devPtr = reinterpret_cast<void*>(rt().session().malloc(std::max<size_t>(*pitch * height, 1)));
  });
}

cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int) {
  return rt().call("cudaMallocManaged", [&] {
    null_check(devPtr, "result pointer");
    DevPtr p = rt().session().malloc(size ? size : 1);
    rt().managed().add(p, size ? size : 1);
    *devPtr = reinterpret_cast<void*>(p);
  });
}

cudaError_t cudaFree(void* devPtr) {
  return rt().call("cudaFree", [&] {
    if (!devPtr) return;  // cudaFree(0): a common way to initialize the runtime
    if (gpumux::cudart::free_to_pool(addr(devPtr))) return;
    rt().managed().remove(addr(devPtr));
    rt().session().free(addr(devPtr));
  });
}

// Managed memory is always resident in device memory (managed.h): placement hints change nothing.
cudaError_t cudaMemPrefetchAsync(const void* devPtr, size_t, cudaMemLocation, unsigned int, cudaStream_t) {
  return rt().call("cudaMemPrefetchAsync", [&] { null_check(devPtr, "pointer"); });
}
cudaError_t cudaMemAdvise(const void* devPtr, size_t, int, cudaMemLocation) {
  return rt().call("cudaMemAdvise", [&] { null_check(devPtr, "pointer"); });
}
cudaError_t cudaStreamAttachMemAsync(cudaStream_t, void*, size_t, unsigned int) { return cudaSuccess; }

cudaError_t cudaMallocHost(void** ptr, size_t size) {
  return rt().call("cudaMallocHost", [&] {
    null_check(ptr, "result pointer");
    void* p = std::aligned_alloc(4096, (std::max<size_t>(size, 1) + 4095) / 4096 * 4096);
    if (!p) throw CudaError{cudaErrorMemoryAllocation, fmt::format("cannot allocate {} bytes of host memory", size)};
    pinned_blocks()[p] = size;
    *ptr = p;
  });
}

cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int) { return cudaMallocHost(ptr, size); }

cudaError_t cudaFreeHost(void* ptr) {
  return rt().call("cudaFreeHost", [&] {
    if (!ptr) return;
    if (!pinned_blocks().erase(ptr))
      throw CudaError{cudaErrorInvalidValue, fmt::format("{} was not allocated by cudaMallocHost", ptr)};
    std::free(ptr);
  });
}

// Host memory is always reachable by copies; registering it changes nothing.
cudaError_t cudaHostRegister(void* ptr, size_t, unsigned int) {
  return rt().call("cudaHostRegister", [&] { null_check(ptr, "pointer"); });
}
cudaError_t cudaHostUnregister(void* ptr) {
  return rt().call("cudaHostUnregister", [&] { null_check(ptr, "pointer"); });
}

cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  return rt().call("cudaMemGetInfo", [&] {
    null_check(free, "result pointer");
    null_check(total, "result pointer");
    uint64_t used = rt().session().bytes_allocated();
    *total = gpumux::cudart::kReportedGlobalMemory;
    *free = used < *total ? *total - used : 0;
  });
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr) {
  return rt().call("cudaPointerGetAttributes", [&] {
    null_check(attributes, "attributes");
    *attributes = {};
    if (rt().managed().contains(addr(ptr))) {
      *attributes = {cudaMemoryTypeManaged, 0, const_cast<void*>(ptr), const_cast<void*>(ptr)};
    } else if (is_device(ptr)) {
      *attributes = {cudaMemoryTypeDevice, 0, const_cast<void*>(ptr), nullptr};
    } else {
      auto& blocks = pinned_blocks();
      auto it = blocks.upper_bound(ptr);
      if (it != blocks.begin() && addr(ptr) - addr(std::prev(it)->first) < std::prev(it)->second)
        *attributes = {cudaMemoryTypeHost, -1, nullptr, const_cast<void*>(ptr)};
    }
  });
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, int kind) {
  return rt().device_call("cudaMemcpy", [&] { copy_rows(dst, count, src, count, count, 1, kind); });
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, int kind, cudaStream_t) {
  return rt().device_call("cudaMemcpyAsync", [&] { copy_rows(dst, count, src, count, count, 1, kind); });
}
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         int kind) {
  return rt().device_call("cudaMemcpy2D", [&] { copy_rows(dst, dpitch, src, spitch, width, height, kind); });
}
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                              size_t height, int kind, cudaStream_t) {
  return rt().device_call("cudaMemcpy2DAsync", [&] { copy_rows(dst, dpitch, src, spitch, width, height, kind); });
}

cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  return rt().device_call("cudaMemset", [&] { fill_rows(devPtr, count, value, count, 1); });
}
cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t) {
  return rt().device_call("cudaMemsetAsync", [&] { fill_rows(devPtr, count, value, count, 1); });
}
cudaError_t cudaMemset2D(void* devPtr, size_t pitch, int value, size_t width, size_t height) {
  return rt().device_call("cudaMemset2D", [&] { fill_rows(devPtr, pitch, value, width, height); });
}
cudaError_t cudaMemset2DAsync(void* devPtr, size_t pitch, int value, size_t width, size_t height, cudaStream_t) {
  return rt().device_call("cudaMemset2DAsync", [&] { fill_rows(devPtr, pitch, value, width, height); });
}

cudaError_t cudaMalloc3D(cudaPitchedPtr* pitchedDevPtr, cudaExtent extent) {
  return rt().call("cudaMalloc3D", [&] {
    null_check(pitchedDevPtr, "result pointer");
    size_t pitch = 0;
    void* p = nullptr;
    cudaError_t e = cudaMallocPitch(&p, &pitch, extent.width, extent.height * extent.depth);
    if (e != cudaSuccess) throw CudaError{e, ""};
    *pitchedDevPtr = {p, pitch, extent.width, extent.height};
  });
}
cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p) {
  return rt().device_call("cudaMemcpy3D", [&] { copy_3d(p); });
}
cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t) {
  return rt().device_call("cudaMemcpy3DAsync", [&] { copy_3d(p); });
}
cudaError_t cudaMemset3D(cudaPitchedPtr p, int value, cudaExtent extent) {
  return rt().device_call("cudaMemset3D",
                          [&] { fill_box(p.ptr, {p.pitch, p.ysize}, value, extent.width, extent.height, extent.depth); });
}
cudaError_t cudaMemset3DAsync(cudaPitchedPtr p, int value, cudaExtent extent, cudaStream_t) {
  return cudaMemset3D(p, value, extent);
}

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset, int kind) {
  return rt().device_call("cudaMemcpyToSymbol", [&] {
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
      throw CudaError{cudaErrorInvalidMemcpyDirection, "cudaMemcpyToSymbol copies to the device"};
    copy_rows(symbol_range(symbol, count, offset), count, src, count, count, 1,
              kind == cudaMemcpyDefault ? (is_device(src) ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                                        : kind);
  });
}
cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset, int kind,
                                    cudaStream_t) {
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset, int kind) {
  return rt().device_call("cudaMemcpyFromSymbol", [&] {
    if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
      throw CudaError{cudaErrorInvalidMemcpyDirection, "cudaMemcpyFromSymbol copies from the device"};
    copy_rows(dst, count, symbol_range(symbol, count, offset), count, count, 1,
              kind == cudaMemcpyDefault ? (is_device(dst) ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                                        : kind);
  });
}
cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset, int kind,
                                      cudaStream_t) {
  return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}

cudaError_t cudaGetSymbolAddress(void** devPtr, const void* symbol) {
  return rt().call("cudaGetSymbolAddress", [&] {
    null_check(devPtr, "result pointer");
    *devPtr = reinterpret_cast<void*>(rt().symbol(symbol).first);
  });
}
cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol) {
  return rt().call("cudaGetSymbolSize", [&] {
    null_check(size, "result pointer");
    *size = rt().symbol(symbol).second;
  });
}

}  // extern "C"
