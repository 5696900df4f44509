// Reads Accel-Sim trace folders (docs/accelsim-trace.md, "Reading traces"):
// the command list (kernelslist.g, or the tracer's unprocessed kernelslist)
// and the kernel files, in the layouts the NVBit tracer writes:
//
//   - grouped by TB (.traceg, after the tracer's post-processing, and
//     gpumux's exporter): #BEGIN_TB, "thread block = x,y,z", then per warp
//     "warp = i", "insts = n" and n instruction lines, #END_TB;
//   - one line per instruction with its TB and warp in front
//     ("x y z warp PC mask ...", the tracer's raw .trace files);
//
// instruction lines "PC mask dest_num [Rd...] opcode src_num [Rs...]
// mem_width [mode addresses]" (a source-line number in front with
// "-enable lineinfo = 1"), addresses as a list (mode 0), base and stride
// (mode 1) or base and deltas (mode 2). Malformed or truncated input is a
// LoadError naming file:line; nothing is trusted (fuzzed: fuzz/).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "gpumux/exec/replay.h"
#include "gpumux/trace/sass_classes.h"

namespace gpumux::trace {

// One entry of a trace folder's command list, in program order.
struct TraceCommand {
  enum class Kind : uint8_t { MemcpyHtoD, Kernel };
  Kind kind = Kind::Kernel;
  uint64_t addr = 0, bytes = 0;  // MemcpyHtoD
  std::string file;              // Kernel: the kernel file, relative to the folder
  uint32_t line = 0;             // in the list file
};

struct TraceList {
  std::filesystem::path dir;
  std::string list_file;  // "kernelslist.g" or "kernelslist"
  std::vector<TraceCommand> commands;
};

// The command list of folder `dir`: kernelslist.g, else kernelslist.
TraceList read_trace_list(const std::filesystem::path& dir);
// The same from text (`name` stands for the file in errors).
TraceList parse_trace_list(std::string_view text, const std::string& name);

struct KernelHeader {
  std::string name;
  uint32_t id = 0;
  std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  uint64_t shmem = 0;  // bytes per TB (static + dynamic)
  uint32_t nregs = 0;  // registers per thread
  uint32_t binary_version = 0;
  uint32_t stream = 0;
  uint64_t shmem_base = 0, local_base = 0;
  uint32_t tracer_version = 0;
  bool lineinfo = false;
};

// One traced PC: what every dynamic instance of it shares.
struct StaticInst {
  uint64_t pc = 0;
  std::string opcode;  // as first seen; empty: a placeholder for untraced code between PCs
  SassInfo info;
  std::vector<uint16_t> dst, src;  // dense register indices (TraceKernel::num_regs)
  uint32_t line = 0;               // first seen at
};

struct TraceKernel {
  std::string file;
  KernelHeader header;
  IsaFamily family = IsaFamily::Volta;
  // By static index in PC order; a gap between traced PCs holds one
  // placeholder, so that a jump over untraced code is not sequential.
  std::vector<StaticInst> code;
  uint32_t num_regs = 0;  // distinct registers (R, UR) the trace names
  exec::ReplayKernel replay;  // lines' pc: static index
};

TraceKernel read_kernel_trace(const std::filesystem::path& file);
TraceKernel parse_kernel_trace(std::string_view text, const std::string& name);

}  // namespace gpumux::trace
