// The texture unit's arithmetic (exec/texture.h) against hand-computed
// results: each address mode and filter, read modes, channel formats,
// gathers, cubemap faces, layers and the object registry's checks.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <limits>
#include <vector>

#include "gpumux/core/error.h"
#include "gpumux/exec/address_space.h"
#include "gpumux/exec/texture.h"

namespace gpumux::exec {
namespace {

constexpr ChannelFormat kFloat1{1, 32, ChannelKind::Float};

// One application's memory with an array holding `data` and a texture over it.
struct Fixture {
  AddressSpace mem;
  uint64_t arr = 0, tex = 0;

  template <class T>
  Fixture(const ArrayDesc& a, const std::vector<T>& data, const TextureDesc& d) {
    arr = mem.textures().add_array(mem, a);
    mem.write(mem.textures().array(arr).base, data.data(), data.size() * sizeof(T));
    TextureResource r;
    r.array = arr;
    tex = mem.textures().add_texture(mem, r, d);
  }
  TexelSource source() {
    const TextureObject& t = *mem.textures().texture(tex);
    return TexelSource{mem.translate(t.layout.base, t.layout.bytes()), t};
  }
  Texel4 fetch(float x, float y = 0, float z = 0, uint32_t layer = 0, bool float_result = true) {
    std::optional<uint64_t> first;
    return texture_fetch(source(), {x, y, z}, layer, float_result, first);
  }
  float fetch_f(float x, float y = 0, float z = 0, uint32_t layer = 0) {
    return std::bit_cast<float>(fetch(x, y, z, layer)[0]);
  }
};

TextureDesc desc(AddressMode m, FilterMode f, bool normalized = false) {
  TextureDesc d;
  d.address = {m, m, m};
  d.filter = f;
  d.normalized_coords = normalized;
  return d;
}

const std::vector<float> kRamp{1, 2, 4, 8};
const ArrayDesc k1d{kFloat1, 4, 0, 0};

TEST(TextureFetch, PointSamplingTakesFloorAndClamps) {
  Fixture f(k1d, kRamp, desc(AddressMode::Clamp, FilterMode::Point));
  EXPECT_EQ(f.fetch_f(2.7f), 4.0f);
  EXPECT_EQ(f.fetch_f(-1.0f), 1.0f);
  EXPECT_EQ(f.fetch_f(5.0f), 8.0f);
  // A one-channel format reads (x, 0, 0, 1).
  const Texel4 t = f.fetch(0.5f);
  EXPECT_EQ(std::bit_cast<float>(t[1]), 0.0f);
  EXPECT_EQ(std::bit_cast<float>(t[3]), 1.0f);
}

TEST(TextureFetch, NonFiniteCoordinatesReadATexelOfTheAddressMode) {
  Fixture f(k1d, kRamp, desc(AddressMode::Clamp, FilterMode::Point));
  EXPECT_EQ(f.fetch_f(std::numeric_limits<float>::quiet_NaN()), 1.0f);
  EXPECT_EQ(f.fetch_f(std::numeric_limits<float>::infinity()), 8.0f);
  EXPECT_EQ(f.fetch_f(-std::numeric_limits<float>::infinity()), 1.0f);
  Fixture w(k1d, kRamp, desc(AddressMode::Wrap, FilterMode::Point, true));
  EXPECT_EQ(w.fetch_f(1e30f), 1.0f);  // a far texel, wrapped: 10^12 mod 4 = 0
}

TEST(TextureFetch, LinearFilteringUsesNineBitWeights) {
  Fixture f(k1d, kRamp, desc(AddressMode::Clamp, FilterMode::Linear));
  EXPECT_EQ(f.fetch_f(1.0f), 1.5f);          // x - 0.5 = 0.5: halfway between T[0] and T[1]
  EXPECT_EQ(f.fetch_f(1.3f), 1.80078125f);   // alpha 0.8 -> 205/256, not 1.8
  EXPECT_EQ(f.fetch_f(0.2f), 1.0f);          // T[-1] clamps to T[0]
  EXPECT_EQ(quantize_weight(0.8f), 205.0f / 256);
  EXPECT_EQ(quantize_weight(0.7f), 179.0f / 256);
}

TEST(TextureFetch, BorderModeBlendsTheBorderColour) {
  TextureDesc d = desc(AddressMode::Border, FilterMode::Linear);
  d.border = {10, 0, 0, 0};
  Fixture f(k1d, kRamp, d);
  // T[-1] = 10 (border), T[0] = 1, alpha = 179/256: 10 (77/256) + 179/256.
  EXPECT_EQ(f.fetch_f(0.2f), 3.70703125f);
  Fixture p(k1d, kRamp, [&] { TextureDesc q = d; q.filter = FilterMode::Point; return q; }());
  EXPECT_EQ(p.fetch_f(4.0f), 10.0f);
  EXPECT_EQ(p.fetch_f(3.9f), 8.0f);
}

TEST(TextureFetch, WrapAndMirrorNeedNormalizedCoordinates) {
  Fixture w(k1d, kRamp, desc(AddressMode::Wrap, FilterMode::Point, true));
  EXPECT_EQ(w.fetch_f(1.1f), 1.0f);    // 4.4 -> texel 4 -> wraps to 0
  EXPECT_EQ(w.fetch_f(-0.1f), 8.0f);   // -0.4 -> texel -1 -> 3
  Fixture wl(k1d, kRamp, desc(AddressMode::Wrap, FilterMode::Linear, true));
  EXPECT_EQ(wl.fetch_f(1.1f), 1.7109375f);  // 3.9: T[3] = 8 and T[0] = 1, alpha 230/256
  Fixture m(k1d, kRamp, desc(AddressMode::Mirror, FilterMode::Point, true));
  EXPECT_EQ(m.fetch_f(1.1f), 8.0f);    // texel 4 mirrors to 3
  EXPECT_EQ(m.fetch_f(1.6f), 2.0f);    // 6.4 -> texel 6 -> 1
  EXPECT_EQ(m.fetch_f(-0.1f), 1.0f);   // texel -1 mirrors to 0
  // Unnormalized coordinates treat wrap as clamp.
  Fixture u(k1d, kRamp, desc(AddressMode::Wrap, FilterMode::Point, false));
  EXPECT_EQ(u.fetch_f(4.4f), 8.0f);
}

TEST(TextureFetch, BilinearAndGather) {
  const std::vector<float> quad{0, 10, 20, 30};  // row 0: 0 10, row 1: 20 30
  Fixture f({kFloat1, 2, 2, 0}, quad, desc(AddressMode::Clamp, FilterMode::Linear));
  EXPECT_EQ(f.fetch_f(1.0f, 1.0f), 15.0f);
  // alpha 0.25, beta 0.75: 10 (0.25)(0.25) + 20 (0.75)(0.75) + 30 (0.25)(0.75)
  EXPECT_EQ(f.fetch_f(0.75f, 1.25f), 17.5f);
  // Normalized coordinates scale by the size: (0.5, 0.5) is the centre.
  Fixture n({kFloat1, 2, 2, 0}, quad, desc(AddressMode::Clamp, FilterMode::Linear, true));
  EXPECT_EQ(n.fetch_f(0.5f, 0.5f), 15.0f);
  std::optional<uint64_t> first;
  const Texel4 g = texture_gather(f.source(), 1.0f, 1.0f, 0, true, first);
  EXPECT_EQ(std::bit_cast<float>(g[0]), 20.0f);  // (i, j+1)
  EXPECT_EQ(std::bit_cast<float>(g[1]), 30.0f);  // (i+1, j+1)
  EXPECT_EQ(std::bit_cast<float>(g[2]), 10.0f);  // (i+1, j)
  EXPECT_EQ(std::bit_cast<float>(g[3]), 0.0f);   // (i, j)
}

TEST(TextureFetch, TrilinearAndLayers) {
  std::vector<float> cube(8);
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x) cube[size_t(z * 4 + y * 2 + x)] = float(x + 2 * y + 4 * z);
  Fixture f({kFloat1, 2, 2, 2}, cube, desc(AddressMode::Clamp, FilterMode::Linear));
  EXPECT_EQ(f.fetch_f(1.0f, 1.0f, 1.0f), 3.5f);
  Fixture p({kFloat1, 2, 2, 2}, cube, desc(AddressMode::Clamp, FilterMode::Point));
  EXPECT_EQ(p.fetch_f(1.5f, 0.2f, 1.7f), 5.0f);  // texel (1, 0, 1)

