#include "gpumux/core/config.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <toml++/toml.h>

#include "gpumux/core/config_import.h"
#include "gpumux/core/error.h"
#include "gpumux/core/strict_toml.h"

namespace gpumux {

void GpuConfig::declare(ParamDecl<GpuConfig>& d) {
  d.section("gpu", &GpuConfig::gpu, "composition of the GPU");
  d.section("clock", &GpuConfig::clock, "clock domains");
  d.section("frontend", &GpuConfig::frontend, "command queues and thread-block dispatcher");
  d.section("pcie", &GpuConfig::pcie, "host link (PCIe) and copy engines: memcpy timing");
  d.section("edge", &GpuConfig::edge, "event kernels launched by devices (EDGE): tables, launch paths, warp-level "
                                      "preemption (docs/edge.md)");
  d.section("sm", &GpuConfig::sm, "streaming multiprocessor (per SM)");
  d.section("l1d", &GpuConfig::l1d, "L1 data cache (per SM)");
  d.section("icnt", &GpuConfig::icnt, "crossbar between SMs and memory partitions");
  d.section("l2", &GpuConfig::l2, "L2 cache (split into one slice per memory partition)");
  d.section("address_map", &GpuConfig::address_map, "mapping of addresses to memory partitions");
  d.section("dram", &GpuConfig::dram, "DRAM channel (one per memory partition)");
  d.section("vm", &GpuConfig::vm, "virtual memory: TLBs, page-table walkers, demand paging (docs/virtual-memory.md)");
  d.section("qos", &GpuConfig::qos, "QoS management inside the SMs (epoch controller, quota schemes)");
  d.section("sim", &GpuConfig::sim, "simulation control");
  d.check([](const GpuConfig& c) -> std::string {
    if (uint64_t(c.l1d.size_kb) * 1024 % (uint64_t(c.l1d.ways) * 128) != 0)
      return "l1d.size_kb must be a multiple of l1d.ways * 128 B lines";
    if (uint64_t(c.l2.size_kb) * 1024 % (uint64_t(c.l2.ways) * 128 * c.gpu.num_partitions) != 0)
      return "l2.size_kb must split into gpu.num_partitions slices of whole sets (l2.ways * 128 B)";
    if (c.gpu.mig_slice_sms && (7 * c.gpu.mig_slice_sms > c.gpu.num_sms || c.gpu.num_partitions % 8 != 0 ||
                                c.gpu.mig_memory_gb % 8 != 0 || c.gpu.mig_memory_gb == 0))
      return "gpu.mig_slice_sms needs 7 slices within gpu.num_sms, gpu.num_partitions a multiple of the 8 memory "
             "slices and gpu.mig_memory_gb a positive multiple of 8";
    // The SMs keep polling the memory system while the host services a fault,
    // so a fault longer than the watchdog's limit would look like a deadlock.
    // With eviction a fault also writes a unit back first (fault_us - fault_alloc_us).
    const double longest_fault_us =
        std::max(c.vm.fault_us, c.vm.local_faults ? c.vm.local_fault_us : 0.0) +
        (c.vm.device_memory_bytes ? c.vm.fault_us - c.vm.fault_alloc_us : 0.0);
    if (c.vm.demand_paging && longest_fault_us * c.clock.core_mhz >= double(c.sim.watchdog_cycles))
      return c.vm.device_memory_bytes
                 ? "the longest fault (vm.fault_us or vm.local_fault_us, plus an eviction's vm.fault_us - "
                   "vm.fault_alloc_us) must be shorter than sim.watchdog_cycles (in core cycles)"
                 : "vm.fault_us and vm.local_fault_us must be shorter than sim.watchdog_cycles (in core cycles)";
    // The GPU's handler runs once the faulting instruction is squashed: the
    // baseline SM cannot (thesis 6.4.2).
    if (c.vm.local_faults && c.sm.fault_pipeline.mode == "stall-on-fault")
      return "vm.local_faults needs a preemptible sm.fault_pipeline.mode (not stall-on-fault)";
    // Without translation nothing can fault, and no TLB check ends a warp's wait.
    if (c.sm.fault_pipeline.operand_log_bytes % 256 != 0)
      return "sm.fault_pipeline.operand_log_bytes must be a multiple of the 256 B log entry";
    // A switched-out TB's faulted instructions are squashed and replayed:
    // only the pipelines that can replay them (section 6.3.2-6.3.3) allow it.
    const bool replays = c.sm.fault_pipeline.mode == "replay-queue" || c.sm.fault_pipeline.mode == "operand-log";
    if (c.sm.fault_pipeline.extra_tbs > 0 && (!replays || !c.vm.demand_paging))
      return "sm.fault_pipeline.extra_tbs (TB switching on fault) needs vm.demand_paging = true and "
             "sm.fault_pipeline.mode = \"replay-queue\" or \"operand-log\"";
    if (c.sm.fault_pipeline.ideal_switch && c.sm.fault_pipeline.extra_tbs == 0)
      return "sm.fault_pipeline.ideal_switch needs TB switching on fault (sm.fault_pipeline.extra_tbs > 0)";
    if (c.sm.fault_pipeline.mode != "stall-on-fault" && !c.vm.translation)
      return "sm.fault_pipeline.mode = \"" + c.sm.fault_pipeline.mode + "\" needs vm.translation = true";
    return "";
  });
}

namespace {

std::string join_path(const std::string& prefix, std::string_view name) {
  return prefix.empty() ? std::string(name) : prefix + "." + std::string(name);
}

// The value of a TOML scalar; nullopt for tables, arrays and dates.
std::optional<ParamValue> from_toml(const toml::node& n, const ParamInfo& p) {
  if (auto b = n.value_exact<bool>()) return *b;
  if (auto i = n.value_exact<int64_t>()) {
    if (p.kind == ParamKind::Float) return double(*i);
    return *i;
  }
  if (auto f = n.value_exact<double>()) return *f;
  if (auto s = n.value_exact<std::string>()) return *s;
  return std::nullopt;
}

// Applies the keys of `table` to the struct `obj` described by `schema`.
void apply_table(const Schema& schema, void* obj, const toml::table& table, const std::string& prefix,
                 const std::string& file) {
  for (const auto& [key, node] : table) {
    std::string path = join_path(prefix, key.str());
    if (const ParamInfo* p = schema.find_param(key.str())) {
      std::optional<ParamValue> v = from_toml(node, *p);
      if (!v) throw LoadError(fmt::format("{}: {}: expected {}", where(node, file), path, p->type_name()));
      std::string err = p->check(*v);
      if (!err.empty()) throw LoadError(fmt::format("{}: {}: {}", where(node, file), path, err));
      p->set(obj, *v);
    } else if (const SectionInfo* s = schema.find_section(key.str())) {
      if (!node.is_table()) throw LoadError(fmt::format("{}: {}: expected a table", where(node, file), path));
      apply_table(*s->schema, s->child(obj), *node.as_table(), path, file);
    } else {
      throw LoadError(fmt::format("{}: unknown key '{}'", where(node, file), path));
    }
  }
}

// Runs the checks of `schema` and its sections; returns the first error.
std::string run_checks(const Schema& schema, const void* obj) {
  for (const auto& s : schema.sections) {
    std::string err = run_checks(*s.schema, s.child_of(obj));
    if (!err.empty()) return err;
  }
  for (const auto& check : schema.checks) {
    std::string err = check(obj);
    if (!err.empty()) return err;
  }
  return "";
}

ParamValue parse_text(std::string_view text, const ParamInfo& p) {
  auto parse_int = [&]() -> std::optional<int64_t> {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return v;
  };
  switch (p.kind) {
    case ParamKind::Bool:
      if (text == "true") return true;
      if (text == "false") return false;
      break;
    case ParamKind::Int:
      if (auto v = parse_int()) return *v;
      break;
    case ParamKind::Float: {
      double v = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec == std::errc() && end == text.data() + text.size()) return v;
      break;
    }
    case ParamKind::String:
      if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
      return std::string(text);
  }
  return std::string(text);  // wrong type: check() reports it
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

void dump_schema(const Schema& schema, const void* obj, const std::string& prefix, std::string& out) {
  if (!schema.params.empty()) {
    out += fmt::format("\n[{}]\n", prefix);
    for (const auto& p : schema.params) {
      std::string line = fmt::format("{} = {}", p.name, to_toml_literal(p.get(obj)));
      if (!p.unit.empty()) line = fmt::format("{:<32} # {}", line, p.unit);
      out += line + "\n";
    }
  }
  for (const auto& s : schema.sections) dump_schema(*s.schema, s.child_of(obj), join_path(prefix, s.name), out);
}

void reference_schema(const Schema& schema, const void* defaults, const std::string& prefix, const std::string& doc,
                      std::string& out) {
  if (!schema.params.empty()) {
    out += fmt::format("\n## [{}]\n\n{}.\n\n", prefix, doc);
    out += "| key | type | default | unit | allowed | description |\n";
    out += "|---|---|---|---|---|---|\n";
    for (const auto& p : schema.params)
      out += fmt::format("| `{}` | {} | `{}` | {} | {} | {} |\n", p.name, p.type_name(),
                         to_toml_literal(p.get(defaults)), p.unit, p.constraint(), p.doc);
  }
  for (const auto& s : schema.sections)
    reference_schema(*s.schema, s.child_of(defaults), join_path(prefix, s.name), s.doc, out);
}

}  // namespace

Config Config::build(const std::optional<std::filesystem::path>& file, std::span<const std::string> overrides) {
  Config c;
  if (file) c.apply_file(*file);
  for (const auto& o : overrides) c.set(o);
  c.validate();
  return c;
}

void Config::apply_file(const std::filesystem::path& file) {
  std::vector<std::filesystem::path> chain;
  apply_file_chain(file, chain);
}

void Config::apply_text(std::string_view toml, const std::string& name, const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> chain;
  apply_text_chain(toml, name, dir, chain);
}

void Config::apply_preset(const Preset& preset) {
  std::vector<std::filesystem::path> chain;
  apply_preset_chain(preset, chain);
}

void Config::apply_file_chain(const std::filesystem::path& file, std::vector<std::filesystem::path>& chain) {
  std::ifstream in(file);
  if (!in) throw LoadError(fmt::format("{}: cannot open config file", file.string()));
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::path canonical = std::filesystem::weakly_canonical(file);
  if (std::find(chain.begin(), chain.end(), canonical) != chain.end())
    throw LoadError(fmt::format("{}: include cycle", file.string()));
  chain.push_back(canonical);
  apply_text_chain(text.str(), file.string(), file.parent_path(), chain);
  chain.pop_back();
}

// In the include chain (for cycle detection) a built-in preset is "<built-in>/<name>".
void Config::apply_preset_chain(const Preset& preset, std::vector<std::filesystem::path>& chain) {
  std::string name = fmt::format("{}.toml (built-in preset)", preset.name);
  std::filesystem::path id = "<built-in>/" + std::string(preset.name);
  if (std::find(chain.begin(), chain.end(), id) != chain.end()) throw LoadError(fmt::format("{}: include cycle", name));
  chain.push_back(id);
  apply_text_chain(preset.text, name, std::nullopt, chain);
  chain.pop_back();
}

// A file beside the including one wins, so that a folder of presets can be
// edited; otherwise "<preset>.toml" names a built-in preset.
void Config::apply_include(const std::optional<std::filesystem::path>& dir, const std::string& file,
                           std::vector<std::filesystem::path>& chain) {
  std::error_code ec;
  if (dir && std::filesystem::is_regular_file(*dir / file, ec)) return apply_file_chain(*dir / file, chain);
  std::filesystem::path f = file;
  const Preset* p = f.extension() == ".toml" && !f.has_parent_path() ? find_builtin_preset(f.stem().string()) : nullptr;
  if (p) return apply_preset_chain(*p, chain);
  if (dir) return apply_file_chain(*dir / file, chain);  // fails: cannot open
  throw LoadError(fmt::format("include \"{}\": no built-in preset of that name ({})", file, builtin_preset_names()));
}

void Config::apply_text_chain(std::string_view toml_text, const std::string& name,
                              const std::optional<std::filesystem::path>& dir,
                              std::vector<std::filesystem::path>& chain) {
  toml::table table = parse_toml(toml_text, name);
  if (const toml::node* inc = table.get("include")) {
    std::vector<std::string> files;
    if (auto s = inc->value_exact<std::string>()) {
      files.push_back(*s);
    } else if (const toml::array* arr = inc->as_array()) {
      for (const auto& e : *arr) {
        auto s2 = e.value_exact<std::string>();
        if (!s2) throw LoadError(fmt::format("{}: include: expected file names", where(e, name)));
        files.push_back(*s2);
      }
    } else {
      throw LoadError(fmt::format("{}: include: expected a file name or an array of them", where(*inc, name)));
    }
    for (const auto& f : files) apply_include(dir, f, chain);
    table.erase("include");
  }
  apply_table(schema_of<GpuConfig>(), &values_, table, "", name);
  sources_.push_back(name);
}

void Config::set(std::string_view assignment, std::string_view source) {
  std::string what = fmt::format("{} {}", source, assignment);
  size_t eq = assignment.find('=');
  if (eq == std::string_view::npos) throw LoadError(fmt::format("{}: expected path.key=value", what));
  std::string_view path = trim(assignment.substr(0, eq));
  std::string_view text = trim(assignment.substr(eq + 1));

  const Schema* schema = &schema_of<GpuConfig>();
  void* obj = &values_;
  std::string_view rest = path;
  for (size_t dot; (dot = rest.find('.')) != std::string_view::npos; rest.remove_prefix(dot + 1)) {
    const SectionInfo* s = schema->find_section(rest.substr(0, dot));
    if (!s) throw LoadError(fmt::format("{}: unknown key '{}'", what, path));
    schema = s->schema;
    obj = s->child(obj);
  }
  const ParamInfo* p = schema->find_param(rest);
  if (!p) throw LoadError(fmt::format("{}: unknown key '{}'", what, path));
  ParamValue v = parse_text(text, *p);
  std::string err = p->check(v);
  if (!err.empty()) throw LoadError(fmt::format("{}: {}: {}", what, path, err));
  p->set(obj, v);
  std::string label = source == "--set" ? what : std::string(source);
  if (sources_.empty() || sources_.back() != label) sources_.push_back(label);
}

void Config::validate() const {
  std::string err = run_checks(schema_of<GpuConfig>(), &values_);
  if (!err.empty()) {
    std::string from = sources_.empty() ? "defaults" : fmt::format("{}", fmt::join(sources_, ", "));
    throw LoadError(fmt::format("config ({}): {}", from, err));
  }
}

std::string Config::dump() const {
  std::string out = "# gpumux effective configuration\n";
  for (const auto& s : sources_) out += fmt::format("# from {}\n", s);
  dump_schema(schema_of<GpuConfig>(), &values_, "", out);
  return out;
}

std::string config_reference_markdown() {
  std::string out =
      "# Configuration reference\n\n"
      "Generated from the parameter declarations by `gpumux config docs`; do not edit by hand\n"
      "(a test fails when this file is stale). Presets are in `configs/`; a preset may\n"
      "`include = \"other.toml\"` and override keys; `--set section.key=value` overrides a key\n"
      "on the command line. Cycle counts are in the clock domain of the component.\n";
  GpuConfig defaults;
  reference_schema(schema_of<GpuConfig>(), &defaults, "", "", out);
  return out + gpgpusim_import_reference_markdown();
}

}  // namespace gpumux
