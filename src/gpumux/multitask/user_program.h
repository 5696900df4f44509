// An application given as the user's own PTX plus a declarative host
// program, for workload files: device buffers with initial contents, kernel
// launches with their arguments, and the buffers copied back at the end.
//
//   [[app]]
//   name = "saxpy"
//   ptx = "kernels/saxpy.ptx"                # relative to the workload file
//   outputs = ["y"]                          # copied back at the end (default: none)
//   output_dir = "out/saxpy"                 # optional: writes out/saxpy/y.bin (relative to the workload file)
//   [[app.buffer]]
//   name = "x"
//   bytes = 4194304
//   init = "random"                          # zero, random, iota_u32, iota_f32 or none (not copied)
//   texture = { format = "f32", width = 256, filter = "linear" }   # optional: bound as a texture object
//   [[app.launch]]
//   kernel = "saxpy"
//   grid = [4096]                            # 1 to 3 dimensions
//   block = [256]
//   dynamic_shared_bytes = 0
//   args = ["buf:x", "buf:y", "u32:1048576", "f32:2.0"]   # buf:, tex:, u32:, s32:, u64:, s64:, f32:, f64:
//   repeat = 1
//   cpu_us = 0.0                             # host CPU time before each launch (repeat), microseconds
//
// The host program allocates and initializes (copies) the buffers, launches
// the kernels in order on the default stream (each after its CPU step, host
// code that takes `cpu_us` of simulated time while the kernels already
// launched run on), copies the outputs back and synchronizes. There is no CPU reference: the run passes if nothing faults,
// and the check detail gives a checksum of the outputs to compare runs. With
// output_dir, each output buffer is also written there as <buffer>.bin (its raw
// bytes, as on the device) after every completed run, for the user to check.
//
// A buffer with `texture` is also bound as a texture object over its memory,
// passed to kernels as "tex:NAME" (a cudaTextureObject_t parameter):
// format = "f32", "s32", "u32", "f16", "s16", "u16", "s8" or "u8"; channels =
// 1, 2 or 4; width = elements per row makes it a pitched 2D texture of
// bytes / (width x element) rows (without it: linear memory, read with
// tex1Dfetch); filter = "point" or "linear"; address = "clamp", "border",
// "wrap" or "mirror"; normalized = true for normalized coordinates; read =
// "element" or "normalized_float" (docs/textures.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gpumux/runtime/runtime.h"
#include "workload.h"

namespace gpumux::multitask {

struct UserProgram {
  struct Buffer {
    enum class Init : uint8_t { None, Zero, Random, IotaU32, IotaF32 };
    std::string name;
    uint64_t bytes = 0;
    Init init = Init::Zero;
    struct Texture {
      exec::ChannelFormat format;
      uint32_t width = 0;  // 0: linear memory; else pitched 2D rows of `width` elements
      exec::TextureDesc desc;
    };
    std::optional<Texture> texture;
  };
  struct Arg {
    enum class Kind : uint8_t { Buffer, U32, S32, U64, S64, F32, F64, Texture };
    Kind kind = Kind::U32;
    size_t buffer = 0;  // Kind::Buffer, Kind::Texture: index into buffers
    uint64_t bits = 0;  // scalar value, by kind
  };
  struct Launch {
    std::string kernel;
    runtime::Dim3 grid, block;
    uint64_t dynamic_shared_bytes = 0;
    std::vector<Arg> args;
    uint32_t repeat = 1;
    double cpu_us = 0;  // host CPU time before each repetition
  };
  std::string ptx_file;  // for messages
  std::string ptx_text;
  std::vector<Buffer> buffers;
  std::vector<Launch> launches;
  std::vector<size_t> outputs;  // buffer indices
  std::filesystem::path output_dir;  // empty: outputs are only checksummed
};

// Parses "buf:NAME", "u32:7", "f32:2.5", ...; throws LoadError-free
// std::invalid_argument with the reason (the caller adds file:line).
UserProgram::Arg parse_arg(const std::string& text, const std::vector<UserProgram::Buffer>& buffers);

// The resource of a buffer bound as a texture (linear, or pitched 2D with `width`).
exec::TextureResource texture_resource(const UserProgram::Buffer::Texture& t, uint64_t ptr, uint64_t bytes);

// Runs the program in `ctx`; inputs of random buffers come from `seed`.
workloads::CheckResult run_user_program(const UserProgram& p, runtime::Context& ctx, uint64_t seed);

}  // namespace gpumux::multitask
