// Memory entry points: allocation (device, pinned host, managed), copies and
// memsets (1D, 2D, 3D on pitched memory, symbols; the Async forms behave as the synchronous ones:
// every copy is ordered after the program's earlier device work, except in a
// capturing stream, where they become graph nodes), pointer queries.
#include <cstdlib>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "gpumux/cudart/capture.h"
#include "gpumux/cudart/state.h"

using gpumux::cudart::Captures;
using gpumux::cudart::CudaError;
using gpumux::cudart::from_symbol;
using gpumux::cudart::linear_copy;
using gpumux::cudart::to_symbol;
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

using Kind = gpumux::runtime::Paging::Kind;

// Prefetches and advice take managed memory only, as in CUDA.
void managed_check(const void* p) {
  null_check(p, "pointer");
  if (!rt().managed().contains(addr(p)))
    throw CudaError{cudaErrorInvalidValue, fmt::format("{} is not managed memory", p)};
}

// Whether `l` is the host (else device 0, the only device); cudaErrorInvalidDevice for another device.
bool is_host_location(const cudaMemLocation& l) {
  switch (l.type) {
    case cudaMemLocationTypeDevice:
      if (l.id == cudaCpuDeviceId) return true;  // the CUDA 12 way of naming the host
      if (l.id != 0) throw CudaError{cudaErrorInvalidDevice, fmt::format("device {} (the GPU is device 0)", l.id)};
      return false;
    case cudaMemLocationTypeHost:
    case cudaMemLocationTypeHostNuma:
    case cudaMemLocationTypeHostNumaCurrent: return true;
    default: throw CudaError{cudaErrorInvalidValue, fmt::format("memory location type {}", l.type)};
  }
}

// The runtime's copies (Kind::Copied) and memsets (Kind::Set) into managed
// memory (managed.h): `span` bytes from `dst`.
void report_host_write(const void* dst, uint64_t span, Kind kind) {
  if (span && rt().managed().contains(addr(dst))) rt().session().paging({kind, addr(dst), span});
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
  if (dst_dev) report_host_write(dst, uint64_t((depth - 1) * db.rows + height - 1) * db.pitch + width, Kind::Copied);
  if (src_dev || dst_dev)
    mem.transfer(dst_dev && src_dev ? Transfer::DeviceToDevice
                                 : dst_dev          ? Transfer::HostToDevice
                                                    : Transfer::DeviceToHost,
                            uint64_t(width) * height * depth);
}

void copy_rows(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height, int kind) {
  copy_box(dst, {dpitch, height}, src, {spitch, height}, width, height, 1, kind);
}

// Sets each `element`-byte element (1, 2 or 4) of the box to `value`'s low
// bytes; `width` counts elements.
void fill_box(void* dst, Box b, unsigned value, unsigned element, size_t width, size_t height, size_t depth) {
  if (element != 1 && element != 2 && element != 4)
    throw CudaError{cudaErrorInvalidValue, fmt::format("memset element size {} (1, 2 or 4)", element)};
  const size_t row_bytes = width * element;
  if ((height > 1 || depth > 1) && row_bytes > b.pitch)
    throw CudaError{cudaErrorInvalidPitchValue, fmt::format("row width {} exceeds the pitch {}", row_bytes, b.pitch)};
  gpumux::cudart::Session& mem = rt().session();
  mem.synchronize();
  if (!width || !height || !depth) return;
  std::vector<uint8_t> pattern(element > 1 ? row_bytes : 0);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = uint8_t(value >> (8 * (i % element)));
  for (size_t z = 0; z < depth; ++z)
    for (size_t r = 0; r < height; ++r) {
      DevPtr row = addr(dst) + (z * b.rows + r) * b.pitch;
      if (element == 1)
        mem.fill(row, uint8_t(value), width);
      else
        mem.write(row, pattern.data(), row_bytes);
    }
  report_host_write(dst, uint64_t((depth - 1) * b.rows + height - 1) * b.pitch + row_bytes, Kind::Set);
  mem.transfer(Transfer::Memset, uint64_t(row_bytes) * height * depth);
}

void fill_rows(void* dst, size_t pitch, int value, size_t width, size_t height) {
  fill_box(dst, {pitch, height}, unsigned(value), 1, width, height, 1);
}

// A copy ordered in `stream`, or a memcpy node if the stream captures.
void copy_in_stream(const cudaMemcpy3DParms& p, cudaStream_t stream) {
  if (!Captures::get().capture(stream, cudaGraphNodeTypeMemcpy, p)) gpumux::cudart::copy_3d(p);
}

void fill_in_stream(void* dst, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream) {
  cudaMemsetParams p{dst, pitch, unsigned(value) & 0xff, 1, width, height};
  if (!Captures::get().capture(stream, cudaGraphNodeTypeMemset, p)) gpumux::cudart::memset_2d(p);
}

