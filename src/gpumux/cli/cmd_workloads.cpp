// gpumux list / gpumux verify: the workload library from the command line.
//
//   gpumux list [--detail] [--json]
//   gpumux verify [NAME...] [--size tiny|medium|small|large] [--seed N] [--functional]
//                 [-c PRESET_OR_FILE] [--set path.key=value]...
//                 [--export-accelsim-trace DIR]
//
// verify runs each benchmark alone in a fresh device and context and checks
// it against its CPU reference, on the timing model (--config, --set) unless
// --functional; an Accel-Sim trace export runs functionally.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpumux/cli/commands.h"
#include "gpumux/core/error.h"
#include "gpumux/ptx/resources.h"
#include "gpumux/gpu/gpu.h"
#include "gpumux/runtime/functional_backend.h"
#include "gpumux/timing/timing_backend.h"
#include "gpumux/runtime/runtime.h"
#include "gpumux/trace/accelsim_writer.h"
#include "workload.h"

namespace gpumux::cli {
namespace {

using workloads::Size;
using workloads::WorkloadSpec;

// Kernel (.entry) names in PTX order, read from the text so that plain
// `list` needs no parsing or loading.
std::vector<std::string> kernel_names(std::string_view ptx) {
  std::vector<std::string> names;
  for (size_t pos = ptx.find(".entry"); pos != std::string_view::npos;
       pos = ptx.find(".entry", pos + 6)) {
    size_t start = ptx.find_first_not_of(" \t", pos + 6);
    size_t end = ptx.find_first_of("( \t\r\n", start);
    if (start != std::string_view::npos && end != std::string_view::npos)
      names.emplace_back(ptx.substr(start, end - start));
  }
  return names;
}

std::string join(const std::vector<std::string>& v, std::string_view sep) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : std::string(sep)) + x;
  return s;
}

struct KernelInfo {
  std::string name;
  ptx::KernelResources res;
};

// Loads the workload's module (parse, analysis, support check) and estimates
// each kernel's resources. Throws LoadError if the PTX cannot be loaded.
std::vector<KernelInfo> kernel_details(const WorkloadSpec& w) {
  runtime::Device dev;
  runtime::Context& ctx = dev.create_context(w.name);
  const runtime::Module& mod = ctx.load_module_string(std::string(w.ptx), w.name + ".ptx");
  std::vector<KernelInfo> out;
  for (const ptx::Function& f : mod.ir().functions)
    if (f.is_entry) out.push_back({f.name, ptx::estimate_resources(mod.ir(), f)});
  return out;
}

std::string describe(const ptx::KernelResources& r) {
  return fmt::format("~{} regs, {} B static smem{}, {} B local{}, {} B params", r.registers,
                     r.static_smem, r.dynamic_smem ? " + dynamic" : "", r.local_bytes,
                     r.recursion ? " (recursive: lower bound)" : "", r.param_bytes);
}

void list_workloads(bool detail, bool json) {
  const auto& all = workloads::all_workloads();
  if (json) {
    nlohmann::json arr = nlohmann::json::array();
    for (const WorkloadSpec* w : all) {
      nlohmann::json j;
      j["name"] = w->name;
      j["description"] = w->description;
      j["category"] = w->category;
      j["kernels"] = kernel_names(w->ptx);
      for (Size z : workloads::all_sizes)
        if (workloads::has_size(*w, z)) j["sizes"][workloads::size_name(z)] = w->sizes[size_t(z)];
      if (detail) {
        try {
          nlohmann::json ks = nlohmann::json::array();
          for (const KernelInfo& k : kernel_details(*w))
            ks.push_back({{"name", k.name},
                          {"registers", k.res.registers},
                          {"static_smem", k.res.static_smem},
                          {"dynamic_smem", k.res.dynamic_smem},
                          {"local_bytes", k.res.local_bytes},
                          {"recursion", k.res.recursion},
                          {"param_bytes", k.res.param_bytes}});
          j["kernel_resources"] = ks;
        } catch (const std::exception& e) {
          j["load_error"] = e.what();
        }
      }
      arr.push_back(std::move(j));
    }
    fmt::print("{}\n", arr.dump(2));
    return;
  }

  size_t name_w = 4, kern_w = 7;
  for (const WorkloadSpec* w : all) {
    name_w = std::max(name_w, w->name.size());
    kern_w = std::max(kern_w, join(kernel_names(w->ptx), ",").size());
  }
  fmt::print("{:<{}}  {:<8}  {:<{}}  {}\n", "NAME", name_w, "CATEGORY", "KERNELS", kern_w,
             "DESCRIPTION");
  for (const WorkloadSpec* w : all) {
    fmt::print("{:<{}}  {:<8}  {:<{}}  {}\n", w->name, name_w, w->category,
               join(kernel_names(w->ptx), ","), kern_w, w->description);
    std::string sizes;
    for (Size z : workloads::all_sizes)
      if (workloads::has_size(*w, z))
        sizes += fmt::format("{}{} {}", sizes.empty() ? "" : " | ", workloads::size_name(z), w->sizes[size_t(z)]);
    fmt::print("{:<{}}  sizes: {}\n", "", name_w, sizes);
    if (!detail) continue;
    try {
      for (const KernelInfo& k : kernel_details(*w))
        fmt::print("{:<{}}  kernel {}: {}\n", "", name_w, k.name, describe(k.res));
    } catch (const std::exception& e) {
      fmt::print("{:<{}}  cannot load: {}\n", "", name_w, e.what());
    }
  }
  fmt::print("{} workloads\n", all.size());
}

