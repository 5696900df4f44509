// CUDA arrays, texture objects and surface objects, mapped onto the runtime's
// (runtime::Context::malloc_array, create_texture, create_surface; the texel
// arithmetic is exec/texture.h's). A cudaArray_t is gpumux's array handle
// cast to a pointer; cudaTextureObject_t and cudaSurfaceObject_t are the
// handles kernels receive. Copies to and from arrays are ordered after the
// program's earlier work and take one transfer's simulated time; a device
// side of a copy is staged through the host.
#include <cstring>
#include <functional>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "gpumux/cudart/state.h"

using gpumux::cudart::CudaError;
using gpumux::cudart::Runtime;
using gpumux::exec::ArrayDesc;

namespace {

Runtime& rt() { return Runtime::get(); }

struct ArrayInfo {
  ArrayDesc desc;
  cudaChannelFormatDesc channel;
  cudaExtent extent;
  unsigned flags;
};

// The arrays of the program, for the info queries and element sizes (under Runtime::call's lock).
std::map<uint64_t, ArrayInfo>& arrays() {
  static std::map<uint64_t, ArrayInfo> a;
  return a;
}

uint64_t handle(const cudaArray* a) { return reinterpret_cast<uint64_t>(a); }

const ArrayInfo& array_info(const cudaArray* a) {
  auto it = arrays().find(handle(a));
  if (it == arrays().end()) throw CudaError{cudaErrorInvalidResourceHandle, fmt::format("{} is not a CUDA array", static_cast<const void*>(a))};
  return it->second;
}

void null_check(const void* p, const char* what) {
  if (!p) throw CudaError{cudaErrorInvalidValue, fmt::format("null {}", what)};
}

// 1, 2 or 4 channels of equal width, as the texture unit reads them.
gpumux::exec::ChannelFormat channel_format(const cudaChannelFormatDesc& d) {
  int bits[4] = {d.x, d.y, d.z, d.w};
  int channels = 0;
  while (channels < 4 && bits[channels] > 0) ++channels;
  bool ok = (channels == 1 || channels == 2 || channels == 4) && d.f >= cudaChannelFormatKindSigned &&
            d.f <= cudaChannelFormatKindFloat && (bits[0] == 8 || bits[0] == 16 || bits[0] == 32);
  for (int i = 1; i < 4; ++i) ok &= i < channels ? bits[i] == bits[0] : bits[i] == 0;
  if (!ok)
    throw CudaError{cudaErrorInvalidValue, fmt::format("channel format ({}, {}, {}, {}) kind {}: gpumux reads 1, 2 or 4 "
                                                       "channels of 8, 16 or 32 bits, signed, unsigned or float",
                                                       d.x, d.y, d.z, d.w, int(d.f))};
  return {uint8_t(channels), uint8_t(bits[0]), gpumux::exec::ChannelKind(d.f)};
}

bool on_device(const void* p, int kind, bool is_source) {
  if (kind == cudaMemcpyDefault) return rt().session().is_device(reinterpret_cast<uint64_t>(p));
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
    throw CudaError{cudaErrorInvalidMemcpyDirection, fmt::format("invalid cudaMemcpyKind {}", kind)};
  return is_source ? kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice
                   : kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
}

// A box of rows `pitch` apart (slices `pitch * rows` apart) of host or device memory, as a host copy.
struct Staged {
  const uint8_t* data;
  std::vector<uint8_t> copy;
};
Staged stage_in(const void* src, bool device, size_t pitch, size_t width, size_t rows) {
  if (!device) return {static_cast<const uint8_t*>(src), {}};
  Staged s{nullptr, std::vector<uint8_t>(pitch * rows)};
  rt().session().synchronize();
  for (size_t r = 0; r < rows; ++r)
    rt().session().read(reinterpret_cast<uint64_t>(src) + r * pitch, s.copy.data() + r * pitch, width);
  s.data = s.copy.data();
  return s;
}

void to_array(cudaArray* dst, size_t x_bytes, size_t y, size_t z, const void* src, size_t pitch, size_t width,
              size_t height, bool src_device) {
  array_info(dst);
  null_check(src, "source");
  Staged s = stage_in(src, src_device, pitch, width, height);
  rt().session().memcpy_to_array(handle(dst), x_bytes, uint32_t(y), uint32_t(z), s.data, pitch, width,
                                 uint32_t(height), 1);
}

void from_array(void* dst, size_t pitch, const cudaArray* src, size_t x_bytes, size_t y, size_t z, size_t width,
                size_t height, bool dst_device) {
  array_info(src);
  null_check(dst, "destination");
  std::vector<uint8_t> staged(dst_device ? pitch * height : 0);
  void* host = dst_device ? staged.data() : dst;
  rt().session().memcpy_from_array(host, pitch, handle(src), x_bytes, uint32_t(y), uint32_t(z), width,
                                   uint32_t(height), 1);
  for (size_t r = 0; dst_device && r < height; ++r)
    rt().session().write(reinterpret_cast<uint64_t>(dst) + r * pitch, staged.data() + r * pitch, width);
}

// The deprecated cudaMemcpyToArray/FromArray: `count` bytes of linear memory
// laid out row after row of a 1D or 2D array from byte `x` of row `y`. Each
// piece (a partial first row, whole rows, a partial last row) is a 2D copy:
// copy(x bytes, row, offset on the linear side, width bytes, rows).
void linear_pieces(const cudaArray* array, size_t x, size_t y, size_t count,
                   const std::function<void(size_t, size_t, size_t, size_t, size_t)>& copy) {
  const ArrayDesc& d = array_info(array).desc;
  const size_t row = size_t(d.width) * d.format.element_bytes(), rows = std::max<uint32_t>(d.height, 1);
  if (d.depth > 1 || d.layered || d.cubemap)
    throw CudaError{cudaErrorInvalidValue, "cudaMemcpyToArray/FromArray take a 1D or 2D array"};
  if (x >= row || y >= rows || count > (rows - y) * row - x)
    throw CudaError{cudaErrorInvalidValue, fmt::format("{} bytes from byte {} of row {} overrun the {} rows of {} "
                                                       "bytes of the array", count, x, y, rows, row)};
  size_t done = 0;
  if (x > 0 && count > 0) {
    done = std::min(row - x, count);
    copy(x, y++, 0, done, 1);
  }
  if (const size_t whole = (count - done) / row) {
    copy(0, y, done, row, whole);
    done += whole * row;
    y += whole;
  }
  if (done < count) copy(0, y, done, count - done, 1);
}

gpumux::exec::TextureResource resource(const cudaResourceDesc& r) {
  gpumux::exec::TextureResource out;
  switch (r.resType) {
    case cudaResourceTypeArray:
      array_info(r.res.array.array);
      out.kind = gpumux::exec::ResourceKind::Array;
      out.array = handle(r.res.array.array);
      return out;
    case cudaResourceTypeLinear:
      out.kind = gpumux::exec::ResourceKind::Linear;
      out.ptr = reinterpret_cast<uint64_t>(r.res.linear.devPtr);
      out.format = channel_format(r.res.linear.desc);
      out.size_bytes = r.res.linear.sizeInBytes;
      return out;
    case cudaResourceTypePitch2D:
      out.kind = gpumux::exec::ResourceKind::Pitch2D;
      out.ptr = reinterpret_cast<uint64_t>(r.res.pitch2D.devPtr);
      out.format = channel_format(r.res.pitch2D.desc);
      if (r.res.pitch2D.width > UINT32_MAX || r.res.pitch2D.height > UINT32_MAX)
        throw CudaError{cudaErrorInvalidValue, "pitched texture larger than 2^32 elements per side"};
      out.width = uint32_t(r.res.pitch2D.width);
      out.height = uint32_t(r.res.pitch2D.height);
      out.pitch = r.res.pitch2D.pitchInBytes;
      return out;
    default:
      throw CudaError{cudaErrorNotSupported, fmt::format("resource type {} (mipmapped arrays are not modeled)",
                                                         int(r.resType))};
  }
}

gpumux::exec::TextureDesc texture_desc(const cudaTextureDesc& t) {
  if (t.sRGB) throw CudaError{cudaErrorNotSupported, "sRGB textures are not modeled"};
  gpumux::exec::TextureDesc d;
  for (int i = 0; i < 3; ++i) {
    if (t.addressMode[i] < 0 || t.addressMode[i] > 3)
      throw CudaError{cudaErrorInvalidValue, fmt::format("address mode {}", t.addressMode[i])};
    d.address[i] = gpumux::exec::AddressMode(t.addressMode[i]);
  }
  if (t.filterMode < 0 || t.filterMode > 1 || t.readMode < 0 || t.readMode > 1)
    throw CudaError{cudaErrorInvalidValue, fmt::format("filter mode {}, read mode {}", t.filterMode, t.readMode)};
  d.filter = gpumux::exec::FilterMode(t.filterMode);
  d.read = gpumux::exec::ReadMode(t.readMode);
  d.normalized_coords = t.normalizedCoords != 0;
  for (int i = 0; i < 4; ++i) d.border[size_t(i)] = t.borderColor[i];
  return d;
}

}  // namespace

