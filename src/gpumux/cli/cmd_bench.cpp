// gpumux bench: simulation speed of the timing model on a fixed set of
// workloads (compute-bound and memory-bound) on the gtx980 and titanv presets.
//
//   gpumux bench [--size tiny|medium|small] [--json FILE] [--workloads a,b] [--configs x,y]
//                [--repeat N] [--linear]
//
// --repeat N runs each workload N times in a row on one simulated GPU (N times
// the thread blocks). --linear measures the cost of twice the work: each
// workload runs once and twice, and the table shows the host-time ratio
// (issue 4's bar: at most 2.1).
//
// Each run executes in a child process so that its host time and peak memory
// are its own. Host time is the process's CPU time (user + system), which
// other jobs on a shared machine do not inflate.
//
// After the table, the start-up cost per config: the host time of a whole run
// of one empty kernel (config, device, context, module, launch, teardown),
// what every short run (a study's baselines, `gpumux exec`) pays first.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpumux/cli/commands.h"
#include "gpumux/core/cpu_time.h"
#include "gpumux/core/error.h"
#include "gpumux/gpu/gpu.h"
#include "gpumux/timing/timing_backend.h"
#include "workload.h"

namespace gpumux::cli {
namespace {

struct BenchOptions {
  std::string size = "small";
  std::string json;
  std::vector<std::string> workloads{"sgemm", "pc", "blackscholes", "vecadd", "stencil", "spmv"};
  std::vector<std::string> configs{"gtx980", "titanv"};
  unsigned repeat = 1;
  bool linear = false;
};

struct BenchResult {
  std::string workload, config;
  unsigned repeat = 1;
  bool passed = false;
  std::string error;
  uint64_t cycles = 0, warp_insts = 0;
  double host_seconds = 0;
  uint64_t peak_rss_bytes = 0;
};

nlohmann::json to_json(const BenchResult& r) {
  double s = r.host_seconds > 0 ? r.host_seconds : 1e-9;
  nlohmann::json j{{"workload", r.workload},
                   {"config", r.config},
                   {"repeat", r.repeat},
                   {"cycles", r.cycles},
                   {"warp_insts", r.warp_insts},
                   {"host_seconds", r.host_seconds},
                   {"warp_insts_per_sec", double(r.warp_insts) / s},
                   {"cycles_per_sec", double(r.cycles) / s},
                   {"peak_rss_bytes", r.peak_rss_bytes}};
  if (!r.passed) j["error"] = r.error;
  return j;
}

// Runs one workload on one config in this process.
BenchResult run_one(const std::string& name, const std::string& config, workloads::Size size, unsigned repeat) {
  BenchResult r;
  r.workload = name;
  r.config = config;
  r.repeat = repeat;
  const workloads::WorkloadSpec* w = workloads::find_workload(name);
  if (!w) {
    r.error = "unknown workload";
    return r;
  }
  try {
    Config cfg = gpu::load_config(config);
    auto dev = timing::make_device(cfg.values());
    runtime::Context& ctx = dev->create_context(name);
    double start = process_cpu_seconds();
    workloads::CheckResult c;
    for (unsigned i = 0; i < repeat && (i == 0 || c.passed); ++i) c = workloads::run_workload(*w, ctx, size, 1);
    r.host_seconds = process_cpu_seconds() - start;
    timing::TimingBackend& tb = timing::backend_of(*dev);
    r.cycles = tb.busy_cycles();
    r.warp_insts = tb.warp_instructions();
    r.passed = c.passed;
    if (!c.passed) r.error = c.detail;
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  r.peak_rss_bytes = uint64_t(u.ru_maxrss) * 1024;
  return r;
}

// One empty kernel: a run of it is all start-up.
constexpr const char* kEmptyKernelPtx = R"(.version 9.0
.target sm_80
.address_size 64
.visible .entry empty()
{
  ret;
}
)";

// A run of the empty kernel on `config`, timed whole: loading the config,
// building the GPU, the context and the module, one launch of one warp, and
// destroying it all.
BenchResult run_startup(const std::string& config) {
  BenchResult r;
  r.workload = "start-up";
  r.config = config;
  double start = process_cpu_seconds();
  try {
    Config cfg = gpu::load_config(config);
    auto dev = timing::make_device(cfg.values());
    runtime::Context& ctx = dev->create_context("start-up");
    runtime::Module& mod = ctx.load_module_string(kEmptyKernelPtx, "empty.ptx");
    ctx.launch(mod.kernel("empty"), {1}, {32});
    ctx.synchronize();
    timing::TimingBackend& tb = timing::backend_of(*dev);
    r.cycles = tb.busy_cycles();
    r.warp_insts = tb.warp_instructions();
    dev.reset();
    r.passed = true;
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  r.host_seconds = process_cpu_seconds() - start;
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  r.peak_rss_bytes = uint64_t(u.ru_maxrss) * 1024;
  return r;
}

// `run` in a child process; the result comes back as JSON through a pipe.
BenchResult run_isolated(const std::function<BenchResult()>& run, const std::string& name,
                         const std::string& config, unsigned repeat) {
  int fd[2];
  if (pipe(fd) != 0) return run();
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    BenchResult r = run();
    nlohmann::json j = to_json(r);
    j["passed"] = r.passed;
    std::string s = j.dump();
    ssize_t off = 0;
    while (off < ssize_t(s.size())) {
      ssize_t n = write(fd[1], s.data() + off, s.size() - size_t(off));
      if (n <= 0) break;
      off += n;
    }
    close(fd[1]);
    _exit(0);
  }
  close(fd[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fd[0], buf, sizeof buf)) > 0;) out.append(buf, size_t(n));
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  BenchResult r;
  r.workload = name;
  r.config = config;
  r.repeat = repeat;
  if (out.empty()) {
    r.error = fmt::format("child process failed (status {})", status);
    return r;
  }
  nlohmann::json j = nlohmann::json::parse(out);
  r.passed = j["passed"].get<bool>();
  if (j.contains("error")) r.error = j["error"].get<std::string>();
  r.cycles = j["cycles"].get<uint64_t>();
  r.warp_insts = j["warp_insts"].get<uint64_t>();
  r.host_seconds = j["host_seconds"].get<double>();
  r.peak_rss_bytes = j["peak_rss_bytes"].get<uint64_t>();
  return r;
}

void write_json(const std::string& file, const nlohmann::json& all) {
  std::ofstream f(file);
  f << all.dump(2) << "\n";
  if (!f) throw ApiError(fmt::format("cannot write {}", file));
}

// Cost of twice the work: each workload once and twice on one GPU.
void bench_linear(const BenchOptions& o, workloads::Size size) {
  fmt::print("{:<13} {:<8} {:>12} {:>12} {:>9} {:>9} {:>11} {:>15}\n", "WORKLOAD", "CONFIG", "WARP_INSTS_1",
             "WARP_INSTS_2", "HOST_S_1", "HOST_S_2", "HOST_RATIO", "PER_INST_RATIO");
  nlohmann::json all = nlohmann::json::array();
  for (const std::string& c : o.configs) {
    for (const std::string& w : o.workloads) {
      BenchResult one = run_isolated([&] { return run_one(w, c, size, 1); }, w, c, 1);
      BenchResult two = run_isolated([&] { return run_one(w, c, size, 2); }, w, c, 2);
      double ratio = one.host_seconds > 0 ? two.host_seconds / one.host_seconds : 0;
      double work = one.warp_insts ? double(two.warp_insts) / double(one.warp_insts) : 0;
      bool ok = one.passed && two.passed;
      fmt::print("{:<13} {:<8} {:>12} {:>12} {:>9.2f} {:>9.2f} {:>11.3f} {:>15.3f}{}\n", w, c, one.warp_insts,
                 two.warp_insts, one.host_seconds, two.host_seconds, ratio, work > 0 ? ratio / work : 0,
                 ok ? "" : "  FAILED: " + (one.passed ? two.error : one.error));
      std::fflush(stdout);
      if (!ok) exit_code() = 1;
      all.push_back({{"workload", w}, {"config", c}, {"once", to_json(one)}, {"twice", to_json(two)},
                     {"host_ratio", ratio}, {"per_inst_ratio", work > 0 ? ratio / work : 0}});
    }
  }
  if (!o.json.empty()) write_json(o.json, all);
}

void bench(const BenchOptions& o) {
  workloads::Size size;
  if (!workloads::parse_size(o.size, size)) throw std::invalid_argument("unknown size " + o.size);
  if (o.linear) return bench_linear(o, size);
  fmt::print("{:<13} {:<8} {:>12} {:>12} {:>9} {:>14} {:>12} {:>9}\n", "WORKLOAD", "CONFIG", "CYCLES",
             "WARP_INSTS", "HOST_S", "WARP_INSTS/S", "CYCLES/S", "RSS_MB");
  nlohmann::json all = nlohmann::json::array();
  for (const std::string& c : o.configs) {
    for (const std::string& w : o.workloads) {
      BenchResult r = run_isolated([&] { return run_one(w, c, size, o.repeat); }, w, c, o.repeat);
      double s = r.host_seconds > 0 ? r.host_seconds : 1e-9;
      fmt::print("{:<13} {:<8} {:>12} {:>12} {:>9.2f} {:>14.0f} {:>12.0f} {:>9.1f}{}\n", w, c, r.cycles,
                 r.warp_insts, r.host_seconds, double(r.warp_insts) / s, double(r.cycles) / s,
                 double(r.peak_rss_bytes) / (1 << 20), r.passed ? "" : "  FAILED: " + r.error);
      std::fflush(stdout);
      if (!r.passed) exit_code() = 1;
      all.push_back(to_json(r));
    }
  }
  fmt::print("\nSTART-UP: a run of one empty kernel (config, GPU, context, module, launch, teardown)\n");
  fmt::print("{:<13} {:>9} {:>9}\n", "CONFIG", "HOST_MS", "RSS_MB");
  for (const std::string& c : o.configs) {
    BenchResult r = run_isolated([&] { return run_startup(c); }, "start-up", c, 1);
    fmt::print("{:<13} {:>9.1f} {:>9.1f}{}\n", c, r.host_seconds * 1e3, double(r.peak_rss_bytes) / (1 << 20),
               r.passed ? "" : "  FAILED: " + r.error);
    std::fflush(stdout);
    if (!r.passed) exit_code() = 1;
    all.push_back(to_json(r));
  }
  if (!o.json.empty()) write_json(o.json, all);
}

}  // namespace

void add_bench_commands(CLI::App& app) {
  auto* b = app.add_subcommand("bench", "Measure simulation speed of the timing model on fixed workloads");
  static BenchOptions opt;
  b->add_option("--size", opt.size, "Problem size of every workload")->check(CLI::IsMember({"tiny", "medium", "small"}));
  b->add_option("--json", opt.json, "Also write the results as a JSON list to FILE");
  b->add_option("--workloads", opt.workloads, "Workloads to run")->delimiter(',');
  b->add_option("--configs", opt.configs, "GPU presets or config files")->delimiter(',');
  b->add_option("--repeat", opt.repeat, "Run each workload N times in a row on one GPU (N times the thread blocks)")
      ->check(CLI::Range(1u, 100u));
  b->add_flag("--linear", opt.linear,
              "Cost of twice the work: run each workload once and twice, print the host-time ratio");
  b->callback([b] {
    // An option accepted must take effect: --linear sets the repeats itself.
    if (opt.linear && b->count("--repeat")) throw ApiError("--repeat has no effect with --linear (it runs 1 and 2)");
    bench(opt);
  });
}

}  // namespace gpumux::cli
