#include "gpumux/multitask/trace_program.h"

#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/multitask/baseline_cache.h"
#include "gpumux/trace/replay_module.h"

namespace gpumux::multitask {

std::shared_ptr<const TraceProgram> load_trace_program(const std::filesystem::path& folder) {
  std::filesystem::path dir = folder.lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();  // "traces/app/"
  auto p = std::make_shared<TraceProgram>();
  p->list = trace::read_trace_list(dir);
  std::string identity;
  for (const trace::TraceCommand& c : p->list.commands) {
    if (c.kind == trace::TraceCommand::Kind::MemcpyHtoD) {
      identity += fmt::format("copy {}\n", c.bytes);
      continue;
    }
    const std::filesystem::path file = dir / c.file;
    std::ifstream in(file, std::ios::binary);
    if (!in)
      throw LoadError(fmt::format("{}:{}: cannot open kernel file {}", (dir / p->list.list_file).string(), c.line,
                                  file.string()));
    std::stringstream ss;
    ss << in.rdbuf();
    identity += fmt::format("kernel {:016x}\n", fnv1a64(ss.str()));
  }
  p->hash = fnv1a64(identity);
  return p;
}

workloads::CheckResult run_trace_program(const TraceProgram& p, runtime::Context& ctx) {
  std::map<uint32_t, runtime::Stream> streams;  // the trace's stream ids; 0: the default stream
  uint32_t kernels = 0, copies = 0;
  uint64_t bytes = 0;
  for (const trace::TraceCommand& c : p.list.commands) {
    if (c.kind == trace::TraceCommand::Kind::MemcpyHtoD) {
      // The trace's addresses are replayed as recorded: the copy only takes its time.
      const std::vector<uint8_t> data(c.bytes, 0);
      runtime::DevPtr dst = ctx.malloc(std::max<uint64_t>(c.bytes, 1));
      ctx.memcpy_h2d(dst, data.data(), c.bytes);
      ++copies;
      bytes += c.bytes;
      continue;
    }
    trace::TraceKernel k = trace::read_kernel_trace(p.list.dir / c.file);
    const trace::KernelHeader h = k.header;
    runtime::Stream s;
    if (h.stream != 0) {
      auto it = streams.find(h.stream);
      if (it == streams.end()) it = streams.emplace(h.stream, ctx.create_stream()).first;
      s = it->second;
    }
    runtime::Module& m = ctx.add_module(trace::replay_module(std::move(k)));
    ctx.launch(m.kernel(h.name), {h.grid[0], h.grid[1], h.grid[2]}, {h.block[0], h.block[1], h.block[2]}, 0, s,
               runtime::KernelArgs{});
    ++kernels;
  }
  ctx.synchronize();
  return {true, fmt::format("replayed {} kernel(s) and {} copies ({} B) of trace {}", kernels, copies, bytes,
                            p.list.dir.string())};
}

}  // namespace gpumux::multitask