extern "C" {

cudaError_t cudaMalloc3DArray(cudaArray** array, const cudaChannelFormatDesc* desc, cudaExtent extent,
                              unsigned int flags) {
  return rt().call("cudaMalloc3DArray", [&] {
    null_check(array, "result pointer");
    null_check(desc, "channel descriptor");
    if (flags & ~unsigned(cudaArrayLayered | cudaArraySurfaceLoadStore | cudaArrayCubemap | cudaArrayTextureGather))
      throw CudaError{cudaErrorInvalidValue, fmt::format("array flags 0x{:x}", flags)};
    if (extent.width > UINT32_MAX || extent.height > UINT32_MAX || extent.depth > UINT32_MAX)
      throw CudaError{cudaErrorInvalidValue, "array extent beyond 2^32 per side"};
    ArrayDesc d{channel_format(*desc), uint32_t(extent.width), uint32_t(extent.height), uint32_t(extent.depth),
                (flags & cudaArrayLayered) != 0, (flags & cudaArrayCubemap) != 0};
    uint64_t h = rt().session().malloc_array(d);
    arrays()[h] = {d, *desc, extent, flags};
    *array = reinterpret_cast<cudaArray*>(h);
  });
}

cudaError_t cudaMallocArray(cudaArray** array, const cudaChannelFormatDesc* desc, size_t width, size_t height,
                            unsigned int flags) {
  return cudaMalloc3DArray(array, desc, {width, height, 0}, flags);
}

cudaError_t cudaFreeArray(cudaArray* array) {
  return rt().call("cudaFreeArray", [&] {
    if (!array) return;
    array_info(array);
    rt().session().synchronize();  // a running kernel may still read it
    rt().session().free_array(handle(array));
    arrays().erase(handle(array));
  });
}

cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc* desc, const cudaArray* array) {
  return rt().call("cudaGetChannelDesc", [&] {
    null_check(desc, "result pointer");
    *desc = array_info(array).channel;
  });
}

cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc* desc, cudaExtent* extent, unsigned int* flags, cudaArray* array) {
  return rt().call("cudaArrayGetInfo", [&] {
    const ArrayInfo& a = array_info(array);
    if (desc) *desc = a.channel;
    if (extent) *extent = a.extent;
    if (flags) *flags = a.flags;
  });
}

cudaError_t cudaMemcpy2DToArray(cudaArray* dst, size_t wOffset, size_t hOffset, const void* src, size_t spitch,
                                size_t width, size_t height, int kind) {
  return rt().device_call("cudaMemcpy2DToArray", [&] {
    to_array(dst, wOffset, hOffset, 0, src, spitch, width, height, on_device(src, kind, true));
  });
}
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray* dst, size_t wOffset, size_t hOffset, const void* src, size_t spitch,
                                     size_t width, size_t height, int kind, cudaStream_t) {
  return cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height, kind);
}
cudaError_t cudaMemcpy2DFromArray(void* dst, size_t dpitch, const cudaArray* src, size_t wOffset, size_t hOffset,
                                  size_t width, size_t height, int kind) {
  return rt().device_call("cudaMemcpy2DFromArray", [&] {
    from_array(dst, dpitch, src, wOffset, hOffset, 0, width, height, on_device(dst, kind, false));
  });
}
cudaError_t cudaMemcpy2DFromArrayAsync(void* dst, size_t dpitch, const cudaArray* src, size_t wOffset, size_t hOffset,
                                       size_t width, size_t height, int kind, cudaStream_t) {
  return cudaMemcpy2DFromArray(dst, dpitch, src, wOffset, hOffset, width, height, kind);
}

