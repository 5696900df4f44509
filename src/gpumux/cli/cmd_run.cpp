// gpumux run: runs benchmarks of the workload library as separate
// applications (contexts with their own address spaces) on one device.
#include <chrono>
#include <memory>

#include <fmt/format.h>

#include "gpumux/cli/commands.h"
#include "gpumux/core/error.h"
#include "gpumux/runtime/runtime.h"
#include "gpumux/trace/accelsim_writer.h"
#include "workload.h"

namespace gpumux::cli {

namespace {

struct RunOptions {
  std::vector<std::string> apps{"sgemm", "stencil"};  // one compute-, one memory-heavy
  std::string size = "tiny";
  uint64_t seed = 1;
  std::string accelsim_trace_dir;  // empty: no trace
};

void run_apps(const RunOptions& o) {
  workloads::Size size;
  if (!workloads::parse_size(o.size, size))
    throw ApiError(fmt::format("unknown size '{}' (tiny, small or large)", o.size));
  std::vector<const workloads::WorkloadSpec*> specs;
  for (const auto& name : o.apps) {
    const workloads::WorkloadSpec* w = workloads::find_workload(name);
    if (!w) throw ApiError(fmt::format("unknown benchmark '{}' (see gpumux list)", name));
    specs.push_back(w);
  }
  std::unique_ptr<trace::AccelsimTraceWriter> tracer;  // outlives the device that reports to it
  if (!o.accelsim_trace_dir.empty())
    tracer = std::make_unique<trace::AccelsimTraceWriter>(o.accelsim_trace_dir);
  runtime::Device dev;
  dev.backend().set_observer(tracer.get());
  fmt::print("gpumux: {} application(s) on one device, functional mode (no timing model yet)\n",
             specs.size());
  fmt::print("{:<4} {:<14} {:<6} {:>14} {:>10}  {}\n", "app", "benchmark", "check",
             "warp insts", "host s", "detail");
  bool all_ok = true;
  uint64_t total = 0;
  double total_s = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    runtime::Context& ctx = dev.create_context(fmt::format("app{}:{}", i, specs[i]->name));
    uint64_t before = dev.backend().warp_instructions();
    auto t0 = std::chrono::steady_clock::now();
    workloads::CheckResult r;
    try {
      r = workloads::run_workload(*specs[i], ctx, size, o.seed + i);
    } catch (const std::exception& e) {
      r = {false, e.what()};  // a faulting application is reported; the others run on
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    uint64_t n = dev.backend().warp_instructions() - before;
    total += n;
    total_s += s;
    all_ok &= r.passed;
    fmt::print("{:<4} {:<14} {:<6} {:>14} {:>10.3f}  {}\n", i, specs[i]->name,
               r.passed ? "PASS" : "FAIL", n, s, r.detail);
  }
  fmt::print("total: {} warp instructions in {:.3f} s ({:.2f} M warp instructions/s)\n", total,
             total_s, total_s > 0 ? total / total_s / 1e6 : 0.0);
  if (!all_ok) exit_code() = 1;
}

}  // namespace

void add_run_commands(CLI::App& app) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* run = app.add_subcommand("run", "Run benchmarks as concurrent applications");
  run->add_option("benchmarks", opts->apps, "Benchmarks, one application each")
      ->capture_default_str();
  run->add_option("--size", opts->size, "Input size: tiny, small or large")->capture_default_str();
  run->add_option("--seed", opts->seed, "Seed of the input generators")->capture_default_str();
  run->add_option("--export-accelsim-trace", opts->accelsim_trace_dir,
                  "Write the run's instruction stream as an Accel-Sim trace into this directory");
  run->callback([opts] { run_apps(*opts); });
}

}  // namespace gpumux::cli