struct VerifyOptions {
  std::vector<std::string> names;
  std::string size = "tiny";
  uint64_t seed = 1;
  bool functional = false;
  std::string config = "gtx980";       // timing model: preset or TOML file
  std::vector<std::string> overrides;  // --set path.key=value
  std::string accelsim_trace_dir;  // empty: no trace
};

void verify_workloads(const VerifyOptions& opt) {
  workloads::Size size;
  if (!workloads::parse_size(opt.size, size))
    throw std::invalid_argument(fmt::format("unknown size '{}' ({})", opt.size, workloads::size_names()));
  std::vector<const WorkloadSpec*> selected;
  if (opt.names.empty()) {
    // Every benchmark that has the size (only some have a paper size).
    for (const WorkloadSpec* w : workloads::all_workloads())
      if (workloads::has_size(*w, size)) selected.push_back(w);
  } else {
    for (const std::string& n : opt.names) {
      const WorkloadSpec* w = workloads::find_workload(n);
      if (!w) throw std::invalid_argument(fmt::format("unknown workload '{}' (see gpumux list)", n));
      if (!workloads::has_size(*w, size)) throw std::invalid_argument(workloads::missing_size_message(*w, size));
      selected.push_back(w);
    }
  }
  size_t name_w = 4;
  for (const WorkloadSpec* w : selected) name_w = std::max(name_w, w->name.size());

  // The trace records the functional instruction stream: it runs functionally.
  const bool timed = !opt.functional && opt.accelsim_trace_dir.empty();
  std::optional<Config> cfg;
  if (timed) cfg = gpu::load_config(opt.config, opt.overrides);
  int failed = 0;
  for (const WorkloadSpec* w : selected) {
    auto start = std::chrono::steady_clock::now();
    workloads::CheckResult result;
    uint64_t warp_insts = 0, cycles = 0, faults = 0;
    try {
      std::unique_ptr<trace::AccelsimTraceWriter> tracer;
      if (!opt.accelsim_trace_dir.empty())
        tracer = std::make_unique<trace::AccelsimTraceWriter>(
            selected.size() == 1 ? opt.accelsim_trace_dir : opt.accelsim_trace_dir + "/" + w->name);
      std::unique_ptr<runtime::Device> dev =
          timed ? timing::make_device(cfg->values()) : std::make_unique<runtime::Device>();
      dev->backend().set_observer(tracer.get());
      runtime::Context& ctx = dev->create_context(w->name);
      result = workloads::run_workload(*w, ctx, size, opt.seed);
      warp_insts = dev->backend().warp_instructions();
      if (timed) cycles = timing::backend_of(*dev).busy_cycles();
      if (timed && cfg->values().vm.demand_paging) faults = timing::backend_of(*dev).gpu().stats().sum("vm.faults");
    } catch (const DeviceFault& e) {
      result = {false, fmt::format("device fault: {}", e.what())};
    } catch (const LoadError& e) {
      result = {false, fmt::format("load error: {}", e.what())};
    } catch (const std::exception& e) {
      result = {false, fmt::format("error: {}", e.what())};
    }
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!result.passed) ++failed;
    std::string insts = warp_insts ? fmt::format(", {} warp insts", warp_insts) : "";
    if (cycles) insts += fmt::format(", {} busy cycles", cycles);  // not the turnaround gpumux run reports
    if (faults) insts += fmt::format(", {} page faults", faults);
    fmt::print("{:<{}}  {}  {}  [{:.2f} s{}]\n", w->name, name_w, result.passed ? "PASS" : "FAIL",
               result.detail, seconds, insts);
    std::fflush(stdout);
  }
  fmt::print("{} of {} passed ({} size, seed {}, {})\n", selected.size() - failed, selected.size(),
             opt.size, opt.seed, timed ? "timing model on " + cfg->values().gpu.name : "functional");
  if (failed) exit_code() = 1;
}

}  // namespace

void add_workload_commands(CLI::App& app) {
  auto* list = app.add_subcommand("list", "List the benchmarks of the workload library");
  static bool detail = false, json = false;
  list->add_flag("--detail", detail,
                 "Also show each kernel's static resources (registers, shared, local, params)");
  list->add_flag("--json", json, "Machine-readable output");
  list->callback([] { list_workloads(detail, json); });

  auto* verify = app.add_subcommand(
      "verify", "Run benchmarks alone and check them against their CPU reference");
  static VerifyOptions opt;
  verify->add_option("names", opt.names, "Benchmarks to run (default: all)");
  verify->add_option("--size", opt.size, "Problem size: tiny, medium, small, large or paper (without names: the benchmarks that have it)")
      ->check(CLI::IsMember({"tiny", "medium", "small", "large"}));
  verify->add_option("--seed", opt.seed, "Seed of the input generators");
  verify->add_flag("--functional", opt.functional,
                   "Functional execution only (default: the timing model, which also prints cycles)");
  verify->add_option("-c,--config", opt.config, "GPU preset name or config file of the timing model");
  verify->add_option("--set", opt.overrides, "Config override path.key=value (repeatable)");
  verify->add_option("--export-accelsim-trace", opt.accelsim_trace_dir,
                     "Write each run's instruction stream as an Accel-Sim trace into this "
                     "directory (DIR/<name> when several benchmarks run)");
  verify->callback([verify] {
    // An option accepted must take effect: the timing model's options need it.
    if (opt.functional || !opt.accelsim_trace_dir.empty())
      for (const char* timing_only : {"--config", "--set"})
        if (verify->count(timing_only))
          throw ApiError(fmt::format("{} configures the timing model, which --functional and "
                                     "--export-accelsim-trace do not use",
                                     timing_only));
    verify_workloads(opt);
  });
}

}  // namespace gpumux::cli