cudaError_t cudaMemcpyToArray(cudaArray* dst, size_t wOffset, size_t hOffset, const void* src, size_t count, int kind) {
  return rt().device_call("cudaMemcpyToArray", [&] {
    const bool device = on_device(src, kind, true);
    linear_pieces(dst, wOffset, hOffset, count, [&](size_t x, size_t y, size_t offset, size_t width, size_t rows) {
      to_array(dst, x, y, 0, static_cast<const uint8_t*>(src) + offset, width, width, rows, device);
    });
  });
}
cudaError_t cudaMemcpyToArrayAsync(cudaArray* dst, size_t wOffset, size_t hOffset, const void* src, size_t count,
                                   int kind, cudaStream_t) {
  return cudaMemcpyToArray(dst, wOffset, hOffset, src, count, kind);
}
cudaError_t cudaMemcpyFromArray(void* dst, const cudaArray* src, size_t wOffset, size_t hOffset, size_t count,
                                int kind) {
  return rt().device_call("cudaMemcpyFromArray", [&] {
    const bool device = on_device(dst, kind, false);
    linear_pieces(src, wOffset, hOffset, count, [&](size_t x, size_t y, size_t offset, size_t width, size_t rows) {
      from_array(static_cast<uint8_t*>(dst) + offset, width, src, x, y, 0, width, rows, device);
    });
  });
}
cudaError_t cudaMemcpyFromArrayAsync(void* dst, const cudaArray* src, size_t wOffset, size_t hOffset, size_t count,
                                     int kind, cudaStream_t) {
  return cudaMemcpyFromArray(dst, src, wOffset, hOffset, count, kind);
}

cudaError_t cudaCreateTextureObject(cudaTextureObject_t* tex, const cudaResourceDesc* res, const cudaTextureDesc* desc,
                                    const cudaResourceViewDesc* view) {
  return rt().call("cudaCreateTextureObject", [&] {
    null_check(tex, "result pointer");
    null_check(res, "resource descriptor");
    null_check(desc, "texture descriptor");
    if (view) throw CudaError{cudaErrorNotSupported, "resource views are not modeled"};
    *tex = rt().session().create_texture(resource(*res), texture_desc(*desc));
  });
}
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t tex) {
  return rt().call("cudaDestroyTextureObject", [&] { rt().session().destroy_texture(tex); });
}
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* surf, const cudaResourceDesc* res) {
  return rt().call("cudaCreateSurfaceObject", [&] {
    null_check(surf, "result pointer");
    null_check(res, "resource descriptor");
    if (res->resType != cudaResourceTypeArray)
      throw CudaError{cudaErrorInvalidValue, "a surface object needs a CUDA array resource"};
    array_info(res->res.array.array);
    *surf = rt().session().create_surface(handle(res->res.array.array));
  });
}
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surf) {
  return rt().call("cudaDestroySurfaceObject", [&] { rt().session().destroy_surface(surf); });
}

}  // extern "C"

namespace gpumux::cudart {

// cudaMemcpy3D and cudaMemcpy3DAsync with an array on one side (api_memory.cpp):
// positions and the extent's width are in elements on the array side.
void copy_3d_array(const cudaMemcpy3DParms& p) {
  if (p.srcArray && p.dstArray)
    throw CudaError{cudaErrorNotSupported, "cudaMemcpy3D from array to array"};
  const ArrayInfo& a = array_info(p.srcArray ? p.srcArray : p.dstArray);
  const size_t eb = a.desc.format.element_bytes(), width = p.extent.width * eb;
  const size_t height = std::max<size_t>(p.extent.height, 1), depth = std::max<size_t>(p.extent.depth, 1);
  for (size_t k = 0; k < depth; ++k) {
    if (p.dstArray) {
      const cudaPitchedPtr& s = p.srcPtr;
      const auto* src = static_cast<const uint8_t*>(s.ptr) + ((p.srcPos.z + k) * s.ysize + p.srcPos.y) * s.pitch + p.srcPos.x;
      to_array(p.dstArray, p.dstPos.x * eb, p.dstPos.y, p.dstPos.z + k, src, s.pitch, width, height,
               on_device(s.ptr, p.kind, true));
    } else {
      const cudaPitchedPtr& d = p.dstPtr;
      auto* dst = static_cast<uint8_t*>(d.ptr) + ((p.dstPos.z + k) * d.ysize + p.dstPos.y) * d.pitch + p.dstPos.x;
      from_array(dst, d.pitch, p.srcArray, p.srcPos.x * eb, p.srcPos.y, p.srcPos.z + k, width, height,
                 on_device(d.ptr, p.kind, false));
    }
  }
}

}  // namespace gpumux::cudart
