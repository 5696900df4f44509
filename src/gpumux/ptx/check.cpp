#include "gpumux/ptx/check.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "gpumux/ptx/cfg.h"
#include "gpumux/ptx/parser.h"
#include "gpumux/ptx/resources.h"

namespace gpumux::ptx {

Module load_ptx(std::string_view text, const std::string& file_name) {
  Module m = parse_ptx(text, file_name);
  analyze_module(m);
  require_supported(m);
  return m;
}

bool check_ptx_text(std::string_view text, const std::string& file_name, std::ostream& out,
                    const EngineCheck& engine) {
  Module m;
  try {
    m = parse_ptx(text, file_name);
    analyze_module(m);
  } catch (const LoadError& e) {
    fmt::print(out, "{}\n", e.what());
    return false;
  }
  size_t kernels = 0;
  for (const Function& f : m.functions) kernels += f.is_entry;
  fmt::print(out, "{}: PTX {}, target {}, {}-bit addresses, {} kernel(s), {} other function(s)\n",
             file_name, m.version.empty() ? "?" : m.version, m.target.empty() ? "?" : m.target,
             m.address_size, kernels, m.functions.size() - kernels);
  for (const Function& f : m.functions) {
    if (!f.is_entry) continue;
    fmt::print(out, "  kernel {}\n", f.name);
    for (const Param& p : f.params)
      fmt::print(out, "    param {}: .{}{}, {} bytes at offset {}\n", p.name, type_name(p.type),
                 p.is_ptr ? " .ptr" : "", p.size, p.offset);
    const KernelResources r = estimate_resources(m, f);
    fmt::print(out,
               "    resources: ~{} registers/thread, {} bytes static shared, {} bytes local/thread{}, "
               "{} bytes of parameters, dynamic shared memory: {}\n",
               r.registers, r.static_smem, r.local_bytes, r.recursion ? " (recursive: more at run time)" : "",
               r.param_bytes, r.dynamic_smem ? "yes" : "no");
  }
  for (const Function& f : m.functions) {
    if (f.is_entry) continue;
    fmt::print(out, "  {} function {} ({} parameter(s), {} return value(s))\n",
               f.is_extern ? "external" : "device", f.name, f.params.size(), f.rets.size());
  }
  for (const Unsupported& u : m.unsupported)
    fmt::print(out, "{}: unsupported: {}\n", m.loc(u.line).str(), u.construct);
  size_t unbound = 0;
  if (engine) {
    // A line the parser already reported (an unsupported extern call) is not repeated.
    for (const Unsupported& u : engine(m)) {
      const bool reported = std::any_of(m.unsupported.begin(), m.unsupported.end(),
                                        [&](const Unsupported& p) { return p.line == u.line; });
      if (reported) continue;
      fmt::print(out, "{}: unsupported instruction {}\n", m.loc(u.line).str(), u.construct);
      ++unbound;
    }
  }
  return m.unsupported.empty() && unbound == 0;
}

bool check_ptx_file(const std::string& path, std::ostream& out, const EngineCheck& engine) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    fmt::print(out, "{}: cannot read the file\n", path);
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return check_ptx_text(text.str(), path, out, engine);
}

}  // namespace gpumux::ptx
