// Trace applications (workload files' trace = "DIR", docs/accelsim-trace.md)
// end to end: traces written by the exporter replay through the timing model
// with the PTX run's instruction count and close to its cycles; they share
// the GPU under smk-even, a QoS quota scheme and ppq's preemption mechanisms;
// a hand-written folder in the tracer's unprocessed layout runs too.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "gpumux/core/error.h"
#include "gpumux/multitask/runner.h"
#include "gpumux/runtime/runtime.h"
#include "gpumux/trace/accelsim_writer.h"
#include "multitask/run_test_util.h"
#include "trace/compress_test_util.h"

namespace gpumux::multitask {
namespace {

namespace fs = std::filesystem;

// The exporter's trace of library benchmark `name` at tiny (seed 1), made once per test binary.
fs::path exported(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / "gpumux-trace-apps" / name;
  if (fs::exists(dir / "kernelslist.g")) return dir;
  fs::remove_all(dir);
  trace::AccelsimTraceWriter writer(dir);
  runtime::Device dev;
  dev.backend().set_observer(&writer);
  runtime::Context& ctx = dev.create_context(name);
  EXPECT_TRUE(workloads::run_workload(*workloads::find_workload(name), ctx, workloads::Size::Tiny, 1).passed);
  dev.backend().set_observer(nullptr);
  return dir;
}

AppSpec trace_app(const std::string& name, const fs::path& dir) {
  AppSpec a;
  a.name = name;
  a.trace = load_trace_program(dir);
  return a;
}

// The shared run only, never from the cache.
RunOptions uncached() {
  RunOptions o = test::no_baselines();
  o.use_cache = false;
  return o;
}

using test::benchmark_app;
using test::expect_all_passed;
using test::gtx980_workload;

Cycle kernel_cycles(const RunResult& r, uint32_t app) {
  return kernel_busy_cycles(r.kernels, app, r.apps.at(app).runs.at(0));
}

// Exporter -> reader -> timing model, against the PTX-driven run on the same
// preset (gtx980). One trace line per PTX instruction, so the warp
// instructions are the same; the cycles differ where the trace loses what the
// PTX run times (ld.param as MOV, integer division as IMAD, vector loads'
// other destination registers). docs/accelsim-trace.md has the whole table.
TEST(TraceApp, RoundTripOfLibraryBenchmarks) {
  struct Pinned {
    const char* name;
    Cycle trace_cycles;
  };
  for (const Pinned& p : {Pinned{"vecadd", 4570}, Pinned{"hotspot", 6434}, Pinned{"histo", 9432}, Pinned{"sgemm", 51973}}) {
    RunResult ptx = run_workload(gtx980_workload({benchmark_app(p.name)}, "fcfs"), uncached());
    RunResult replay = run_workload(gtx980_workload({trace_app(p.name, exported(p.name))}, "fcfs"), uncached());
    expect_all_passed(ptx);
    expect_all_passed(replay);
    EXPECT_EQ(replay.apps[0].warp_insts, ptx.apps[0].warp_insts) << p.name;
    const double ratio = double(kernel_cycles(replay, 0)) / double(kernel_cycles(ptx, 0));
    EXPECT_NEAR(ratio, 1.0, 0.15) << p.name;
    EXPECT_EQ(kernel_cycles(replay, 0), p.trace_cycles) << p.name << " (ratio " << ratio << ")";
  }
}

TEST(TraceApp, BesideAPtxBenchmarkUnderSmkEven) {
  WorkloadFile w = gtx980_workload({trace_app("vecadd-trace", exported("vecadd")), benchmark_app("stencil")},
                                   "smk-even");
  w.overrides = {"frontend.check_invariants=true"};
  RunResult a = run_workload(w, uncached());
  RunResult b = run_workload(w, uncached());
  expect_all_passed(a);
  RunResult alone = run_workload(gtx980_workload({trace_app("vecadd-trace", exported("vecadd"))}, "fcfs"),
                                 uncached());
  EXPECT_EQ(a.apps[0].warp_insts, alone.apps[0].warp_insts);
  EXPECT_GT(a.apps[1].warp_insts, 0u);
  EXPECT_EQ(a.cycles, b.cycles);  // deterministic
  EXPECT_EQ(a.apps[0].runs[0].end, b.apps[0].runs[0].end);
}

TEST(TraceApp, UnderAQosQuotaScheme) {
  WorkloadFile w = gtx980_workload({trace_app("hotspot-trace", exported("hotspot")), benchmark_app("lbm")},
                                   "smk-even");
  w.overrides = {"gpu.num_sms=4", "qos.epoch_cycles=1000"};
  w.quota_scheme = "naive";
  w.apps[0].qos_goal = 0.8;
  w.policy_options.qos_apps = {0};
  w.policy_options.num_apps = 2;
  RunOptions o = uncached();
  o.cache_dir = fs::path(::testing::TempDir()) / "gpumux-trace-qos-cache";
  RunResult r = run_workload(w, o);
  expect_all_passed(r);
  ASSERT_FALSE(r.qos.empty());
  for (const KernelQos& q : r.qos) {
    EXPECT_EQ(q.app, 0u);
    EXPECT_GT(q.goal_ipc, 0);
  }
}

// A high-priority PTX app arrives while the trace app's long kernel runs:
// ppq takes SMs back with each mechanism. A switched TB resumes at its warps'
// saved trace positions and a flushed one replays from its start, so the
// trace app issues exactly its instructions (plus, after flushes, the
// discarded ones).
TEST(TraceApp, PreemptedUnderPpqByEachMechanism) {
  RunResult alone = run_workload(gtx980_workload({trace_app("spmv-trace", exported("spmv"))}, "fcfs"),
                                 uncached());
  for (const std::string m : {"drain", "switch", "flush"}) {
    AppSpec urgent = benchmark_app("vecadd");
    urgent.priority = 1;
    urgent.arrival = 60000;
    WorkloadFile w = gtx980_workload({trace_app("spmv-trace", exported("spmv")), urgent}, "ppq");
    w.policy_options.preemption.mechanism = m;
    w.overrides = {"frontend.check_invariants=true"};
    RunResult r = run_workload(w, uncached());
    expect_all_passed(r);
    uint32_t switched = 0, flushed = 0;
    for (const frontend::PreemptionRecord& p : r.preemptions) {
      switched += p.switched;
      flushed += p.flushed;
    }
    EXPECT_FALSE(r.preemptions.empty()) << m;
    EXPECT_EQ(switched > 0, m == "switch") << m;
    EXPECT_EQ(flushed > 0, m == "flush") << m;
    if (m == "flush") {
      EXPECT_GT(r.apps[0].warp_insts, alone.apps[0].warp_insts);
    } else {
      EXPECT_EQ(r.apps[0].warp_insts, alone.apps[0].warp_insts) << m;
    }
  }
}

// tests/data/accelsim/raw-vecadd: a Turing trace in the tracer's unprocessed
// layout (kernelslist and kernel-1.trace, TB and warp on every line).
TEST(TraceApp, HandWrittenUnprocessedLayoutFolder) {
  WorkloadFile w = parse_workload("[policy]\nname = \"smk-even\"\n[run]\nrestart = false\n"
                                  "[[app]]\ntrace = \"raw-vecadd/\"\n"
                                  "[[app]]\nbenchmark = \"vecadd\"\n",
                                  "w.toml", std::string(GPUMUX_SOURCE_DIR) + "/tests/data/accelsim");
  EXPECT_EQ(w.apps[0].name, "raw-vecadd");
  EXPECT_EQ(w.apps[0].program(), "trace:raw-vecadd");
  RunResult r = run_workload(w, uncached());
  expect_all_passed(r);
  ASSERT_EQ(r.apps[0].runs.size(), 1u);
  EXPECT_EQ(r.apps[0].warp_insts, 4u * 2 * 13);  // 4 TBs of 2 warps, 13 instructions each
  size_t trace_copies = 0;
  for (const frontend::CopyRecord& c : r.copies) trace_copies += c.app == 0 && c.bytes == 1024;
  EXPECT_EQ(trace_copies, 2u);  // its two MemcpyHtoD
}

// The tracer's default output: kernel files compressed with xz
// (TRACE_FILE_COMPRESS=1), kernelslist.g naming kernel-N.traceg.xz. The
// replay is the plain folder's, cycle for cycle.
TEST(TraceApp, XzCompressedFolderReplaysLikeThePlainOne) {
  const fs::path plain = exported("histo");
  const fs::path packed = fs::path(::testing::TempDir()) / "gpumux-trace-apps" / "histo-xz";
  fs::remove_all(packed);
  fs::create_directories(packed);
  std::ifstream list(plain / "kernelslist.g");
  std::ofstream packed_list(packed / "kernelslist.g");
  size_t kernels = 0;
  for (std::string line; std::getline(list, line);) {
    if (line.starts_with("kernel-")) {
      std::ifstream in(plain / line, std::ios::binary);
      std::ofstream(packed / (line + ".xz"), std::ios::binary)
          << trace::test::xz(std::string(std::istreambuf_iterator<char>(in), {}));
      line += ".xz";
      ++kernels;
    }
    packed_list << line << "\n";
  }
  packed_list.close();
  ASSERT_GT(kernels, 0u);
  RunResult a = run_workload(gtx980_workload({trace_app("histo", plain)}, "fcfs"), uncached());
  RunResult b = run_workload(gtx980_workload({trace_app("histo", packed)}, "fcfs"), uncached());
  expect_all_passed(b);
  EXPECT_EQ(b.apps[0].warp_insts, a.apps[0].warp_insts);
  EXPECT_EQ(kernel_cycles(b, 0), kernel_cycles(a, 0));
}

// A hand-written folder in the tracer's unprocessed layout, long enough to be
// preempted: `tbs` TBs of 4 warps, each warp a chain of global loads (one
// per 8 lines, its TB's own lines) feeding FFMAs, interleaved across warps
// as the tracer writes them (version 4: no immediates).
fs::path long_raw_folder(uint32_t tbs, uint32_t lines) {
  const fs::path dir = fs::path(::testing::TempDir()) / "gpumux-trace-apps" / fmt::format("raw-long-{}-{}", tbs, lines);
  if (fs::exists(dir / "kernelslist")) return dir;
  fs::create_directories(dir);
  std::ofstream(dir / "kernelslist") << "kernel-1.trace\n";
  std::ofstream k(dir / "kernel-1.trace");
  k << fmt::format("-kernel name = chain\n-kernel id = 1\n-grid dim = ({},1,1)\n-block dim = (128,1,1)\n-shmem = 0\n"
                   "-nregs = 16\n-binary version = 70\n-cuda stream id = 0\n-accelsim tracer version = 4\n\n",
                   tbs);
  for (uint32_t i = 0; i < lines; ++i)
    for (uint32_t tb = 0; tb < tbs; ++tb)
      for (uint32_t w = 0; w < 4; ++w) {
        const std::string at = fmt::format("{} 0 0 {} {:04x} ffffffff ", tb, w, i * 16);
        if (i + 1 == lines)
          k << at << "0 EXIT 0 0\n";
        else if (i % 8 == 0)
          k << at << fmt::format("1 R2 LDG.E 1 R4 4 1 0x{:x} 4\n", 0x7f0000000000 + (uint64_t(tb) * 4 + w) * 4096 + i * 128);
        else
          k << at << "1 R3 FFMA 3 R2 R3 R3 0\n";
      }
  return dir;
}

TEST(TraceApp, HandWrittenFolderUnderPpqSwitchAndAQuotaScheme) {
  const fs::path dir = long_raw_folder(32, 1600);
  RunResult alone = run_workload(gtx980_workload({trace_app("chain", dir)}, "fcfs"), uncached());
  expect_all_passed(alone);
  EXPECT_EQ(alone.apps[0].warp_insts, 32u * 4 * 1600);
  AppSpec urgent = benchmark_app("vecadd");
  urgent.priority = 1;
  urgent.arrival = 3000;
  WorkloadFile w = gtx980_workload({trace_app("chain", dir), urgent}, "ppq");
  w.policy_options.preemption.mechanism = "switch";
  w.overrides = {"frontend.check_invariants=true"};
  w.run.restart = false;  // one run of each: its instructions are the trace's
  RunResult r = run_workload(w, uncached());
  expect_all_passed(r);
  uint32_t switched = 0;
  for (const frontend::PreemptionRecord& p : r.preemptions) switched += p.switched;
  EXPECT_GT(switched, 0u);
  EXPECT_EQ(r.apps[0].warp_insts, alone.apps[0].warp_insts);  // resumed at each warp's trace position

  WorkloadFile q = gtx980_workload({trace_app("chain", dir), benchmark_app("lbm")}, "smk-even");
  q.overrides = {"gpu.num_sms=4", "qos.epoch_cycles=1000"};
  q.quota_scheme = "naive";
  q.apps[0].qos_goal = 0.8;
  q.policy_options.qos_apps = {0};
  q.policy_options.num_apps = 2;
  q.run.restart = false;
  RunResult qr = run_workload(q, uncached());
  expect_all_passed(qr);
  ASSERT_FALSE(qr.qos.empty());
  EXPECT_EQ(qr.apps[0].warp_insts, alone.apps[0].warp_insts);
}

// tests/data/accelsim/xz-vecadd: the same trace as the tracer leaves it after
// post-processing at version 5 (grouped by TB, an immediate ending every
// line, kernel-1.traceg.xz): it replays exactly as the raw folder does.
TEST(TraceApp, PostProcessedXzFolderReplaysLikeTheRawOne) {
  auto run = [](const std::string& dir) {
    WorkloadFile w = parse_workload("[policy]\nname = \"smk-even\"\n[run]\nrestart = false\n"
                                    "[[app]]\ntrace = \"" + dir + "\"\n[[app]]\nbenchmark = \"vecadd\"\n",
                                    "w.toml", std::string(GPUMUX_SOURCE_DIR) + "/tests/data/accelsim");
    return run_workload(w, uncached());
  };
  RunResult raw = run("raw-vecadd"), xz = run("xz-vecadd");
  expect_all_passed(xz);
  EXPECT_EQ(xz.apps[0].warp_insts, 4u * 2 * 13);
  EXPECT_EQ(xz.cycles, raw.cycles);
  EXPECT_EQ(xz.apps[0].runs.at(0).end, raw.apps[0].runs.at(0).end);
}

TEST(TraceApp, WorkloadFileErrors) {
  auto error_of = [](const std::string& app) {
    try {
      parse_workload("[[app]]\n" + app, "w.toml", std::string(GPUMUX_SOURCE_DIR) + "/tests/data/accelsim");
    } catch (const LoadError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("trace = \"missing\"\n").find("w.toml:2"), std::string::npos) << error_of("trace = \"missing\"\n");
  EXPECT_NE(error_of("trace = \"missing\"\n").find("no kernelslist.g"), std::string::npos);
  EXPECT_NE(error_of("trace = \"raw-vecadd\"\nsize = \"small\"\n").find("does not apply to a trace application"),
            std::string::npos);
  EXPECT_NE(error_of("trace = \"raw-vecadd\"\nbenchmark = \"vecadd\"\n").find("give one of"), std::string::npos);
}

}  // namespace
}  // namespace gpumux::multitask
