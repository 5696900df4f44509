// Writes the dynamic instruction stream of a run as an Accel-Sim trace
// directory (format version 5; see docs/accelsim-trace.md): kernelslist.g
// with one MemcpyHtoD line per host-to-device copy and one kernel-N.traceg
// line per launch, in program order, and per launch a kernel-N.traceg with
// its header and, per TB in dispatch order, each warp's instruction lines.
//
// Attach it to a Device's backend (runtime::LaunchBackend::set_observer);
// launches run as usual and are traced as they execute.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gpumux/runtime/runtime.h"

namespace gpumux::trace {

// Accel-Sim's binary version selecting its Volta opcode map, which holds
// every opcode sass_form() emits.
inline constexpr unsigned kBinaryVersion = 70;
inline constexpr unsigned kTracerVersion = 5;

class AccelsimTraceWriter : public runtime::InstructionObserver {
 public:
  // Creates `dir` if needed; throws ApiError if it cannot be written.
  explicit AccelsimTraceWriter(std::filesystem::path dir);
  ~AccelsimTraceWriter() override;

  void on_memcpy_h2d(const runtime::Context& ctx, runtime::DevPtr dst, uint64_t bytes) override;
  void on_launch_begin(const runtime::Context& ctx, runtime::Stream s,
                       const exec::GridLaunch& g) override;
  void on_tb_begin(const exec::ThreadBlock& tb) override;
  void on_instruction(const exec::Warp& w, const ptx::Instruction& in, uint32_t mask,
                      const exec::MemAccess& access) override;
  void on_tb_end(const exec::ThreadBlock& tb) override;
  void on_launch_end() override;

  unsigned kernels_written() const { return kernel_id_; }

 private:
  // One function of the launched module: where its instructions are and
  // where they start in the kernel's virtual PC space.
  struct CodeRange {
    const ptx::Instruction* first;
    size_t count;
    uint64_t base;  // instruction index of `first` in the PC space
  };
  // PC of `in`; leaves last_range_ at its function (0: the kernel itself).
  uint64_t pc_of(const ptx::Instruction& in);
  void open(std::ofstream& f, const std::filesystem::path& p);

  std::filesystem::path dir_;
  std::ofstream list_, kernel_;
  unsigned kernel_id_ = 0;
  std::vector<CodeRange> code_;
  size_t last_range_ = 0;
  std::vector<std::string> warp_text_;  // per warp of the current TB: its lines
  std::vector<uint64_t> warp_insts_;
};

}  // namespace gpumux::trace
