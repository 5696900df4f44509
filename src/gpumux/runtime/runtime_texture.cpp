// Context's CUDA arrays, texture and surface objects (runtime.h).
#include <fmt/format.h>

#include "gpumux/exec/address_space.h"
#include "gpumux/runtime/runtime.h"

namespace gpumux::runtime {

uint64_t Context::malloc_array(const exec::ArrayDesc& d) { return mem_->textures().add_array(*mem_, d); }

void Context::free_array(uint64_t array) {
  call_in_order();
  mem_->textures().remove_array(*mem_, array);
}

const exec::TexelLayout& Context::array_layout(uint64_t array) const { return mem_->textures().array(array); }

template <class F>
void Context::for_each_array_row(uint64_t array, uint64_t x_bytes, uint32_t y, uint32_t z, uint64_t width_bytes,
                                 uint32_t height, uint32_t depth, F&& row) {
  const exec::TexelLayout& l = array_layout(array);
  const uint64_t row_bytes = uint64_t(l.width) * l.format.element_bytes();
  if (x_bytes > row_bytes || width_bytes > row_bytes - x_bytes || y > l.height || height > l.height - y ||
      z > l.depth || depth > l.depth - z)
    throw ApiError(fmt::format("array copy of {} bytes x {} rows x {} slices at byte {}, row {}, slice {} is outside "
                               "the {} x {} x {} array of {}-byte elements",
                               width_bytes, height, depth, x_bytes, y, z, l.width, l.height, l.depth,
                               l.format.element_bytes()));
  for (uint32_t k = 0; k < depth; ++k)
    for (uint32_t j = 0; j < height; ++j)
      row(l.base + (z + k) * l.slice + (y + j) * l.pitch + x_bytes, (uint64_t(k) * height + j));
}

void Context::memcpy_to_array(uint64_t array, uint64_t x_bytes, uint32_t y, uint32_t z, const void* src,
                              uint64_t pitch, uint64_t width_bytes, uint32_t height, uint32_t depth) {
  if (pitch < width_bytes) throw ApiError(fmt::format("source pitch {} < row width {}", pitch, width_bytes));
  call_in_order();
  const auto* s = static_cast<const uint8_t*>(src);
  for_each_array_row(array, x_bytes, y, z, width_bytes, height, depth, [&](DevPtr dst, uint64_t r) {
    mem_->write(dst, s + r * pitch, width_bytes);
    if (InstructionObserver* o = dev_.backend().observer()) o->on_memcpy_h2d(*this, dst, width_bytes);
  });
  dev_.backend().transfer(*this, Transfer::HostToDevice, width_bytes * height * depth);
}

void Context::memcpy_from_array(void* dst, uint64_t pitch, uint64_t array, uint64_t x_bytes, uint32_t y, uint32_t z,
                                uint64_t width_bytes, uint32_t height, uint32_t depth) {
  if (pitch < width_bytes) throw ApiError(fmt::format("destination pitch {} < row width {}", pitch, width_bytes));
  call_in_order();
  auto* d = static_cast<uint8_t*>(dst);
  for_each_array_row(array, x_bytes, y, z, width_bytes, height, depth,
                     [&](DevPtr src, uint64_t r) { mem_->read(src, d + r * pitch, width_bytes); });
  dev_.backend().transfer(*this, Transfer::DeviceToHost, width_bytes * height * depth);
}

uint64_t Context::create_texture(const exec::TextureResource& r, const exec::TextureDesc& d) {
  return mem_->textures().add_texture(*mem_, r, d);
}

// Destroying waits for the context's work: a running kernel may still read the object.
void Context::destroy_texture(uint64_t texture) {
  call_in_order();
  mem_->textures().remove(texture, exec::TextureObjects::Kind::Texture);
}

uint64_t Context::create_surface(uint64_t array) { return mem_->textures().add_surface(array); }

void Context::destroy_surface(uint64_t surface) {
  call_in_order();
  mem_->textures().remove(surface, exec::TextureObjects::Kind::Surface);
}

}  // namespace gpumux::runtime
