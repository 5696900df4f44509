#include "gpumux/exec/texture.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/exec/address_space.h"
#include "gpumux/exec/compute/half.h"

namespace gpumux::exec {

namespace {

constexpr uint64_t kMaxArrayBytes = uint64_t(1) << 34;
constexpr uint32_t kMaxExtent = 1u << 16;

uint64_t make_handle(TextureObjects::Kind k, size_t index) { return (uint64_t(k) << 56) | (index + 1); }

void check_format(const ChannelFormat& f) {
  const bool bits_ok = f.kind == ChannelKind::Float ? (f.bits == 16 || f.bits == 32)
                                                    : (f.bits == 8 || f.bits == 16 || f.bits == 32);
  if (!bits_ok || (f.channels != 1 && f.channels != 2 && f.channels != 4))
    throw ApiError(fmt::format("channel format of {} x {}-bit {} channels is not supported (1, 2 or 4 channels "
                               "of 8, 16 or 32 bits; floats 16 or 32)",
                               f.channels, f.bits, f.kind == ChannelKind::Float ? "float" : "integer"));
}

// The memory [addr, addr + bytes) must lie inside one live allocation.
void check_memory(const AddressSpace& mem, uint64_t addr, uint64_t bytes, const char* what) {
  const AddressSpace::Allocation* a = mem.find(addr);
  if (!a || bytes > a->size - (addr - a->base))
    throw ApiError(fmt::format("{}: {}", what, mem.explain(addr, bytes)));
}

}  // namespace

uint64_t TextureObjects::add_array(AddressSpace& mem, const ArrayDesc& d) {
  check_format(d.format);
  if (d.width == 0 || d.width > kMaxExtent || d.height > kMaxExtent || d.depth > kMaxExtent)
    throw ApiError(fmt::format("array extent {} x {} x {}: the width must be 1..{} and each extent at most {}",
                               d.width, d.height, d.depth, kMaxExtent, kMaxExtent));
  if (d.cubemap && (d.width != d.height || d.depth == 0 || d.depth % 6 != 0 || (!d.layered && d.depth != 6)))
    throw ApiError(fmt::format("cubemap array {} x {} x {}: needs width == height and a depth of 6 (6 x layers "
                               "when layered)",
                               d.width, d.height, d.depth));
  if (d.layered && d.depth == 0) throw ApiError("layered array with 0 layers (depth is the layer count)");
  TexelLayout l;
  l.format = d.format;
  l.width = d.width;
  l.height = std::max(d.height, 1u);
  l.depth = std::max(d.depth, 1u);
  l.layered = d.layered;
  l.cubemap = d.cubemap;
  l.is_3d = !d.layered && !d.cubemap && d.depth > 0;
  l.dims = d.cubemap ? 2 : l.is_3d ? 3 : d.height > 0 ? 2 : 1;
  l.pitch = uint64_t(l.width) * d.format.element_bytes();
  l.slice = l.pitch * l.height;
  if (l.bytes() > kMaxArrayBytes) throw ApiError(fmt::format("array of {} bytes is too large", l.bytes()));
  l.base = mem.allocate(l.bytes(), "cuda array");
  arrays_.push_back(l);
  return make_handle(Kind::Array, arrays_.size() - 1);
}

const TexelLayout& TextureObjects::array(uint64_t handle) const {
  const TexelLayout* l = find(arrays_, handle, Kind::Array);
  if (!l) throw ApiError(fmt::format("0x{:x} is not a live CUDA array", handle));
  return *l;
}

void TextureObjects::remove_array(AddressSpace& mem, uint64_t handle) {
  mem.release(array(handle).base);
  arrays_[(handle & 0xffff'ffff'ffffull) - 1].reset();
}

uint64_t TextureObjects::add_texture(const AddressSpace& mem, const TextureResource& r, const TextureDesc& d) {
  TextureObject t;
  t.desc = d;
  TexelLayout& l = t.layout;
  switch (r.kind) {
    case ResourceKind::Array: l = array(r.array); break;
    case ResourceKind::Linear: {
      check_format(r.format);
      l.format = r.format;
      const uint32_t eb = r.format.element_bytes();
      if (r.size_bytes == 0 || r.size_bytes % eb != 0 || r.size_bytes / eb > (uint64_t(1) << 28))
        throw ApiError(fmt::format("linear texture of {} bytes: must be a non-zero multiple of the {}-byte "
                                   "element, at most 2^28 elements",
                                   r.size_bytes, eb));
      check_memory(mem, r.ptr, r.size_bytes, "linear texture memory");
      l.base = r.ptr;
      l.width = uint32_t(r.size_bytes / eb);
      l.pitch = l.slice = r.size_bytes;
      t.linear_memory = true;
      break;
    }
    case ResourceKind::Pitch2D: {
      check_format(r.format);
      l.format = r.format;
      const uint64_t row = uint64_t(r.width) * r.format.element_bytes();
      if (r.width == 0 || r.height == 0 || r.width > kMaxExtent || r.height > kMaxExtent || r.pitch < row)
        throw ApiError(fmt::format("pitched texture {} x {} with pitch {}: needs a non-zero extent of at most {} "
                                   "and pitch >= width x element bytes ({})",
                                   r.width, r.height, r.pitch, kMaxExtent, row));
      l.base = r.ptr;
      l.width = r.width;
      l.height = r.height;
      l.dims = 2;
      l.pitch = r.pitch;
      l.slice = r.pitch * (r.height - 1) + row;
      check_memory(mem, r.ptr, l.slice, "pitched texture memory");
      break;
    }
  }
  check(l.format, d);
  textures_.push_back(t);
  return make_handle(Kind::Texture, textures_.size() - 1);
}

void TextureObjects::check(const ChannelFormat& f, const TextureDesc& d) {
  check_format(f);
  if (d.read == ReadMode::NormalizedFloat && (f.kind == ChannelKind::Float || f.bits == 32))
    throw ApiError("normalized-float read mode needs an 8- or 16-bit integer format");
  if (d.filter == FilterMode::Linear && f.kind != ChannelKind::Float && d.read != ReadMode::NormalizedFloat)
    throw ApiError("linear filtering needs a float format or the normalized-float read mode");
}

uint64_t TextureObjects::add_surface(uint64_t array_handle) {
  surfaces_.push_back(array(array_handle));
  return make_handle(Kind::Surface, surfaces_.size() - 1);
}

void TextureObjects::remove(uint64_t handle, Kind kind) {
  const bool live = kind == Kind::Texture ? texture(handle) != nullptr : surface(handle) != nullptr;
  if (!live)
    throw ApiError(fmt::format("0x{:x} is not a live {} object", handle, kind == Kind::Texture ? "texture" : "surface"));
  const size_t i = (handle & 0xffff'ffff'ffffull) - 1;
  if (kind == Kind::Texture) textures_[i].reset();
  else surfaces_[i].reset();
}

// ---- texel arithmetic --------------------------------------------------------

float quantize_weight(float frac) { return std::nearbyint(frac * 256.0f) / 256.0f; }

CubeFace cube_face(float x, float y, float z) {
  const float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  uint32_t face;
  float m, s, t;
  if (ax >= ay && ax >= az) {
    face = x >= 0 ? 0 : 1, m = ax, s = x >= 0 ? -z : z, t = -y;
  } else if (ay >= az) {
    face = y >= 0 ? 2 : 3, m = ay, s = x, t = y >= 0 ? z : -z;
  } else {
    face = z >= 0 ? 4 : 5, m = az, s = z >= 0 ? x : -x, t = -y;
  }
  return CubeFace{face, (s / m + 1) / 2, (t / m + 1) / 2};
}

namespace {

// Texel index along a dimension of `n` texels; nullopt: outside with a border.
std::optional<int64_t> address(int64_t i, uint32_t n, AddressMode m, bool normalized) {
  if (i >= 0 && i < int64_t(n)) return i;
  if (!normalized && (m == AddressMode::Wrap || m == AddressMode::Mirror)) m = AddressMode::Clamp;
  switch (m) {
    case AddressMode::Wrap: return ((i % n) + n) % n;
    case AddressMode::Mirror: {
      const int64_t k = ((i % (2 * int64_t(n))) + 2 * int64_t(n)) % (2 * int64_t(n));
      return k < int64_t(n) ? k : 2 * int64_t(n) - 1 - k;
    }
    case AddressMode::Border: return std::nullopt;
    default: return std::clamp<int64_t>(i, 0, int64_t(n) - 1);
  }
}

uint32_t float_bits(float f) { return std::bit_cast<uint32_t>(f); }

// floor(v) as a texel index; NaN reads index 0 and infinities a far texel
// (the address mode then applies), never an out-of-range conversion.
int64_t floor_index(float v) {
  if (std::isnan(v)) return 0;
  return int64_t(std::clamp(std::floor(v), -1e12f, 1e12f));
}

// Raw channel c of the texel at p, sign- or zero-extended to 32 bits.
uint32_t raw_channel(const uint8_t* p, const ChannelFormat& f, unsigned c) {
  const uint8_t* q = p + c * (f.bits / 8);
  switch (f.bits) {
    case 8: return f.kind == ChannelKind::Signed ? uint32_t(int32_t(int8_t(*q))) : *q;
    case 16: {
      uint16_t v;
      std::memcpy(&v, q, 2);
      if (f.kind == ChannelKind::Float) return float_bits(compute::to_float(compute::Half{v}));
      return f.kind == ChannelKind::Signed ? uint32_t(int32_t(int16_t(v))) : v;
    }
    default: {
      uint32_t v;
      std::memcpy(&v, q, 4);
      return v;
    }
  }
}

// Channel c as a float: floats as they are, integers normalized or converted.
float float_channel(const uint8_t* p, const ChannelFormat& f, unsigned c, ReadMode rm) {
  const uint32_t raw = raw_channel(p, f, c);
  if (f.kind == ChannelKind::Float) return std::bit_cast<float>(raw);
  if (f.kind == ChannelKind::Unsigned)
    return rm == ReadMode::NormalizedFloat ? float(raw) / float((1u << f.bits) - 1) : float(raw);
  const float v = float(int32_t(raw));
  return rm == ReadMode::NormalizedFloat ? std::max(v / float((1u << (f.bits - 1)) - 1), -1.0f) : v;
}

// The texels of one fetch: slice `slice` of the source, indices after address modes.
struct Fetcher {
  const TexelSource& s;
  uint32_t slice;
  bool normalized;
  std::optional<uint64_t>& first;