  ArrayDesc layered{kFloat1, 2, 0, 2};
  layered.layered = true;
  Fixture l(layered, std::vector<float>{1, 2, 3, 4}, desc(AddressMode::Clamp, FilterMode::Point));
  EXPECT_EQ(l.fetch_f(0.5f, 0, 0, 1), 3.0f);
  EXPECT_EQ(l.fetch_f(1.5f, 0, 0, 0), 2.0f);
  EXPECT_EQ(l.fetch_f(0.5f, 0, 0, 7), 3.0f);  // the layer clamps to the last
}

TEST(TextureFetch, CubemapFaceSelection) {
  CubeFace a = cube_face(1.0f, 0.5f, -0.25f);  // +x: s = -z, t = -y
  EXPECT_EQ(a.face, 0u);
  EXPECT_EQ(a.s, 0.625f);
  EXPECT_EQ(a.t, 0.25f);
  CubeFace b = cube_face(-0.2f, 0.9f, 0.3f);  // +y: s = x, t = z
  EXPECT_EQ(b.face, 2u);
  EXPECT_FLOAT_EQ(b.s, (-0.2f / 0.9f + 1) / 2);
  EXPECT_FLOAT_EQ(b.t, (0.3f / 0.9f + 1) / 2);
  CubeFace c = cube_face(0.0f, 0.0f, -2.0f);  // -z
  EXPECT_EQ(c.face, 5u);
  EXPECT_EQ(c.s, 0.5f);
  EXPECT_EQ(c.t, 0.5f);
  EXPECT_EQ(cube_face(-3.0f, 1.0f, 1.0f).face, 1u);
  EXPECT_EQ(cube_face(0.1f, -3.0f, 1.0f).face, 3u);
  EXPECT_EQ(cube_face(0.1f, 0.2f, 3.0f).face, 4u);

  // Face f of a 1 x 1 cubemap holds f: a fetch reads the selected face.
  ArrayDesc cd{kFloat1, 1, 1, 6};
  cd.cubemap = true;
  Fixture f(cd, std::vector<float>{0, 1, 2, 3, 4, 5}, desc(AddressMode::Clamp, FilterMode::Point));
  EXPECT_EQ(f.fetch_f(-1.0f, 0.1f, 0.1f), 1.0f);
  EXPECT_EQ(f.fetch_f(0.1f, 0.2f, -1.0f), 5.0f);
}

TEST(TextureFetch, ReadModesAndChannelFormats) {
  TextureDesc nf = desc(AddressMode::Clamp, FilterMode::Point);
  nf.read = ReadMode::NormalizedFloat;
  Fixture u8({{1, 8, ChannelKind::Unsigned}, 3, 0, 0}, std::vector<uint8_t>{255, 51, 0}, nf);
  EXPECT_EQ(u8.fetch_f(0.5f), 1.0f);
  EXPECT_EQ(u8.fetch_f(1.5f), 51.0f / 255.0f);
  Fixture s8({{1, 8, ChannelKind::Signed}, 3, 0, 0}, std::vector<int8_t>{-128, -127, 64}, nf);
  EXPECT_EQ(s8.fetch_f(0.5f), -1.0f);  // -128/127 clamps to -1
  EXPECT_EQ(s8.fetch_f(1.5f), -1.0f);
  EXPECT_EQ(s8.fetch_f(2.5f), 64.0f / 127.0f);
  // Normalized-float reads of 8-bit data can be filtered.
  nf.filter = FilterMode::Linear;
  Fixture lin({{1, 8, ChannelKind::Unsigned}, 2, 0, 0}, std::vector<uint8_t>{0, 255}, nf);
  EXPECT_EQ(lin.fetch_f(1.0f), 0.5f);

  // Element type: integers as they are, sign-extended.
  Fixture i4({{4, 8, ChannelKind::Unsigned}, 1, 0, 0}, std::vector<uint8_t>{1, 2, 3, 250},
             desc(AddressMode::Clamp, FilterMode::Point));
  EXPECT_EQ(i4.fetch(0.5f, 0, 0, 0, false), (Texel4{1, 2, 3, 250}));
  Fixture s16({{2, 16, ChannelKind::Signed}, 1, 0, 0}, std::vector<int16_t>{-5, 7},
              desc(AddressMode::Clamp, FilterMode::Point));
  EXPECT_EQ(s16.fetch(0.5f, 0, 0, 0, false), (Texel4{0xfffffffbu, 7, 0, 1}));
  // Half floats widen to f32.
  Fixture h({{1, 16, ChannelKind::Float}, 1, 0, 0}, std::vector<uint16_t>{0x3c00}, desc(AddressMode::Clamp, FilterMode::Point));
  EXPECT_EQ(h.fetch_f(0.5f), 1.0f);
}

TEST(TextureFetch, IntegerCoordinatesOfLinearMemoryReadZeroOutside) {
  AddressSpace mem;
  const std::vector<float> v{5, 6, 7};
  const uint64_t p = mem.allocate(12);
  mem.write(p, v.data(), 12);
  TextureResource r;
  r.kind = ResourceKind::Linear;
  r.ptr = p;
  r.format = kFloat1;
  r.size_bytes = 12;
  const uint64_t h = mem.textures().add_texture(mem, r, TextureDesc{});
  const TextureObject& t = *mem.textures().texture(h);
  const TexelSource s{mem.translate(p, 12), t};
  std::optional<uint64_t> first;
  EXPECT_EQ(std::bit_cast<float>(texture_fetch_integer(s, {2, 0, 0}, 0, true, first)[0]), 7.0f);
  EXPECT_EQ(first, 8u);
  EXPECT_EQ(std::bit_cast<float>(texture_fetch_integer(s, {3, 0, 0}, 0, true, first)[0]), 0.0f);
  EXPECT_EQ(std::bit_cast<float>(texture_fetch_integer(s, {-1, 0, 0}, 0, true, first)[0]), 0.0f);
}

TEST(TextureObjects, RejectsBadDescriptorsAndHandles) {
  AddressSpace mem;
  TextureObjects& t = mem.textures();
  EXPECT_THROW(t.add_array(mem, {{3, 8, ChannelKind::Unsigned}, 4, 0, 0}), ApiError);  // 3 channels
  ArrayDesc cube{kFloat1, 4, 2, 6};
  cube.cubemap = true;
  EXPECT_THROW(t.add_array(mem, cube), ApiError);  // not square
  const uint64_t ia = t.add_array(mem, {{1, 32, ChannelKind::Signed}, 4, 0, 0});
  TextureResource r;
  r.array = ia;
  TextureDesc lin;
  lin.filter = FilterMode::Linear;
  EXPECT_THROW(t.add_texture(mem, r, lin), ApiError);  // filtering integers as integers
  TextureDesc nf;
  nf.read = ReadMode::NormalizedFloat;
  EXPECT_THROW(t.add_texture(mem, r, nf), ApiError);   // 32-bit integers cannot be normalized
  TextureResource linear;
  linear.kind = ResourceKind::Linear;
  linear.ptr = mem.allocate(16);
  linear.size_bytes = 32;
  EXPECT_THROW(t.add_texture(mem, linear, TextureDesc{}), ApiError);  // past the allocation
  const uint64_t tex = t.add_texture(mem, r, TextureDesc{});
  const uint64_t surf = t.add_surface(ia);
  EXPECT_NE(t.texture(tex), nullptr);
  EXPECT_EQ(t.texture(surf), nullptr);  // a surface handle is not a texture
  EXPECT_EQ(t.surface(tex), nullptr);
  EXPECT_EQ(t.texture(0), nullptr);
  t.remove(tex, TextureObjects::Kind::Texture);
  EXPECT_EQ(t.texture(tex), nullptr);
  EXPECT_THROW(t.remove(tex, TextureObjects::Kind::Texture), ApiError);
  t.remove_array(mem, ia);
  EXPECT_THROW(t.array(ia), ApiError);
}

}  // namespace
}  // namespace gpumux::exec
