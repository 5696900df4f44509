#include "suite.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <span>

#include "embedded_ptx.h"
#include "gpumux/core/error.h"
#include "gpumux/timing/timing_backend.h"

namespace gpumux::microbench {
namespace {

using runtime::DevPtr;
constexpr uint64_t kLine = 128;
constexpr int kSteps = 32;  // the latency kernels' chain: kSteps, then 2 * kSteps steps (microbench.cu)

// One fresh simulated GPU per measurement: cold caches, no earlier kernels.
class Bench {
 public:
  explicit Bench(const GpuConfig& cfg)
      : cfg_(cfg),
        dev_(timing::make_device(cfg)),
        ctx_(dev_->create_context("microbench")),
        mod_(ctx_.load_module_string(std::string(embedded::microbench_ptx), "microbench.ptx")),
        // One word per thread the GPU can hold: every kernel's sink fits.
        sink_(ctx_.malloc(uint64_t(cfg.gpu.num_sms) * cfg.sm.max_threads * 8)) {}

  runtime::Context& ctx() { return ctx_; }
  DevPtr sink() const { return sink_; }

  // Queues a launch (asynchronous, like CUDA).
  template <class... A>
  void queue(const char* kernel, runtime::Dim3 grid, runtime::Dim3 block, const A&... a) {
    ctx_.launch(mod_.kernel(kernel), grid, block, a...);
  }
  template <class... A>
  void launch(const char* kernel, runtime::Dim3 grid, runtime::Dim3 block, const A&... a) {
    queue(kernel, grid, block, a...);
    ctx_.synchronize();
  }
  void to_symbol(const char* sym, const void* src, uint64_t bytes) { ctx_.memcpy_to_symbol(mod_, sym, src, bytes); }
  std::vector<int64_t> read(DevPtr p, size_t n) { return ctx_.read<int64_t>(p, n); }
  const std::vector<frontend::KernelRecord>& kernels() { return timing::backend_of(*dev_).kernels(); }
  uint64_t stat(std::string_view pattern) { return timing::backend_of(*dev_).gpu().stats().sum(pattern); }
  // Bytes per core cycle as GB/s at the configured core clock.
  double gbps(double bytes, double cycles) const { return bytes / cycles * cfg_.clock.core_mhz / 1000.0; }