  const TexelLayout& l() const { return s.tex.layout; }
  // Byte offset of texel (i, j, k) of the slice, or nullopt for the border.
  std::optional<uint64_t> offset(int64_t i, int64_t j, int64_t k) const {
    const auto& a = s.tex.desc.address;
    auto x = address(i, l().width, a[0], normalized);
    auto y = l().dims >= 2 ? address(j, l().height, a[1], normalized) : std::optional<int64_t>(0);
    auto z = l().dims == 3 ? address(k, l().depth, a[2], normalized) : std::optional<int64_t>(slice);
    if (!x || !y || !z) return std::nullopt;
    uint64_t off = uint64_t(*z) * l().slice + uint64_t(*y) * l().pitch + uint64_t(*x) * l().format.element_bytes();
    if (!first) first = off;
    return off;
  }
  std::array<float, 4> as_float(std::optional<uint64_t> off) const {
    std::array<float, 4> v{0, 0, 0, 1};
    if (!off) return s.tex.desc.border;
    for (unsigned c = 0; c < l().format.channels; ++c)
      v[c] = float_channel(s.data + *off, l().format, c, s.tex.desc.read);
    return v;
  }
  Texel4 as_result(std::optional<uint64_t> off, bool float_result) const {
    if (float_result) {
      auto f = as_float(off);
      return {float_bits(f[0]), float_bits(f[1]), float_bits(f[2]), float_bits(f[3])};
    }
    Texel4 v{0, 0, 0, 1};
    if (!off) {
      for (unsigned c = 0; c < 4; ++c) v[c] = uint32_t(int32_t(s.tex.desc.border[c]));
      return v;
    }
    for (unsigned c = 0; c < l().format.channels; ++c) v[c] = raw_channel(s.data + *off, l().format, c);
    return v;
  }
};

// Slice of a layer (or of a cube face in a layer), the layer clamped to the array.
uint32_t layer_slice(const TexelLayout& l, uint32_t layer, uint32_t face) {
  if (l.cubemap) return std::min(layer, l.depth / 6 - 1) * 6 + face;
  return l.layered ? std::min(layer, l.depth - 1) : 0;
}

}  // namespace

Texel4 texture_fetch(const TexelSource& s, const std::array<float, 3>& coords, uint32_t layer, bool float_result,
                     std::optional<uint64_t>& first_texel) {
  const TexelLayout& l = s.tex.layout;
  std::array<float, 3> u = coords;
  bool normalized = s.tex.desc.normalized_coords;
  uint32_t face = 0;
  if (l.cubemap) {
    const CubeFace cf = cube_face(coords[0], coords[1], coords[2]);
    face = cf.face;
    u = {cf.s, cf.t, 0};
    normalized = true;
  }
  const std::array<uint32_t, 3> size{l.width, l.height, l.depth};
  if (normalized)
    for (unsigned d = 0; d < l.dims; ++d) u[d] *= float(size[d]);
  Fetcher f{s, layer_slice(l, layer, face), normalized, first_texel};
  if (s.tex.desc.filter == FilterMode::Point || !float_result) {
    return f.as_result(f.offset(floor_index(u[0]), floor_index(u[1]), floor_index(u[2])), float_result);
  }
  // Linear: the 2^dims texels around u - 0.5, weighted in 9-bit fixed point.
  std::array<int64_t, 3> i0{};
  std::array<float, 3> w{};
  for (unsigned d = 0; d < l.dims; ++d) {
    const float b = u[d] - 0.5f;
    i0[d] = floor_index(b);
    w[d] = quantize_weight(b - std::floor(b));
  }
  std::array<float, 4> acc{};
  for (unsigned corner = 0; corner < (1u << l.dims); ++corner) {
    float weight = 1;
    std::array<int64_t, 3> i = i0;
    for (unsigned d = 0; d < l.dims; ++d) {
      const bool hi = (corner >> d) & 1;
      i[d] += hi;
      weight *= hi ? w[d] : 1 - w[d];
    }
    const auto t = f.as_float(f.offset(i[0], i[1], i[2]));
    for (unsigned c = 0; c < 4; ++c) acc[c] += weight * t[c];
  }
  return {float_bits(acc[0]), float_bits(acc[1]), float_bits(acc[2]), float_bits(acc[3])};
}

Texel4 texture_fetch_integer(const TexelSource& s, const std::array<int32_t, 3>& coords, uint32_t layer,
                             bool float_result, std::optional<uint64_t>& first_texel) {
  const TexelLayout& l = s.tex.layout;
  if (s.tex.linear_memory && (coords[0] < 0 || uint32_t(coords[0]) >= l.width))
    return float_result ? Texel4{0, 0, 0, float_bits(1)} : Texel4{0, 0, 0, 1};  // tex1Dfetch outside: 0
  Fetcher f{s, layer_slice(l, layer, 0), false, first_texel};
  return f.as_result(f.offset(coords[0], coords[1], coords[2]), float_result);
}

Texel4 texture_gather(const TexelSource& s, float x, float y, unsigned comp, bool float_result,
                      std::optional<uint64_t>& first_texel) {
  const TexelLayout& l = s.tex.layout;
  const bool normalized = s.tex.desc.normalized_coords;
  if (normalized) x *= float(l.width), y *= float(l.height);
  Fetcher f{s, 0, normalized, first_texel};
  const int64_t i = floor_index(x - 0.5f), j = floor_index(y - 0.5f);
  const std::array<std::array<int64_t, 2>, 4> corners{{{i, j + 1}, {i + 1, j + 1}, {i + 1, j}, {i, j}}};
  Texel4 out{};
  for (unsigned k = 0; k < 4; ++k) out[k] = f.as_result(f.offset(corners[k][0], corners[k][1], 0), float_result)[comp];
  return out;
}

}  // namespace gpumux::exec
