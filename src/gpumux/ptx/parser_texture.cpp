#include "gpumux/ptx/parser_texture.h"

#include <optional>
#include <unordered_map>

#include <fmt/format.h>

namespace gpumux::ptx {

namespace {

std::optional<TexGeom> geometry(std::string_view m) {
  static const std::unordered_map<std::string_view, TexGeom> kGeoms = {
      {"1d", TexGeom::D1},   {"2d", TexGeom::D2},     {"3d", TexGeom::D3},      {"a1d", TexGeom::A1d},
      {"a2d", TexGeom::A2d}, {"cube", TexGeom::Cube}, {"acube", TexGeom::ACube},
  };
  auto it = kGeoms.find(m);
  if (it == kGeoms.end()) return std::nullopt;
  return it->second;
}

std::optional<TexQuery> query(std::string_view m) {
  static const std::unordered_map<std::string_view, TexQuery> kQueries = {
      {"width", TexQuery::Width},
      {"height", TexQuery::Height},
      {"depth", TexQuery::Depth},
      {"channel_data_type", TexQuery::ChannelDataType},
      {"channel_order", TexQuery::ChannelOrder},
      {"normalized_coords", TexQuery::NormalizedCoords},
      {"filter_mode", TexQuery::FilterMode},
      {"addr_mode_0", TexQuery::AddrMode0},
      {"addr_mode_1", TexQuery::AddrMode1},
      {"addr_mode_2", TexQuery::AddrMode2},
      {"array_size", TexQuery::ArraySize},
      {"num_mipmap_levels", TexQuery::NumMipmapLevels},
      {"num_samples", TexQuery::NumSamples},
      {"memory_layout", TexQuery::MemoryLayout},
  };
  auto it = kQueries.find(m);
  if (it == kQueries.end()) return std::nullopt;
  return it->second;
}

bool is_surface_query(TexQuery q) {
  return q == TexQuery::Width || q == TexQuery::Height || q == TexQuery::Depth ||
         q == TexQuery::ChannelDataType || q == TexQuery::ChannelOrder || q == TexQuery::ArraySize ||
         q == TexQuery::MemoryLayout;
}

bool is_vec(std::string_view m, Instruction& in) {
  if (m != "v2" && m != "v4") return false;
  in.vec = m == "v2" ? 2 : 4;
  return true;
}

// Cache operators of suld (.ca .cg .cs .cv) and sust (.wb .cg .cs .wt): ignored.
bool is_surface_cache_op(std::string_view m) {
  return m == "ca" || m == "cg" || m == "cs" || m == "cv" || m == "wb" || m == "wt";
}

bool set_clamp(std::string_view m, Instruction& in) {
  if (m == "trap") in.tex.clamp = SurfClamp::Trap;
  else if (m == "clamp") in.tex.clamp = SurfClamp::Clamp;
  else if (m == "zero") in.tex.clamp = SurfClamp::Zero;
  else return false;
  return true;
}

// Elements of a gradient vector (tex.grad) for a geometry.
unsigned gradient_count(TexGeom g) {
  switch (g) {
    case TexGeom::D1:
    case TexGeom::A1d: return 1;
    case TexGeom::D2:
    case TexGeom::A2d: return 2;
    default: return 4;
  }
}

bool is_register(const Operand& o) { return o.kind == OperandKind::Reg; }
bool is_vector(const Operand& o, unsigned n) { return o.kind == OperandKind::Vec && o.vcount == n; }

}  // namespace

bool is_texture_op(Opcode op) {
  return op == Opcode::Tex || op == Opcode::Tld4 || op == Opcode::Txq || op == Opcode::Suld ||
         op == Opcode::Sust || op == Opcode::Suq;
}

unsigned texture_coord_count(TexGeom g) {
  switch (g) {
    case TexGeom::D1: return 1;
    case TexGeom::D2:
    case TexGeom::A1d: return 2;
    default: return 4;
  }
}

bool apply_texture_modifier(Instruction& in, std::string_view m) {
  if (auto g = geometry(m); g && in.op != Opcode::Txq && in.op != Opcode::Suq) {
    in.tex.geom = *g;
    return true;
  }
  switch (in.op) {
    case Opcode::Tex:
      if (m == "level") in.tex.lod = TexLod::Level;
      else if (m == "grad") in.tex.lod = TexLod::Grad;
      else return m == "base" || is_vec(m, in);
      return true;
    case Opcode::Tld4:
      if (m.size() == 1 && std::string_view("rgba").find(m[0]) != std::string_view::npos)
        in.tex.comp = uint8_t(std::string_view("rgba").find(m[0]));
      else return is_vec(m, in);
      return true;
    case Opcode::Txq:
    case Opcode::Suq: {
      if (m == "level" && in.op == Opcode::Txq) {
        in.tex.lod = TexLod::Level;
        return true;
      }
      auto q = query(m);
      if (!q || (in.op == Opcode::Suq ? !is_surface_query(*q) : *q == TexQuery::MemoryLayout)) return false;
      in.tex.query = *q;
      return true;
    }
    case Opcode::Suld:
    case Opcode::Sust:
      if (m == "b") in.tex.formatted = false;
      else if (m == "p" && in.op == Opcode::Sust) in.tex.formatted = true;
      else return set_clamp(m, in) || is_vec(m, in) || is_surface_cache_op(m);
      return true;
    default: return false;
  }
}

unsigned texture_type_count(const Instruction& in) {
  return in.op == Opcode::Tex || in.op == Opcode::Tld4 ? 2 : 1;
}

std::string texture_modifiers_missing(const Instruction& in) {
  switch (in.op) {
    case Opcode::Tex:
    case Opcode::Tld4:
      if (in.tex.geom == TexGeom::None) return "a geometry (.1d, .2d, .3d, .a1d, .a2d, .cube, .acube)";
      if (in.vec != 4) return ".v4";
      if (in.type != Type::F32 && in.type != Type::S32 && in.type != Type::U32)
        return "a result type .f32, .s32 or .u32";
      if (in.type2 != Type::F32 && in.type2 != Type::S32) return "a coordinate type .f32 or .s32";
      if (in.op == Opcode::Tld4 && in.type2 != Type::F32) return "coordinate type .f32";
      if (in.op == Opcode::Tld4 && in.tex.geom != TexGeom::D2) return "geometry .2d";
      return "";
    case Opcode::Txq:
    case Opcode::Suq:
      if (in.tex.query == TexQuery::None) return "a query (.width, .height, ...)";
      if (in.type != Type::B32) return "type .b32";
      return "";
    case Opcode::Suld:
    case Opcode::Sust:
      if (in.tex.geom == TexGeom::None || in.tex.geom == TexGeom::Cube || in.tex.geom == TexGeom::ACube)
        return "a geometry (.1d, .2d, .3d, .a1d, .a2d)";
      if (in.type != Type::B8 && in.type != Type::B16 && in.type != Type::B32 && in.type != Type::B64)
        return "a type .b8, .b16, .b32 or .b64";
      if (in.tex.clamp == SurfClamp::None) return "an out-of-range mode (.trap, .clamp, .zero)";
      return "";
    default: return "";
  }
}

namespace {

// Operands of tex/tld4 without offsets or depth compare.
unsigned fetch_operand_count(const Instruction& in) {
  return in.tex.lod == TexLod::Level ? 4 : in.tex.lod == TexLod::Grad ? 5 : 3;
}

}  // namespace

std::string texture_unsupported_form(const Instruction& in) {
  if (in.pred_dst2 != kNoReg) return "predicate destination (sparse texture residency)";
  if ((in.op == Opcode::Tex || in.op == Opcode::Tld4) && in.nops > fetch_operand_count(in))
    return "offset or depth-compare operands";
  return "";
}

// Operands (flattened: "[a, b]" is two operands):
//   tex  d, a, c {, lod | , dPdx, dPdy}   tld4 d, a, c   txq d, a {, lod}
//   suld d, a, c   sust a, c, v   suq d, a
std::string texture_operands_error(const Instruction& in) {
  const unsigned coords = texture_coord_count(in.tex.geom);
  auto count = [&](unsigned want) {
    return in.nops == want ? std::string() : fmt::format("{} operands, found {}", want, in.nops);
  };
  switch (in.op) {
    case Opcode::Tex:
    case Opcode::Tld4: {
      if (auto e = count(fetch_operand_count(in)); !e.empty()) return e;
      if (!is_vector(in.ops[0], 4)) return "a destination vector of 4 registers";
      if (!is_register(in.ops[1])) return "a texture object in a 64-bit register";
      if (!is_vector(in.ops[2], coords)) return fmt::format("a coordinate vector of {} registers", coords);
      if (in.tex.lod == TexLod::Level && !is_register(in.ops[3]) && in.ops[3].kind != OperandKind::Imm)
        return "a level of detail (register or value)";
      if (in.tex.lod == TexLod::Grad &&
          !(is_vector(in.ops[3], gradient_count(in.tex.geom)) && is_vector(in.ops[4], gradient_count(in.tex.geom))))
        return fmt::format("two gradient vectors of {} registers", gradient_count(in.tex.geom));
      return "";
    }
    case Opcode::Txq:
    case Opcode::Suq: {
      if (auto e = count(in.tex.lod == TexLod::Level ? 3 : 2); !e.empty()) return e;
      if (!is_register(in.ops[0])) return "a destination register";
      if (!is_register(in.ops[1])) return "an object in a 64-bit register";
      return "";
    }
    case Opcode::Suld:
    case Opcode::Sust: {
      if (auto e = count(3); !e.empty()) return e;
      const unsigned obj = in.op == Opcode::Suld ? 1 : 0;
      const Operand& values = in.ops[in.op == Opcode::Suld ? 0 : 2];
      if (!is_register(in.ops[obj])) return "a surface object in a 64-bit register";
      if (!is_vector(in.ops[obj + 1], coords)) return fmt::format("a coordinate vector of {} registers", coords);
      if (!is_vector(values, in.vec)) return fmt::format("a value vector of {} register(s)", in.vec);
      return "";
    }
    default: return "";
  }
}

}  // namespace gpumux::ptx