// The first byte of `pos` in a pitched allocation.
void* at(const cudaPitchedPtr& p, const cudaPos& pos) {
  return static_cast<uint8_t*>(p.ptr) + (pos.z * p.ysize + pos.y) * p.pitch + pos.x;
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

namespace gpumux::cudart {

cudaMemcpy3DParms linear_copy(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                              int kind) {
  cudaMemcpy3DParms p{};
  p.srcPtr = {const_cast<void*>(src), spitch, width, height};
  p.dstPtr = {dst, dpitch, width, height};
  p.extent = {width, height, 1};
  p.kind = cudaMemcpyKind(kind);
  return p;
}

void copy_3d(const cudaMemcpy3DParms& p) {
  if (p.srcArray || p.dstArray) return copy_3d_array(p);
  copy_box(at(p.dstPtr, p.dstPos), {p.dstPtr.pitch, p.dstPtr.ysize}, at(p.srcPtr, p.srcPos),
           {p.srcPtr.pitch, p.srcPtr.ysize}, p.extent.width, p.extent.height, p.extent.depth, p.kind);
}

cudaMemcpy3DParms to_symbol(const void* symbol, const void* src, size_t count, size_t offset, int kind) {
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    throw CudaError{cudaErrorInvalidMemcpyDirection, "a copy to a symbol copies to the device"};
  if (kind == cudaMemcpyDefault) kind = is_device(src) ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice;
  return linear_copy(symbol_range(symbol, count, offset), count, src, count, count, 1, kind);
}

cudaMemcpy3DParms from_symbol(void* dst, const void* symbol, size_t count, size_t offset, int kind) {
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    throw CudaError{cudaErrorInvalidMemcpyDirection, "a copy from a symbol copies from the device"};
  if (kind == cudaMemcpyDefault) kind = is_device(dst) ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost;
  return linear_copy(dst, count, symbol_range(symbol, count, offset), count, count, 1, kind);
}

void memset_2d(const cudaMemsetParams& p) {
  fill_box(p.dst, {p.pitch, p.height}, p.value, p.elementSize, p.width, p.height, 1);
}

}  // namespace gpumux::cudart

extern "C" {

cudaError_t cudaMalloc(void** devPtr, size_t size) {
  return rt().call("cudaMalloc", [&] {
    Captures::get().check_unsafe_call();
    null_check(devPtr, "result pointer");
    *devPtr = reinterpret_cast<void*>(rt().session().malloc(size ? size : 1));
  });
}

cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height) {
  return rt().call("cudaMallocPitch", [&] {
    Captures::get().check_unsafe_call();
    null_check(devPtr, "result pointer");
    null_check(pitch, "pitch pointer");
    constexpr size_t kPitchAlignment = 512;  // cudaDeviceProp::texturePitchAlignment rounded like CUDA does
    *pitch = (width + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
    *devPtr = reinterpret_cast<void*>(rt().session().malloc(std::max<size_t>(*pitch * height, 1)));
  });
}

cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int) {
  return rt().call("cudaMallocManaged", [&] {
    Captures::get().check_unsafe_call();
    null_check(devPtr, "result pointer");
    DevPtr p = rt().session().malloc(size ? size : 1);
    rt().managed().add(rt().session(), p, size ? size : 1, false);
    *devPtr = reinterpret_cast<void*>(p);
  });
}

cudaError_t cudaFree(void* devPtr) {
  return rt().call("cudaFree", [&] {
    Captures::get().check_unsafe_call();
    if (!devPtr) return;  // cudaFree(0): a common way to initialize the runtime
    if (gpumux::cudart::is_graph_allocation(devPtr)) return;  // its graph frees it
    if (gpumux::cudart::free_to_pool(addr(devPtr))) return;
    rt().managed().remove(addr(devPtr));
    rt().session().free(addr(devPtr));
  });
}

// Prefetches and advice act under demand paging (docs/cuda-programs.md,
// "Managed memory"); without it managed memory is always on the device and
// they only check their arguments. A prefetch is ordered after the program's
// earlier work, like this runtime's copies, whatever its stream.
cudaError_t cudaMemPrefetchAsync(const void* devPtr, size_t count, cudaMemLocation location, unsigned int flags,
                                 cudaStream_t) {
  return rt().device_call("cudaMemPrefetchAsync", [&] {
    managed_check(devPtr);
    if (flags != 0) throw CudaError{cudaErrorInvalidValue, fmt::format("prefetch flags {} (0 expected)", flags)};
    const bool to_host = is_host_location(location);
    rt().session().paging({to_host ? Kind::PrefetchToHost : Kind::PrefetchToDevice, addr(devPtr), count});
  });
}
cudaError_t cudaMemAdvise(const void* devPtr, size_t count, int advice, cudaMemLocation location) {
  return rt().call("cudaMemAdvise", [&] {
    managed_check(devPtr);
    switch (advice) {
      case cudaMemAdviseSetReadMostly:
      case cudaMemAdviseUnsetReadMostly:  // the location is ignored, as in CUDA
        rt().session().paging({advice == cudaMemAdviseSetReadMostly ? Kind::ReadMostly : Kind::NotReadMostly,
                               addr(devPtr), count});
        return;
      // Hints about mapping: accepted, no effect on the model (docs/cuda-programs.md).
      case cudaMemAdviseSetPreferredLocation:
      case cudaMemAdviseSetAccessedBy:
        is_host_location(location);  // checks it
        return;
      case cudaMemAdviseUnsetPreferredLocation:
      case cudaMemAdviseUnsetAccessedBy:
        return;
      default:
        throw CudaError{cudaErrorInvalidValue, fmt::format("unknown cudaMemoryAdvise {}", advice)};
    }
  });
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
  return rt().device_call("cudaMemcpy", [&] {
    Captures::get().check_unsafe_call();
    copy_rows(dst, count, src, count, count, 1, kind);
  });
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, int kind, cudaStream_t stream) {
  return rt().device_call("cudaMemcpyAsync",
                          [&] { copy_in_stream(linear_copy(dst, count, src, count, count, 1, kind), stream); });
}
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         int kind) {
  return rt().device_call("cudaMemcpy2D", [&] {
    Captures::get().check_unsafe_call();
    copy_rows(dst, dpitch, src, spitch, width, height, kind);
  });
}
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                              size_t height, int kind, cudaStream_t stream) {
  return rt().device_call("cudaMemcpy2DAsync", [&] {
    copy_in_stream(linear_copy(dst, dpitch, src, spitch, width, height, kind), stream);
  });
}

cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  return rt().device_call("cudaMemset", [&] {
    Captures::get().check_unsafe_call();
    fill_rows(devPtr, count, value, count, 1);
  });
}
cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
  return rt().device_call("cudaMemsetAsync", [&] { fill_in_stream(devPtr, count, value, count, 1, stream); });
}
cudaError_t cudaMemset2D(void* devPtr, size_t pitch, int value, size_t width, size_t height) {
  return rt().device_call("cudaMemset2D", [&] {
    Captures::get().check_unsafe_call();
    fill_rows(devPtr, pitch, value, width, height);
  });
}
cudaError_t cudaMemset2DAsync(void* devPtr, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream) {
  return rt().device_call("cudaMemset2DAsync",
                          [&] { fill_in_stream(devPtr, pitch, value, width, height, stream); });
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
  return rt().device_call("cudaMemcpy3D", [&] {
    null_check(p, "parameters");
    Captures::get().check_unsafe_call();
    gpumux::cudart::copy_3d(*p);
  });
}
cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t stream) {
  return rt().device_call("cudaMemcpy3DAsync", [&] {
    null_check(p, "parameters");
    copy_in_stream(*p, stream);
  });
}
cudaError_t cudaMemset3D(cudaPitchedPtr p, int value, cudaExtent extent) {
  return rt().device_call("cudaMemset3D", [&] {
    Captures::get().check_unsafe_call();
    fill_box(p.ptr, {p.pitch, p.ysize}, unsigned(value), 1, extent.width, extent.height, extent.depth);
  });
}
// In a capturing stream: one memset node per slice.
cudaError_t cudaMemset3DAsync(cudaPitchedPtr p, int value, cudaExtent extent, cudaStream_t stream) {
  return rt().device_call("cudaMemset3DAsync", [&] {
    if (Captures::get().info(stream).status == cudaStreamCaptureStatusNone)
      return fill_box(p.ptr, {p.pitch, p.ysize}, unsigned(value), 1, extent.width, extent.height, extent.depth);
    for (size_t z = 0; z < extent.depth; ++z)
      fill_in_stream(static_cast<uint8_t*>(p.ptr) + z * p.pitch * p.ysize, p.pitch, value, extent.width,
                     extent.height, stream);
  });
}

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset, int kind) {
  return rt().device_call("cudaMemcpyToSymbol", [&] {
    Captures::get().check_unsafe_call();
    gpumux::cudart::copy_3d(to_symbol(symbol, src, count, offset, kind));
  });
}
cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset, int kind,
                                    cudaStream_t stream) {
  return rt().device_call("cudaMemcpyToSymbolAsync",
                          [&] { copy_in_stream(to_symbol(symbol, src, count, offset, kind), stream); });
}
cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset, int kind) {
  return rt().device_call("cudaMemcpyFromSymbol", [&] {
    Captures::get().check_unsafe_call();
    gpumux::cudart::copy_3d(from_symbol(dst, symbol, count, offset, kind));
  });
}
cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset, int kind,
                                      cudaStream_t stream) {
  return rt().device_call("cudaMemcpyFromSymbolAsync",
                          [&] { copy_in_stream(from_symbol(dst, symbol, count, offset, kind), stream); });
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
