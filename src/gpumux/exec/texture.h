// Texture and surface objects of one application (CUDA's cudaArray,
// cudaTextureObject_t and cudaSurfaceObject_t), kept with the address space
// whose memory they describe, and the texel arithmetic of the texture unit.
//
// A CUDA array is an ordinary allocation of the address space with a dense
// layout: element (x, y, z) at base + z * slice + y * pitch + x * element
// bytes, where z is the depth of a 3D array, the layer of a layered array,
// or layer * 6 + face of a cubemap. Handles are non-zero 64-bit values, never
// reused; the kind is in the top bits, so passing a surface where a texture is
// expected is reported, not misread.
//
// Sampling follows the CUDA programming guide's appendix "Texture Fetching":
// coordinates are scaled by the size when normalized; point filtering takes
// texel floor(x); linear filtering takes x - 0.5, and the interpolation
// weight frac(x - 0.5) in 9-bit fixed point (8 fractional bits, rounded to
// nearest). Address modes apply per texel index: clamp, border (the border
// colour), and with normalized coordinates wrap and mirror (unnormalized
// coordinates treat those as clamp, as CUDA does). Arrays have one mipmap
// level, so tex.level and tex.grad sample level 0.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpumux::exec {

class AddressSpace;

enum class ChannelKind : uint8_t { Signed, Unsigned, Float };  // cudaChannelFormatKind order
struct ChannelFormat {
  uint8_t channels = 1;  // 1, 2 or 4
  uint8_t bits = 32;     // per channel: 8, 16, 32 (Float: 16 or 32)
  ChannelKind kind = ChannelKind::Float;
  uint32_t element_bytes() const { return uint32_t(channels) * bits / 8; }
};

// cudaMalloc3DArray's extent and flags: height 0 is 1D, depth 0 is 1D/2D;
// layered: depth is the layer count; cubemap: width == height, depth 6
// (6 x layers with layered too).
struct ArrayDesc {
  ChannelFormat format;
  uint32_t width = 0, height = 0, depth = 0;
  bool layered = false, cubemap = false;
};

// The same enumerator order as CUDA's cudaTextureAddressMode,
// cudaTextureFilterMode and cudaTextureReadMode.
enum class AddressMode : uint8_t { Wrap, Clamp, Mirror, Border };
enum class FilterMode : uint8_t { Point, Linear };
enum class ReadMode : uint8_t { ElementType, NormalizedFloat };

struct TextureDesc {
  std::array<AddressMode, 3> address{AddressMode::Clamp, AddressMode::Clamp, AddressMode::Clamp};
  FilterMode filter = FilterMode::Point;
  ReadMode read = ReadMode::ElementType;
  bool normalized_coords = false;
  std::array<float, 4> border{};  // border colour (AddressMode::Border)
};

// What a texture reads (cudaResourceDesc): an array, linear memory
// (cudaResourceTypeLinear) or pitched 2D memory (cudaResourceTypePitch2D).
enum class ResourceKind : uint8_t { Array, Linear, Pitch2D };
struct TextureResource {
  ResourceKind kind = ResourceKind::Array;
  uint64_t array = 0;          // Array: handle from TextureObjects::add_array
  uint64_t ptr = 0;            // Linear/Pitch2D: device address
  ChannelFormat format;        // Linear/Pitch2D
  uint64_t size_bytes = 0;     // Linear
  uint32_t width = 0, height = 0;  // Pitch2D, in elements
  uint64_t pitch = 0;          // Pitch2D: bytes between rows
};

// Where texels are and how they are arranged: an array or the memory of a
// linear/pitched resource, with the geometry the instructions need.
struct TexelLayout {
  uint64_t base = 0;
  ChannelFormat format;
  uint32_t width = 1, height = 1, depth = 1;  // depth: slices (3D depth, layers, faces)
  uint64_t pitch = 0, slice = 0;              // bytes between rows / slices
  bool layered = false, cubemap = false, is_3d = false;
  uint32_t dims = 1;                          // 1, 2 or 3 (the array's geometry)
  uint64_t bytes() const { return slice * depth; }
};

struct TextureObject {
  TexelLayout layout;
  TextureDesc desc;
  bool linear_memory = false;  // tex1Dfetch reads: integer coordinates, 0 outside
};

class TextureObjects {
 public:
  enum class Kind : uint8_t { Array = 1, Texture = 2, Surface = 3 };

  // Each throws ApiError naming what is wrong. add_array allocates the array's memory in `mem`.
  uint64_t add_array(AddressSpace& mem, const ArrayDesc& d);
  void remove_array(AddressSpace& mem, uint64_t handle);
  uint64_t add_texture(const AddressSpace& mem, const TextureResource& r, const TextureDesc& d);
  uint64_t add_surface(uint64_t array);
  void remove(uint64_t handle, Kind kind);  // a texture or surface
  // Throws ApiError unless a texture of this format can be read with this
  // descriptor (supported format; linear filtering and normalized-float reads
  // only where CUDA allows them).
  static void check(const ChannelFormat& f, const TextureDesc& d);

  // The array's layout (cudaMemcpy2DToArray etc. copy rows to base + y * pitch + z * slice).
  const TexelLayout& array(uint64_t handle) const;
  // Lookups by the instructions: nullptr if `handle` is not a live object of that kind.
  const TextureObject* texture(uint64_t handle) const { return find(textures_, handle, Kind::Texture); }
  const TexelLayout* surface(uint64_t handle) const { return find(surfaces_, handle, Kind::Surface); }

 private:
  template <class T>
  static const T* find(const std::vector<std::optional<T>>& v, uint64_t handle, Kind k) {
    const uint64_t i = (handle & 0xffff'ffff'ffffull) - 1;
    if ((handle >> 56) != uint64_t(k) || i >= v.size() || !v[i]) return nullptr;
    return &*v[i];
  }
  std::vector<std::optional<TexelLayout>> arrays_, surfaces_;
  std::vector<std::optional<TextureObject>> textures_;
};

// One fetch's result: four 32-bit channels (f32 bits for float results).
using Texel4 = std::array<uint32_t, 4>;

// The texels a fetch reads and how: `data` is the host view of layout.bytes().
struct TexelSource {
  const uint8_t* data;
  const TextureObject& tex;
};

// tex: coordinates x, y, z (unused ones 0) and the layer of layered
// textures; `float_result` for .f32 results, `int_coords` for .s32
// coordinates (texel indices, 0 outside). `first_texel` gets the byte offset
// of the first texel read (the timing model's address), or stays unset when
// the fetch reads none (border).
Texel4 texture_fetch(const TexelSource& s, const std::array<float, 3>& coords, uint32_t layer,
                     bool float_result, std::optional<uint64_t>& first_texel);
Texel4 texture_fetch_integer(const TexelSource& s, const std::array<int32_t, 3>& coords, uint32_t layer,
                             bool float_result, std::optional<uint64_t>& first_texel);
// tld4: channel `comp` of the four texels a 2D bilinear fetch at (x, y) reads,
// in the order (i, j+1), (i+1, j+1), (i+1, j), (i, j).
Texel4 texture_gather(const TexelSource& s, float x, float y, unsigned comp, bool float_result,
                      std::optional<uint64_t>& first_texel);
// Cube-map face selection (the guide's table): face 0..5 and the face's
// normalized coordinates.
struct CubeFace {
  uint32_t face;
  float s, t;
};
CubeFace cube_face(float x, float y, float z);

// The 9-bit fixed-point interpolation weight of a fraction in [0, 1).
float quantize_weight(float frac);

}  // namespace gpumux::exec