 private:
  const GpuConfig& cfg_;
  std::unique_ptr<runtime::Device> dev_;
  runtime::Context& ctx_;
  runtime::Module& mod_;
  DevPtr sink_;
};

// The two spans of a kernel that ran its chain kSteps then 2 * kSteps times.
std::vector<int64_t> chain_spans(Bench& b, DevPtr out) {
  std::vector<int64_t> t = b.read(out, 2);
  if (t[0] <= 0 || t[1] <= t[0])
    throw gpu::SimulationError(fmt::format("microbenchmark spans {} and {} cycles are not increasing", t[0], t[1]));
  return t;
}

// The cost of one step: the fixed costs of both spans cancel.
double per_step(Bench& b, DevPtr out) {
  std::vector<int64_t> t = chain_spans(b, out);
  return double(t[1] - t[0]) / kSteps;
}

// The mean cost per step over all 3 * kSteps steps. For DRAM chases: refresh
// closes rows and stalls channels every few thousand cycles, so the two spans
// see different shares of it and their difference is noisy; the clock reads
// and the store that per_step cancels are well under a cycle per step there.
double mean_step(Bench& b, DevPtr out) {
  std::vector<int64_t> t = chain_spans(b, out);
  return double(t[0] + t[1]) / (3 * kSteps);
}

// Span from the earliest start to the latest end of `pairs` (start, end) records.
double span(Bench& b, DevPtr out, size_t pairs) {
  std::vector<int64_t> t = b.read(out, 2 * pairs);
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = 0;
  for (size_t i = 0; i < pairs; ++i) {
    lo = std::min(lo, t[2 * i]);
    hi = std::max(hi, t[2 * i + 1]);
  }
  if (hi <= lo) throw gpu::SimulationError("microbenchmark recorded no time");
  return double(hi - lo);
}

// A circular chain of `count` pointers `stride` bytes apart; returns its start.
DevPtr pointer_chain(Bench& b, uint64_t count, uint64_t stride) {
  DevPtr base = b.ctx().malloc(count * stride);
  std::vector<uint64_t> words(count * stride / 8, 0);
  for (uint64_t i = 0; i < count; ++i) words[i * stride / 8] = base + ((i + 1) % count) * stride;
  b.ctx().memcpy_h2d(base, words.data(), words.size() * 8);
  return base;
}

// Read hits of one cache level (`prefix`: "sm*.l1d" or "mem*.l2") during the run.
std::string hit_detail(Bench& b, const char* label, const std::string& prefix) {
  uint64_t hits = b.stat(prefix + ".read_hits");
  return fmt::format("{} read hits {} of {}", label, hits, hits + b.stat(prefix + ".read_misses"));
}

std::string row_detail(Bench& b) {
  uint64_t hits = b.stat("mem*.dram.row_hits"), misses = b.stat("mem*.dram.row_misses"),
           conflicts = b.stat("mem*.dram.row_conflicts");
  return fmt::format("DRAM row hits {}, closed {}, conflicts {}", hits, misses, conflicts);
}

Measurement chase(const GpuConfig& cfg, const char* name, const char* method, uint64_t count, uint64_t stride, int warm,
                  bool dram) {
  Bench b(cfg);
  DevPtr chain = pointer_chain(b, count, stride);
  DevPtr out = b.ctx().malloc(16);
  b.launch("chase_global", 1, 1, chain, warm, out, b.sink());
  return {name, "cycles", dram ? mean_step(b, out) : per_step(b, out), method, dram ? row_detail(b) : ""};
}

// `threads`: 1, or a warp for warp-wide instructions (mma).
template <class T>
Measurement dependent(const GpuConfig& cfg, const char* name, const char* kernel, const char* method, T a, T c,
                      double ops_per_step = 1, uint32_t threads = 1) {
  Bench b(cfg);
  DevPtr out = b.ctx().malloc(16);
  b.launch(kernel, 1, threads, a, c, out, b.sink());
  return {name, "cycles", per_step(b, out) / ops_per_step, method, ""};
}

// Loop iterations of the arithmetic throughput kernels at scale 1 (64 operations
// per thread each): enough that the TB's start, clock reads and pipeline ramp
// weigh a few percent of the span.
constexpr int kArithIterations = 32;

// Lane operations per cycle on one SM: one TB of as many threads as fit (up
// to 1024), four independent chains per thread. An mma step counts its
// multiply-adds per lane instead (`ops_per_step`, `unit`).
template <class T>
Measurement throughput(const GpuConfig& cfg, const char* name, const char* kernel, const char* method, T a, T c,
                       int n, double ops_per_step = 1, const char* unit = "ops/cycle/SM") {
  Bench b(cfg);
  uint32_t threads = std::min<uint32_t>(1024, cfg.sm.max_threads);
  DevPtr out = b.ctx().malloc(threads / 32 * 16);
  b.launch(kernel, 1, threads, a, c, n, out, b.sink());
  double ops = double(threads) * 4 * 16 * n * ops_per_step;
  return {name, unit, ops / span(b, out, threads / 32), method, ""};
}

uint32_t blocks_per_sm(const GpuConfig& cfg, uint32_t threads) {
  return std::max<uint32_t>(1, std::min(cfg.sm.tb_slots, cfg.sm.max_threads / threads));
}

// Grid-stride streams over `bytes` of fresh memory: read, write or copy. Before
// a stream that writes, an untimed write of twice the L2's capacity leaves the
// L2 full of dirty lines, so that each timed write evicts one to DRAM: without
// it a write-back L2 absorbs its capacity's worth of the stream, which then
// reads faster than the DRAM can write.
Measurement stream(const GpuConfig& cfg, const char* name, const char* kernel, const char* method, uint64_t bytes) {
  Bench b(cfg);
  const uint32_t threads = 256, blocks = cfg.gpu.num_sms * blocks_per_sm(cfg, threads);
  int64_t n = int64_t(bytes / 16);
  DevPtr a = b.ctx().malloc(bytes), out = b.ctx().malloc(blocks * 16);
  double moved = double(bytes);
  if (std::string_view(kernel) != "bw_read") {
    uint64_t dirty_bytes = 2 * uint64_t(cfg.l2.size_kb) * 1024;
    b.launch("bw_write", blocks, threads, b.ctx().malloc(dirty_bytes), int64_t(dirty_bytes / 16), out);
  }
  if (std::string_view(kernel) == "bw_read") {
    b.launch(kernel, blocks, threads, a, n, out, b.sink());
  } else if (std::string_view(kernel) == "bw_write") {
    b.launch(kernel, blocks, threads, a, n, out);
  } else {
    DevPtr c = b.ctx().malloc(bytes);
    b.launch(kernel, blocks, threads, a, c, n, out);
    moved *= 2;
  }
  return {name, "GB/s", b.gbps(moved, span(b, out, blocks)), method, row_detail(b)};
}

// One TB per SM reading a window of `window_bytes` `passes` times; TB b starts
// `offset_bytes` * b into an array of `array_bytes`.
double window_cycles(Bench& b, const GpuConfig& cfg, uint64_t array_bytes, uint64_t window_bytes, uint64_t offset_bytes,
                     int passes, int warm) {
  uint32_t threads = std::min<uint32_t>(1024, cfg.sm.max_threads), blocks = cfg.gpu.num_sms;
  DevPtr a = b.ctx().malloc(array_bytes), out = b.ctx().malloc(blocks * 16);
  int64_t n = int64_t(array_bytes / 16), window = int64_t(window_bytes / 16), offset = int64_t(offset_bytes / 16);
  if (!warm) b.launch("bw_window", blocks, threads, a, n, window, offset, 1, 0, out, b.sink());  // into the L2
  b.launch("bw_window", blocks, threads, a, n, window, offset, passes, warm, out, b.sink());
  return span(b, out, blocks);
}

Measurement launch_overhead(const GpuConfig& cfg, int kernels) {
  Bench b(cfg);
  for (int i = 0; i < kernels; ++i) b.queue("empty_kernel", 1, 32);
  b.ctx().synchronize();
  const auto& k = b.kernels();
  double cycles = double(k.back().finished - k.front().enqueued) / kernels;
  return {"kernel_launch", "cycles", cycles, fmt::format("{} empty kernels back to back, one stream", kernels), ""};
}

}  // namespace

const std::vector<std::string>& measurement_names() {
  static const std::vector<std::string> names = {"l1_hit_latency",
                                                 "l2_hit_latency",
                                                 "dram_latency_seq",
                                                 "dram_latency_far",
                                                 "shared_latency",
                                                 "const_latency",
                                                 "shared_stride1",
                                                 "shared_stride2",
                                                 "shared_stride32",
                                                 "shared_conflict_way",
                                                 "fp32_latency",
                                                 "fp64_latency",
                                                 "int_latency",
                                                 "sfu_latency",
                                                 "cvt_latency",
                                                 "fp32_throughput",
                                                 "fp64_throughput",
                                                 "int_throughput",
                                                 "sfu_throughput",
                                                 "mma_latency",
                                                 "mma_throughput",
                                                 "atomic_global_latency",
                                                 "atomic_shared_latency",
                                                 "dram_read_bw",
                                                 "dram_write_bw",
                                                 "dram_copy_bw",
                                                 "l2_read_bw",
                                                 "l1_read_bw",
                                                 "kernel_launch",
                                                 "tb_launch",
                                                 "barrier"};
  return names;
}

std::vector<Measurement> run_suite(const GpuConfig& cfg, unsigned scale, std::span<const std::string> only) {
  const std::vector<std::string>& all = measurement_names();
  for (const std::string& name : only)
    if (std::find(all.begin(), all.end(), name) == all.end())
      throw ApiError(fmt::format("no measurement named '{}' (docs/calibration.md lists them)", name));
  auto want = [&](std::string_view name) {
    return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
  };
  const uint64_t l1 = uint64_t(cfg.l1d.size_kb) * 1024, l2 = uint64_t(cfg.l2.size_kb) * 1024;
  std::vector<Measurement> m;

  // Memory latencies: one thread chasing pointers (no address arithmetic).
  if (want("l1_hit_latency"))
    m.push_back(chase(cfg, "l1_hit_latency", "pointer chase, 64 lines (8 KB), warmed", 64, kLine, 64, false));
  uint64_t l2_lines = 4 * l1 / kLine;
  if (want("l2_hit_latency"))
    m.push_back(
        chase(cfg, "l2_hit_latency", "pointer chase over 4x the L1D, warmed", l2_lines, kLine, int(l2_lines), false));
  if (want("dram_latency_seq"))
    m.push_back(
        chase(cfg, "dram_latency_seq", "pointer chase, cold, consecutive 128 B lines", 3 * kSteps + 1, kLine, 0, true));
  if (want("dram_latency_far"))
    m.push_back(chase(cfg, "dram_latency_far", "pointer chase, cold, 64 KB apart", 3 * kSteps + 1, 64 * 1024, 0, true));
  if (want("shared_latency")) {
    Bench b(cfg);
    std::vector<uint32_t> chain(256);
    for (uint32_t i = 0; i < chain.size(); ++i) chain[i] = ((i + 1) % 256) * 4;  // byte offsets
    DevPtr c = b.ctx().malloc_copy(chain), out = b.ctx().malloc(16);
    b.launch("chase_shared", 1, 1, c, 256, out, b.sink());
    m.push_back({"shared_latency", "cycles", per_step(b, out), "chase in shared memory (one add per step)", ""});
  }
  if (want("const_latency")) {
    Bench b(cfg);
    std::vector<uint32_t> chain(1024);
    for (uint32_t i = 0; i < chain.size(); ++i) chain[i] = (i + 1) % 1024;
    b.to_symbol("cchain", chain.data(), chain.size() * 4);
    DevPtr out = b.ctx().malloc(16);
    b.launch("chase_const", 1, 1, out, b.sink());
    m.push_back(
        {"const_latency", "cycles", per_step(b, out), "chase in constant memory (index shift and add per step)", ""});
  }
  // Shared-memory banks: every warp of a TB, eight independent loads per iteration.
  double stride1 = 0;
  for (int stride : {1, 2, 32}) {
    if (!want("shared_stride1") && !want("shared_stride2") && !want("shared_stride32") && !want("shared_conflict_way"))
      break;
    Bench b(cfg);
    uint32_t threads = std::min<uint32_t>(1024, cfg.sm.max_threads);
    DevPtr out = b.ctx().malloc(threads / 32 * 16);
    int iters = 8 * int(scale);
    b.launch("shared_stride", 1, threads, stride, iters, out, b.sink());
    double per_load = span(b, out, threads / 32) / (double(threads / 32) * 8 * iters);
    if (stride == 1) stride1 = per_load;
    m.push_back({fmt::format("shared_stride{}", stride), "cycles", per_load,
                 fmt::format("SM cycles per warp load, lane l reads word {}*l", stride), ""});
    if (stride == 32)
      m.push_back({"shared_conflict_way", "cycles", (per_load - stride1) / 31,
                   "extra cycles per extra way of a bank conflict (stride 32 vs 1)", ""});
  }
  // Arithmetic: dependent-issue latency and per-SM throughput.
  if (want("fp32_latency"))
    m.push_back(dependent<float>(cfg, "fp32_latency", "lat_fp32", "dependent fma.rn.f32 chain", 1.0001f, 0.5f));
  if (want("fp64_latency"))
    m.push_back(dependent<double>(cfg, "fp64_latency", "lat_fp64", "dependent fma.rn.f64 chain", 1.0001, 0.5));
  if (want("int_latency"))
    m.push_back(dependent<int>(cfg, "int_latency", "lat_int", "dependent mad.lo.s32 chain", 3, 7));
  if (want("sfu_latency"))
    m.push_back(dependent<float>(cfg, "sfu_latency", "lat_sfu", "dependent sin.approx.f32 chain", 0.5f, 0.f));
  if (want("cvt_latency"))
    m.push_back(dependent<float>(cfg, "cvt_latency", "lat_cvt", "dependent cvt.rni.s32.f32 / cvt.rn.f32.s32 chain",
                                 12.5f, 0.f, 2));
  if (want("fp32_throughput"))
    m.push_back(throughput<float>(cfg, "fp32_throughput", "thr_fp32", "fma.rn.f32, 4 chains per thread", 1.0001f, 0.5f,
                                  kArithIterations * int(scale)));
  if (want("fp64_throughput"))
    m.push_back(throughput<double>(cfg, "fp64_throughput", "thr_fp64", "fma.rn.f64, 4 chains per thread", 1.0001, 0.5,
                                   kArithIterations * int(scale)));
  if (want("int_throughput"))
    m.push_back(throughput<int>(cfg, "int_throughput", "thr_int", "mad.lo.s32, 4 chains per thread", 3, 7,
                                kArithIterations * int(scale)));
  if (want("sfu_throughput"))
    m.push_back(throughput<float>(cfg, "sfu_throughput", "thr_sfu", "sin.approx.f32, 4 chains per thread", 0.5f, 0.f,
                                  kArithIterations * int(scale)));
  // Tensor cores: m16n8k16 f16 x f16 + f32, 2048 multiply-adds per warp
  // instruction (64 per lane). A and B hold 1.0 and 2^-10 in every half.
  const unsigned one = 0x3C003C00u, small = 0x14001400u;
  if (want("mma_latency"))
    m.push_back(dependent<unsigned>(cfg, "mma_latency", "lat_mma", "dependent mma.sync m16n8k16 f16/f32 chain, one warp",
                                    one, small, 1, 32));
  if (want("mma_throughput"))
    m.push_back(throughput<unsigned>(cfg, "mma_throughput", "thr_mma", "mma.sync m16n8k16 f16/f32, 4 chains per warp",
                                     one, small, 2 * int(scale), 2048.0 / 32, "MACs/cycle/SM"));
  // Atomics: dependent chains on one word (the address is and/shift/add of the result).
  if (want("atomic_global_latency")) {
    Bench b(cfg);
    DevPtr word = b.ctx().malloc(128), out = b.ctx().malloc(16);
    b.ctx().memset(word, 0, 128);
    b.launch("lat_atomic_global", 1, 1, word, 0u, out, b.sink());
    m.push_back(
        {"atomic_global_latency", "cycles", per_step(b, out), "dependent atom.global.add chain on one word", ""});
  }
  if (want("atomic_shared_latency")) {
    Bench b(cfg);
    DevPtr out = b.ctx().malloc(16);
    b.launch("lat_atomic_shared", 1, 1, 0u, out, b.sink());
    m.push_back(
        {"atomic_shared_latency", "cycles", per_step(b, out), "dependent atom.shared.add chain on one word", ""});
  }
  // Bandwidth per level.
  const uint64_t stream_bytes = uint64_t(cfg.gpu.num_sms) * 256 * 1024 * scale;
  if (want("dram_read_bw"))
    m.push_back(stream(cfg, "dram_read_bw", "bw_read", "grid-stride float4 reads, cold", stream_bytes));
  if (want("dram_write_bw"))
    m.push_back(stream(cfg, "dram_write_bw", "bw_write", "grid-stride float4 writes", stream_bytes));
  if (want("dram_copy_bw"))
    m.push_back(stream(cfg, "dram_copy_bw", "bw_copy", "grid-stride float4 copy (read + write bytes)", stream_bytes));
  if (want("l2_read_bw")) {
    Bench b(cfg);
    uint64_t window = 2 * l1, array = std::max(window, l2 / 2);
    uint64_t offset = std::min(window, (array - window) / cfg.gpu.num_sms);
    int passes = 4 * int(scale);
    double cycles = window_cycles(b, cfg, array, window, offset / 16 * 16, passes, 0);
    m.push_back({"l2_read_bw", "GB/s", b.gbps(double(cfg.gpu.num_sms) * double(window) * passes, cycles),
                 "one TB per SM re-reading 2x the L1D, all of it in the L2", hit_detail(b, "L2", "mem*.l2")});
  }
  if (want("l1_read_bw")) {
    Bench b(cfg);
    uint64_t window = l1 / 4;
    int passes = 32 * int(scale);
    double cycles = window_cycles(b, cfg, window * cfg.gpu.num_sms, window, window, passes, 1);
    m.push_back({"l1_read_bw", "B/cycle/SM", double(window) * passes / cycles,
                 "one TB per SM re-reading a quarter of the L1D", hit_detail(b, "L1D", "sm*.l1d")});
  }
  // Launch overheads and barriers.
  if (want("kernel_launch")) m.push_back(launch_overhead(cfg, 8));
  if (want("tb_launch")) {
    Bench b(cfg);
    uint32_t tbs = cfg.gpu.num_sms * cfg.sm.tb_slots * 4 * scale;
    b.launch("empty_kernel", tbs, 32);
    const frontend::KernelRecord& k = b.kernels().back();
    m.push_back({"tb_launch", "cycles", double(k.finished - k.first_tb) * cfg.gpu.num_sms / tbs,
                 "empty 1-warp TBs: cycles per TB on one SM", ""});
  }
  if (want("barrier")) {
    Bench b(cfg);
    uint32_t threads = std::min<uint32_t>(1024, cfg.sm.max_threads);
    DevPtr out = b.ctx().malloc(16);
    b.launch("barrier_loop", 1, threads, out);
    m.push_back({"barrier", "cycles", per_step(b, out), fmt::format("bar.sync of {} threads", threads), ""});
  }
  return m;
}

}  // namespace gpumux::microbench
