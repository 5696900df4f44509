// An application given as an Accel-Sim trace folder (workload files'
// `trace = "DIR"`, docs/accelsim-trace.md): its host program replays the
// folder's command list in order, each MemcpyHtoD as a host-to-device copy
// of that size through the copy engine, each kernel file as a launch of its
// replayed kernel on the stream the trace names, then waits for the GPU.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>

#include "gpumux/runtime/runtime.h"
#include "gpumux/trace/accelsim_reader.h"
#include "workload.h"

namespace gpumux::multitask {

struct TraceProgram {
  trace::TraceList list;
  uint64_t hash = 0;  // of the list and every kernel file: what the program does
};

// Reads the folder's command list and checks that its kernel files exist
// (LoadError naming the list's file:line); kernel files are read at launch.
std::shared_ptr<const TraceProgram> load_trace_program(const std::filesystem::path& dir);

workloads::CheckResult run_trace_program(const TraceProgram& p, runtime::Context& ctx);

}  // namespace gpumux::multitask
