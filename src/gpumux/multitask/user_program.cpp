#include "gpumux/multitask/user_program.h"

#include <bit>
#include <charconv>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/multitask/baseline_cache.h"

namespace gpumux::multitask {

namespace {

template <class T>
T parse_number(std::string_view s, std::string_view kind) {
  T v{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty())
    throw std::invalid_argument(fmt::format("'{}' is not a valid {} value", s, kind));
  return v;
}

std::vector<uint8_t> initial_contents(const UserProgram::Buffer& b, workloads::Rng& rng) {
  std::vector<uint8_t> v(b.bytes, 0);
  using Init = UserProgram::Buffer::Init;
  for (uint64_t i = 0; i + 4 <= b.bytes; i += 4) {
    uint32_t word = 0;
    switch (b.init) {
      case Init::Random: word = rng.u32(); break;
      case Init::IotaU32: word = uint32_t(i / 4); break;
      case Init::IotaF32: word = std::bit_cast<uint32_t>(float(i / 4)); break;
      default: break;
    }
    std::memcpy(v.data() + i, &word, 4);
  }
  return v;
}

void write_output(const std::filesystem::path& file, const std::vector<uint8_t>& bytes) {
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  std::ofstream out(file, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!out) throw ApiError(fmt::format("cannot write output buffer file {}", file.string()));
}

}  // namespace

exec::TextureResource texture_resource(const UserProgram::Buffer::Texture& t, uint64_t ptr, uint64_t bytes) {
  exec::TextureResource r;
  r.ptr = ptr;
  r.format = t.format;
  if (t.width == 0) {
    r.kind = exec::ResourceKind::Linear;
    r.size_bytes = bytes;
  } else {
    r.kind = exec::ResourceKind::Pitch2D;
    r.width = t.width;
    r.pitch = uint64_t(t.width) * t.format.element_bytes();
    r.height = uint32_t(bytes / r.pitch);
  }
  return r;
}

UserProgram::Arg parse_arg(const std::string& text, const std::vector<UserProgram::Buffer>& buffers) {
  auto colon = text.find(':');
  if (colon == std::string::npos)
    throw std::invalid_argument(fmt::format("'{}': expected kind:value (buf:, tex:, u32:, s32:, u64:, s64:, f32:, f64:)", text));
  std::string_view kind = std::string_view(text).substr(0, colon), value = std::string_view(text).substr(colon + 1);
  UserProgram::Arg a;
  using K = UserProgram::Arg::Kind;
  if (kind == "buf" || kind == "tex") {
    a.kind = kind == "buf" ? K::Buffer : K::Texture;
    for (a.buffer = 0; a.buffer < buffers.size() && buffers[a.buffer].name != value; ++a.buffer) {
    }
    if (a.buffer == buffers.size()) throw std::invalid_argument(fmt::format("'{}': no buffer named '{}'", text, value));
    if (kind == "tex" && !buffers[a.buffer].texture)
      throw std::invalid_argument(fmt::format("'{}': buffer '{}' has no texture = {{ ... }}", text, value));
  } else if (kind == "u32") {
    a.kind = K::U32;
    a.bits = parse_number<uint32_t>(value, kind);
  } else if (kind == "s32") {
    a.kind = K::S32;
    a.bits = uint64_t(int64_t(parse_number<int32_t>(value, kind)));
  } else if (kind == "u64") {
    a.kind = K::U64;
    a.bits = parse_number<uint64_t>(value, kind);
  } else if (kind == "s64") {
    a.kind = K::S64;
    a.bits = uint64_t(parse_number<int64_t>(value, kind));
  } else if (kind == "f32") {
    a.kind = K::F32;
    a.bits = std::bit_cast<uint32_t>(parse_number<float>(value, kind));
  } else if (kind == "f64") {
    a.kind = K::F64;
    a.bits = std::bit_cast<uint64_t>(parse_number<double>(value, kind));
  } else {
    throw std::invalid_argument(fmt::format("'{}': unknown argument kind '{}' (buf, tex, u32, s32, u64, s64, f32, f64)", text, kind));
  }
  return a;
}

workloads::CheckResult run_user_program(const UserProgram& p, runtime::Context& ctx, uint64_t seed) {
  runtime::Module& mod = ctx.load_module_string(p.ptx_text, p.ptx_file);
  workloads::Rng rng(seed);
  std::vector<runtime::DevPtr> ptrs;
  std::vector<uint64_t> textures;
  for (const UserProgram::Buffer& b : p.buffers) {
    ptrs.push_back(ctx.malloc(b.bytes));
    if (b.init != UserProgram::Buffer::Init::None) {
      std::vector<uint8_t> v = initial_contents(b, rng);
      ctx.memcpy_h2d(ptrs.back(), v.data(), v.size());
    }
    textures.push_back(b.texture ? ctx.create_texture(texture_resource(*b.texture, ptrs.back(), b.bytes), b.texture->desc)
                                 : 0);
  }
  using K = UserProgram::Arg::Kind;
  for (const UserProgram::Launch& l : p.launches) {
    runtime::KernelArgs args;
    for (const UserProgram::Arg& a : l.args) {
      switch (a.kind) {
        case K::Buffer: args.add(ptrs[a.buffer]); break;
        case K::Texture: args.add(textures[a.buffer]); break;
        case K::U32: args.add(uint32_t(a.bits)); break;
        case K::S32: args.add(int32_t(uint32_t(a.bits))); break;
        case K::U64: args.add(a.bits); break;
        case K::S64: args.add(int64_t(a.bits)); break;
        case K::F32: args.add(std::bit_cast<float>(uint32_t(a.bits))); break;
        case K::F64: args.add(std::bit_cast<double>(a.bits)); break;
      }
    }
    runtime::Kernel k = mod.kernel(l.kernel);
    for (uint32_t r = 0; r < l.repeat; ++r) {
      ctx.host_compute(l.cpu_us * 1000.0);
      ctx.launch(k, l.grid, l.block, l.dynamic_shared_bytes, {}, args);
    }
  }
  std::string sums;
  for (size_t o : p.outputs) {
    std::vector<uint8_t> v(p.buffers[o].bytes);
    ctx.memcpy_d2h(v.data(), ptrs[o], v.size());
    sums += fmt::format("{}{}={:016x}", sums.empty() ? "" : " ", p.buffers[o].name,
                        fnv1a64(std::string_view(reinterpret_cast<const char*>(v.data()), v.size())));
    if (!p.output_dir.empty()) write_output(p.output_dir / (p.buffers[o].name + ".bin"), v);
  }
  ctx.synchronize();
  return {true, sums.empty() ? "completed (no outputs)" : "completed; output checksums " + sums};
}

}  // namespace gpumux::multitask
