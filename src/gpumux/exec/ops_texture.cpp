// Texture and surface instructions: tex, tld4, txq (texture objects) and
// suld.b, sust.b, suq (surface objects), all bindless: the object is a 64-bit
// handle in a register, looked up per lane in the application's
// TextureObjects (exec/texture.h). A fetch records the address of the first
// texel it reads (the footprint's corner) as a global load, which is what the
// timing model sends through the L1 with the texture unit's latency.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "gpumux/exec/address_space.h"
#include "gpumux/exec/bind_tables.h"
#include "gpumux/exec/compute/half.h"
#include "gpumux/exec/thread_block.h"
#include "gpumux/exec/texture.h"

namespace gpumux::exec {

namespace {

using ptx::Opcode;
using ptx::TexGeom;

const char* geometry_name(TexGeom g) {
  static constexpr const char* kNames[] = {"?", "1d", "2d", "3d", "a1d", "a2d", "cube", "acube"};
  return kNames[unsigned(g)];
}

// Whether an object of this layout can be read with geometry g.
bool geometry_matches(const TexelLayout& l, TexGeom g) {
  switch (g) {
    case TexGeom::D1: return l.dims == 1 && !l.layered;
    case TexGeom::D2: return l.dims == 2 && !l.layered && !l.cubemap;
    case TexGeom::D3: return l.is_3d;
    case TexGeom::A1d: return l.dims == 1 && l.layered;
    case TexGeom::A2d: return l.dims == 2 && l.layered && !l.cubemap;
    case TexGeom::Cube: return l.cubemap && !l.layered;
    case TexGeom::ACube: return l.cubemap && l.layered;
    default: return false;
  }
}

std::string describe(const TexelLayout& l) {
  const char* shape = l.cubemap ? "cubemap" : l.is_3d ? "3D" : l.dims == 2 ? "2D" : "1D";
  return fmt::format("a {}{} object", l.layered ? "layered " : "", shape);
}

AddressSpace& memory(StepContext& c) { return *c.warp->tb().launch().mem; }

const TextureObject& texture_of(StepContext& c, const ptx::Instruction& in, unsigned lane) {
  const uint64_t h = c.src(in.ops[1], lane);
  const TextureObject* t = memory(c).textures().texture(h);
  if (!t) c.fault(fmt::format("0x{:x} is not a live texture object", h), lane);
  if (in.op != Opcode::Txq && !geometry_matches(t->layout, in.tex.geom))
    c.fault(fmt::format("{}.{} on {}", ptx::opcode_name(in.op), geometry_name(in.tex.geom), describe(t->layout)), lane);
  return *t;
}

const TexelLayout& surface_of(StepContext& c, const ptx::Instruction& in, unsigned lane) {
  const uint64_t h = c.src(in.ops[in.op == Opcode::Sust ? 0 : 1], lane);
  const TexelLayout* l = memory(c).textures().surface(h);
  if (!l) c.fault(fmt::format("0x{:x} is not a live surface object", h), lane);
  if (in.op != Opcode::Suq && !geometry_matches(*l, in.tex.geom))
    c.fault(fmt::format("{}.{} on {}", ptx::opcode_name(in.op), geometry_name(in.tex.geom), describe(*l)), lane);
  return *l;
}

// Host view of an object's texels; faults if its memory is gone.
const uint8_t* texels(StepContext& c, const TexelLayout& l, unsigned lane) {
  const uint8_t* p = memory(c).translate(l.base, l.bytes());
  if (!p) c.fault(fmt::format("the memory of the texture or surface object was freed: {}",
                              memory(c).explain(l.base, l.bytes())),
                  lane);
  return p;
}

void record_texel(StepContext& c, unsigned lane, uint64_t addr, uint32_t bytes, bool store) {
  if (!c.warp->recording()) return;
  MemAccess& m = c.warp->access();
  m.space = ptx::Space::Global;
  m.bytes = bytes;
  m.is_store = store;
  m.is_atomic = false;
  m.mask |= 1u << lane;
  m.addr[lane] = addr;
}

uint32_t vec_elem(StepContext& c, const ptx::Operand& v, unsigned k, unsigned lane) {
  return v.vec[k] == ptx::kNoReg ? 0 : uint32_t(c.lanes(v.vec[k])[lane]);
}

void write_texel4(StepContext& c, const ptx::Operand& d, unsigned lane, const Texel4& v) {
  for (unsigned k = 0; k < 4; ++k)
    if (d.vec[k] != ptx::kNoReg) c.lanes(d.vec[k])[lane] = v[k];
}

// The coordinate vector of tex split into layer and x, y, z (arrays put the layer first).
struct TexCoords {
  uint32_t layer = 0;
  std::array<uint32_t, 3> xyz{};  // raw bits: f32 or s32
};
TexCoords tex_coords(StepContext& c, const ptx::Instruction& in, unsigned lane) {
  const ptx::Operand& v = in.ops[2];
  const TexGeom g = in.tex.geom;
  const bool array = g == TexGeom::A1d || g == TexGeom::A2d || g == TexGeom::ACube;
  const unsigned n = g == TexGeom::D1 || g == TexGeom::A1d ? 1 : g == TexGeom::D2 || g == TexGeom::A2d ? 2 : 3;
  TexCoords t;
  if (array) t.layer = vec_elem(c, v, 0, lane);
  for (unsigned k = 0; k < n; ++k) t.xyz[k] = vec_elem(c, v, k + (array ? 1 : 0), lane);
  return t;
}

template <bool FloatResult, bool IntCoords>
void tex(StepContext& c, const ptx::Instruction& in) {
  for_each_lane(c.mask, [&](unsigned lane) {
    const TextureObject& t = texture_of(c, in, lane);
    const TexelSource src{texels(c, t.layout, lane), t};
    const TexCoords tc = tex_coords(c, in, lane);
    std::optional<uint64_t> first;
    Texel4 r;
    if constexpr (IntCoords) {
      r = texture_fetch_integer(src, {int32_t(tc.xyz[0]), int32_t(tc.xyz[1]), int32_t(tc.xyz[2])}, tc.layer,
                                FloatResult, first);
    } else {
      r = texture_fetch(src, {from_bits<float>(tc.xyz[0]), from_bits<float>(tc.xyz[1]), from_bits<float>(tc.xyz[2])},
                        tc.layer, FloatResult, first);
    }
    write_texel4(c, in.ops[0], lane, r);
    if (first) record_texel(c, lane, t.layout.base + *first, t.layout.format.element_bytes(), false);
  });
}

template <bool FloatResult>
void tld4(StepContext& c, const ptx::Instruction& in) {
  for_each_lane(c.mask, [&](unsigned lane) {
    const TextureObject& t = texture_of(c, in, lane);
    const TexCoords tc = tex_coords(c, in, lane);
    std::optional<uint64_t> first;
    Texel4 r = texture_gather(TexelSource{texels(c, t.layout, lane), t}, from_bits<float>(tc.xyz[0]),
                              from_bits<float>(tc.xyz[1]), in.tex.comp, FloatResult, first);
    write_texel4(c, in.ops[0], lane, r);
    if (first) record_texel(c, lane, t.layout.base + *first, t.layout.format.element_bytes(), false);
  });
}

uint32_t layers(const TexelLayout& l) {
  if (!l.layered) return 0;
  return l.cubemap ? l.depth / 6 : l.depth;
}

void txq(StepContext& c, const ptx::Instruction& in) {
  for_each_lane(c.mask, [&](unsigned lane) {
    const TextureObject& t = texture_of(c, in, lane);
    const TexelLayout& l = t.layout;
    uint32_t v = 0;
    switch (in.tex.query) {
      case ptx::TexQuery::Width: v = l.width; break;
      case ptx::TexQuery::Height: v = l.dims >= 2 ? l.height : 0; break;
      case ptx::TexQuery::Depth: v = l.is_3d ? l.depth : 0; break;
      case ptx::TexQuery::NormalizedCoords: v = t.desc.normalized_coords; break;
      case ptx::TexQuery::FilterMode: v = uint32_t(t.desc.filter); break;
      case ptx::TexQuery::AddrMode0: v = uint32_t(t.desc.address[0]); break;
      case ptx::TexQuery::AddrMode1: v = uint32_t(t.desc.address[1]); break;
      case ptx::TexQuery::AddrMode2: v = uint32_t(t.desc.address[2]); break;
      case ptx::TexQuery::ArraySize: v = layers(l); break;
      case ptx::TexQuery::NumMipmapLevels: v = 1; break;
      default: break;  // num_samples: no multisample textures
    }
    c.lanes(in.ops[0].reg)[lane] = v;
  });
}

void suq(StepContext& c, const ptx::Instruction& in) {
  for_each_lane(c.mask, [&](unsigned lane) {
    const TexelLayout& l = surface_of(c, in, lane);
    uint32_t v = 0;
    switch (in.tex.query) {
      case ptx::TexQuery::Width: v = l.width; break;
      case ptx::TexQuery::Height: v = l.dims >= 2 ? l.height : 0; break;
      case ptx::TexQuery::Depth: v = l.is_3d ? l.depth : 0; break;
      case ptx::TexQuery::ArraySize: v = layers(l); break;
      default: break;  // memory_layout: 0, arrays are block linear on CUDA, dense here
    }
    c.lanes(in.ops[0].reg)[lane] = v;
  });
}

// suld.b/sust.b: byte x, row y, slice z (the layer of layered surfaces);
// the access of `bytes` must be aligned and inside the surface, else the
// instruction's mode: .trap faults, .clamp moves it to the nearest
// element inside, .zero reads zeros and drops the store.
// sust.p (Formatted): x counts elements; the .b32 values are channels R, G,
// B, A of the surface's format, f32 for float formats (16-bit floats rounded
// to nearest even) and integers otherwise (their low bits); values beyond the
// format's channels are ignored, channels beyond the values keep their bytes.
template <bool Store, bool Formatted = false>
void surface_access(StepContext& c, const ptx::Instruction& in) {
  const unsigned es = ptx::type_size(in.type);
  const ptx::Operand& coords = in.ops[Store ? 1 : 2];
  const ptx::Operand& values = in.ops[Store ? 2 : 0];
  for_each_lane(c.mask, [&](unsigned lane) {
    const TexelLayout& l = surface_of(c, in, lane);
    const uint32_t bytes = Formatted ? l.format.element_bytes() : es * in.vec;
    const TexGeom g = in.tex.geom;
    const bool array = g == TexGeom::A1d || g == TexGeom::A2d;
    const unsigned first = array ? 1 : 0;
    int64_t x = int64_t(int32_t(vec_elem(c, coords, first, lane))) * (Formatted ? bytes : 1);
    int64_t y = l.dims >= 2 ? int32_t(vec_elem(c, coords, first + 1, lane)) : 0;
    int64_t z = array ? int64_t(int32_t(vec_elem(c, coords, 0, lane)))
                      : l.is_3d ? int32_t(vec_elem(c, coords, 2, lane)) : 0;
    if (x % bytes != 0)
      c.fault(fmt::format("misaligned {}-byte surface access at byte x {}", bytes, x), lane);
    const int64_t row = int64_t(l.width) * l.format.element_bytes();
    const bool inside = x >= 0 && x + int64_t(bytes) <= row && y >= 0 && y < int64_t(l.height) && z >= 0 &&
                        z < int64_t(l.depth);
    if (!inside) {
      switch (in.tex.clamp) {
        case ptx::SurfClamp::Zero:
          if (!Store)
            for (unsigned k = 0; k < in.vec; ++k)
              if (values.vec[k] != ptx::kNoReg) c.lanes(values.vec[k])[lane] = 0;
          return;
        case ptx::SurfClamp::Clamp:
          if (row < int64_t(bytes)) c.fault(fmt::format("{}-byte surface access wider than a row", bytes), lane);
          x = std::clamp<int64_t>(x, 0, (row - bytes) / bytes * bytes);
          y = std::clamp<int64_t>(y, 0, int64_t(l.height) - 1);
          z = std::clamp<int64_t>(z, 0, int64_t(l.depth) - 1);
          break;
        default:
          c.fault(fmt::format("surface access out of range: byte x {}, y {}, {} {} on a {} x {} x {} surface of {}-byte "
                              "elements",
                              x, y, array ? "layer" : "z", z, l.width, l.height, l.depth, l.format.element_bytes()),
                  lane);
      }
    }
    const uint64_t off = uint64_t(z) * l.slice + uint64_t(y) * l.pitch + uint64_t(x);
    uint8_t* p = const_cast<uint8_t*>(texels(c, l, lane)) + off;
    for (unsigned k = 0; k < in.vec; ++k) {
      if (values.vec[k] == ptx::kNoReg) continue;
      uint64_t& r = c.lanes(values.vec[k])[lane];
      if constexpr (Formatted) {
        if (k >= l.format.channels) break;
        const unsigned cb = l.format.bits / 8;
        uint64_t v = r;
        if (l.format.kind == ChannelKind::Float && cb == 2)
          v = compute::from_double<compute::Half>(double(from_bits<float>(r))).bits;
        std::memcpy(p + k * cb, &v, cb);
      } else if constexpr (Store) {
        std::memcpy(p + k * es, &r, es);  // little-endian: the low bytes
      } else {
        r = 0;
        std::memcpy(&r, p + k * es, es);
      }
    }
    record_texel(c, lane, l.base + off, bytes, Store);
  });
}

}  // namespace

ptx::ExecHandler bind_texture(const ptx::Instruction& in, std::string& why) {
  const bool float_result = in.type == ptx::Type::F32;
  switch (in.op) {
    case Opcode::Tex:
      if (in.type2 == ptx::Type::S32) {
        if (in.tex.lod != ptx::TexLod::None) {
          why = "tex.level/tex.grad with integer coordinates";
          return nullptr;
        }
        return float_result ? &tex<true, true> : &tex<false, true>;
      }
      return float_result ? &tex<true, false> : &tex<false, false>;
    case Opcode::Tld4: return float_result ? &tld4<true> : &tld4<false>;
    case Opcode::Txq:
      if (in.tex.query == ptx::TexQuery::ChannelDataType || in.tex.query == ptx::TexQuery::ChannelOrder ||
          in.tex.lod == ptx::TexLod::Level) {
        why = "txq.channel_data_type, txq.channel_order and txq.level are not modeled";
        return nullptr;
      }
      return &txq;
    case Opcode::Suq:
      if (in.tex.query == ptx::TexQuery::ChannelDataType || in.tex.query == ptx::TexQuery::ChannelOrder) {
        why = "suq.channel_data_type and suq.channel_order are not modeled";
        return nullptr;
      }
      return &suq;
    case Opcode::Suld: return &surface_access<false>;
    case Opcode::Sust:
      if (in.tex.formatted && in.type != ptx::Type::B32) {
        why = "sust.p needs .b32 values";
        return nullptr;
      }
      return in.tex.formatted ? &surface_access<true, true> : &surface_access<true>;
    default: return nullptr;
  }
}

}  // namespace gpumux::exec
