// The multi-application runner end to end: several benchmarks as concurrent
// applications on the timing model, checked against their CPU references.
#include "gpumux/multitask/runner.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "gpumux/core/error.h"
#include "multitask/run_test_util.h"

namespace gpumux::multitask {
namespace {

AppSpec app(const std::string& bench, int priority = 0, Cycle arrival = 0, uint64_t seed = 1) {
  AppSpec a;
  a.benchmark = workloads::find_workload(bench);
  EXPECT_NE(a.benchmark, nullptr) << bench;
  a.name = bench;
  a.priority = priority;
  a.arrival = arrival;
  a.seed = seed;
  return a;
}

WorkloadFile workload(std::vector<AppSpec> apps, const std::string& policy) {
  return test::gtx980_workload(std::move(apps), policy);
}

// The shared run only, with the dispatcher's invariants checked.
RunOptions checked() {
  RunOptions o = test::no_baselines();
  o.overrides = {"frontend.check_invariants=true"};
  return o;
}

using test::expect_all_passed;

// Four applications with mixed priorities and arrivals under every policy:
// correct results everywhere, and the per-SM resource invariants hold at
// every TB placement (frontend.check_invariants).
TEST(MultiAppRun, FourAppsUnderEveryPolicy) {
  for (const char* policy : {"fcfs", "spatial-even", "spatial-smart", "smk-even", "smk-drf", "smk-quota"}) {
    SCOPED_TRACE(policy);
    WorkloadFile w = workload({app("spmv", 0), app("binomial", 2, 1000), app("lbm", 1, 0), app("histo", -1, 5000)},
                              policy);
    if (std::string(policy) == "smk-quota")
      w.policy_options.tb_quota_by_app = {{0, 4}, {1, 2}, {2, 2}, {3, 2}};
    RunResult r = run_workload(w, checked());
    expect_all_passed(r);
    EXPECT_EQ(r.apps.size(), 4u);
    EXPECT_GT(r.warp_insts, 0u);
  }
}

// A faulting application is terminated and reported; the others complete.
TEST(MultiAppRun, FaultingAppIsTerminatedOthersRunOn) {
  WorkloadFile w = workload({app("sgemm"), test::faulting_app(), app("stencil")}, "smk-even");
  RunResult r = run_workload(w, checked());
  EXPECT_FALSE(r.all_passed());
  EXPECT_NE(r.apps[1].error.find("invalid global write access"), std::string::npos) << r.apps[1].error;
  for (size_t i : {0u, 2u}) {
    EXPECT_TRUE(r.apps[i].error.empty()) << r.apps[i].error;
    ASSERT_EQ(r.apps[i].runs.size(), 1u);
    EXPECT_TRUE(r.apps[i].runs[0].passed);
  }
}

// Applications that finish early restart until each completed N runs; the
// first run is the measured one.
TEST(MultiAppRun, EarlyFinishersRestart) {
  WorkloadFile w = workload({app("pc"), app("stencil")}, "fcfs");
  w.run.completions = 2;
  RunResult r = run_workload(w, checked());
  expect_all_passed(r);
  for (const AppOutcome& a : r.apps) {
    EXPECT_GE(a.runs.size(), 2u) << a.name;
    EXPECT_EQ(a.shared, double(a.runs[0].cycles()));
    for (size_t i = 1; i < a.runs.size(); ++i) EXPECT_GE(a.runs[i].start, a.runs[i - 1].end);
  }
  EXPECT_GT(r.apps[0].runs.size(), 2u);  // pc is much shorter than stencil: it kept restarting
}

TEST(MultiAppRun, CycleLimitedRunsCompareIssueRates) {
  WorkloadFile w = workload({app("spmv"), app("stencil")}, "smk-even");
  w.run.until = RunRule::Until::Cycles;
  w.run.max_cycles = 60000;
  RunResult r = run_workload(w, checked());
  EXPECT_TRUE(r.stopped_by_limit);
  EXPECT_GE(r.cycles, 60000u);
  EXPECT_LT(r.cycles, 61000u);
}

// Pinned: same inputs and seed, same cycles. Update deliberately when the
// model changes.
TEST(MultiAppRun, PinnedCyclesOfATwoAppTinyWorkload) {
  WorkloadFile w = workload({app("sgemm"), app("stencil", 0, 0, 2)}, "smk-even");
  RunResult r = run_workload(w, checked());
  expect_all_passed(r);
  RunResult again = run_workload(w, checked());
  EXPECT_EQ(again.cycles, r.cycles);
  EXPECT_EQ(again.apps[0].runs[0].cycles(), r.apps[0].runs[0].cycles());
  EXPECT_EQ(r.apps[0].runs[0].cycles(), 123619u);
  EXPECT_EQ(r.apps[1].runs[0].cycles(), 94678u);
}

// Isolated runs are cached on disk: the second run of a workload reads them.
TEST(MultiAppRun, BaselinesAreCachedAndGiveTheMetrics) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "gpumux-runner-test-cache";
  std::filesystem::remove_all(dir);
  WorkloadFile w = workload({app("pc"), app("histo")}, "spatial-even");
  RunOptions o;
  o.cache_dir = dir;
  RunResult first = run_workload(w, o);
  ASSERT_TRUE(first.metrics);
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.path().extension() == ".json";
  EXPECT_EQ(files, 2u);
  RunResult second = run_workload(w, o);
  ASSERT_TRUE(second.metrics);
  EXPECT_EQ(second.metrics->stp, first.metrics->stp);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_GT(first.apps[i].alone, 0);
    EXPECT_DOUBLE_EQ(first.metrics->apps[i].ntt, first.apps[i].shared / first.apps[i].alone);
  }
  std::filesystem::remove_all(dir);
}

// A single application under fcfs from cycle 0 is its own isolated run: its
// result is cached as the baseline (what a study's first wave relies on), and
// it equals the baseline a pair computes for the same application.
TEST(MultiAppRun, AnIsolatedRunIsItsOwnCachedBaseline) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "gpumux-runner-test-own-baseline";
  std::filesystem::remove_all(dir);
  RunOptions o;
  o.cache_dir = dir;
  RunResult alone = run_workload(workload({app("pc")}, "fcfs"), o);
  ASSERT_TRUE(alone.metrics);
  EXPECT_EQ(alone.metrics->apps[0].ntt, 1.0);
  EXPECT_EQ(alone.apps[0].alone, alone.apps[0].shared);
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.path().extension() == ".json";
  EXPECT_EQ(files, 1u);
  o.use_cache = false;  // the pair computes pc's baseline itself
  RunResult pair = run_workload(workload({app("pc"), app("histo", 0, 0, 2)}, "fcfs"), o);
  EXPECT_EQ(pair.apps[0].alone, alone.apps[0].alone);
  std::filesystem::remove_all(dir);
}

TEST(MultiAppRun, OutputsHoldMetricsAndTimelineTracks) {
  WorkloadFile w = workload({app("pc"), app("histo")}, "smk-even");
  stats::Timeline t;
  RunOptions o;
  o.use_cache = false;
  o.timeline = &t;
  RunResult r = run_workload(w, o);
  nlohmann::json j = to_json(r);
  ASSERT_TRUE(j["metrics"].is_object());
  EXPECT_GT(j["metrics"]["stp"].get<double>(), 0.0);
  EXPECT_TRUE(j["metrics"]["ntt"].contains("pc"));
  EXPECT_FALSE(j["kernels"].empty());
  EXPECT_FALSE(j["copies"].empty());
  EXPECT_TRUE(j["statistics"].contains("stats"));
  EXPECT_GT(j["host_cpu_seconds"].get<double>(), 0.0);  // wall time alone misleads on a shared machine
  std::string timeline = t.to_json().dump();
  EXPECT_NE(timeline.find("SM   0"), std::string::npos);
  EXPECT_NE(timeline.find("app 1: histo"), std::string::npos);
  EXPECT_NE(timeline.find("memcpy H2D"), std::string::npos);
  std::string summary = format_summary(r);
  EXPECT_NE(summary.find("STP"), std::string::npos);
  // run-one and --json move the statistics out instead of copying them: the same JSON.
  EXPECT_EQ(to_json(std::move(r)), j);
}

}  // namespace
}  // namespace gpumux::multitask

namespace gpumux::multitask {
namespace {

// A user's PTX application beside a benchmark; its outputs' checksum is a
// pure function of the seed.
TEST(MultiAppRun, UserPtxApplicationRunsBesideABenchmark) {
  WorkloadFile w = load_workload_file(std::string(GPUMUX_SOURCE_DIR) + "/configs/workloads/user-ptx.toml");
  RunResult r = run_workload(w, checked());
  expect_all_passed(r);
  EXPECT_NE(r.apps[0].runs[0].detail.find("output checksums y="), std::string::npos) << r.apps[0].runs[0].detail;
  EXPECT_EQ(run_workload(w, checked()).apps[0].runs[0].detail, r.apps[0].runs[0].detail);
  uint32_t saxpy_launches = 0;
  for (const auto& k : r.kernels) saxpy_launches += k.name == "saxpy";
  EXPECT_EQ(saxpy_launches, 4u);
}

}  // namespace
}  // namespace gpumux::multitask

namespace gpumux::multitask {
namespace {

Cycle first_run(const RunResult& r, size_t app = 0) { return r.apps.at(app).runs.at(0).cycles(); }

// The full-system model: host CPU time before each API call lengthens the
// turnaround by at least one gap (before the first call nothing else runs)
// and at most one gap per call (kernels already launched run during later
// gaps). The isolated baseline has the same gaps: alone, the NTT is 1.
TEST(MultiAppRun, CpuGapsLengthenTheTurnaroundAndTheBaseline) {
  WorkloadFile plain = workload({app("pc")}, "fcfs");
  WorkloadFile gaps = plain;
  gaps.apps[0].cpu_gap_us = 20;
  RunOptions o;
  o.use_cache = false;
  RunResult a = run_workload(plain, checked()), b = run_workload(gaps, o);
  expect_all_passed(b);
  Cycle gap = 20 * 1126;  // gtx980's core clock: 1126 MHz
  uint64_t calls = b.kernels.size() + b.copies.size();
  EXPECT_GE(first_run(b), first_run(a) + gap);
  EXPECT_LE(first_run(b), first_run(a) + calls * (gap + 1));
  ASSERT_TRUE(b.metrics);
  EXPECT_EQ(b.metrics->apps[0].ntt, 1.0);
}

// A user program's CPU step runs before each launch.
TEST(MultiAppRun, UserProgramCpuStepsRunBeforeEachLaunch) {
  const std::string dir = std::string(GPUMUX_SOURCE_DIR) + "/configs/workloads";
  auto program = [&](const std::string& cpu) {
    return parse_workload("[[app]]\nname = \"saxpy\"\nptx = \"kernels/saxpy.ptx\"\n"
                          "[[app.buffer]]\nname = \"x\"\nbytes = 4096\n[[app.buffer]]\nname = \"y\"\nbytes = 4096\n"
                          "[[app.launch]]\nkernel = \"saxpy\"\ngrid = [4]\nblock = [256]\n"
                          "args = [\"buf:x\", \"buf:y\", \"u32:1024\", \"f32:2.0\"]\nrepeat = 3\n" + cpu,
                          "w.toml", dir);
  };
  RunResult a = run_workload(program(""), checked());
  RunResult b = run_workload(program("cpu_us = 40\n"), checked());
  expect_all_passed(b);
  EXPECT_GE(first_run(b), first_run(a) + 40 * 1126);
  EXPECT_LE(first_run(b), first_run(a) + 3 * (40 * 1126 + 1));
}

}  // namespace
}  // namespace gpumux::multitask

namespace gpumux::multitask {
namespace {

// The rest of a saxpy app (configs/workloads/kernels/saxpy.ptx): buffers x
// (0, 1, 2, ...) and y (zeros) of 1024 floats, and one launch: y = 2x + y.
const std::string kSaxpyOnXY =
    "[[app.buffer]]\nname = \"x\"\nbytes = 4096\ninit = \"iota_f32\"\n"
    "[[app.buffer]]\nname = \"y\"\nbytes = 4096\ninit = \"zero\"\n"
    "[[app.launch]]\nkernel = \"saxpy\"\ngrid = [4]\nblock = [256]\n"
    "args = [\"buf:x\", \"buf:y\", \"u32:1024\", \"f32:2.0\"]\n";

// output_dir: each output buffer's bytes in <output_dir>/<buffer>.bin.
// saxpy with x = 0, 1, 2, ... and y = 0 leaves y = 2x.
TEST(MultiAppRun, UserProgramWritesItsOutputBuffers) {
  std::filesystem::path out = std::filesystem::temp_directory_path() / "gpumux-runner-test-outputs";
  std::filesystem::remove_all(out);
  WorkloadFile w = parse_workload("[[app]]\nname = \"saxpy\"\nptx = \"kernels/saxpy.ptx\"\noutputs = [\"y\"]\n"
                                  "output_dir = \"" + out.string() + "\"\n"
                                  + kSaxpyOnXY,
                                  "w.toml", std::string(GPUMUX_SOURCE_DIR) + "/configs/workloads");
  RunResult r = run_workload(w, checked());
  expect_all_passed(r);
  std::ifstream in(out / "y.bin", std::ios::binary);
  std::vector<float> y(1024);
  in.read(reinterpret_cast<char*>(y.data()), 4096);
  ASSERT_EQ(in.gcount(), 4096);
  EXPECT_EQ(in.peek(), EOF);  // exactly the buffer
  for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], 2.0f * float(i)) << i;
  EXPECT_FALSE(std::filesystem::exists(out / "x.bin"));  // not an output
  std::filesystem::remove_all(out);
}

// In-process twin of the served late-arrival test (tests/cudart): an app
// arrives while another's 16 MB copy runs, under ppq with context switch. The
// copy is progress and the arrival a wait: every app passes, the late one
// starting at its arrival cycle during the copy.
TEST(MultiAppRun, LateArrivalDuringALongCopyUnderPpqWithContextSwitch) {
  WorkloadFile w = parse_workload("[policy]\nname = \"ppq\"\npreemption = \"switch\"\n"
                                  "[[app]]\nname = \"saxpy\"\nptx = \"kernels/saxpy.ptx\"\n"
                                  "[[app.buffer]]\nname = \"big\"\nbytes = 16777216\ninit = \"random\"\n"
                                  + kSaxpyOnXY +
                                  "[[app]]\nbenchmark = \"spmv\"\nsize = \"tiny\"\npriority = 1\n"
                                  "[[app]]\nbenchmark = \"stencil\"\nsize = \"tiny\"\narrival_cycle = 200000\n",
                                  "w.toml", std::string(GPUMUX_SOURCE_DIR) + "/configs/workloads");
  RunResult r = run_workload(w, checked());
  expect_all_passed(r);
  EXPECT_EQ(r.apps[2].runs.at(0).start, 200000u);
  const Tick arrival = 177'619'894;  // core cycle 200000 of the GTX980 (1126 MHz)
  ASSERT_FALSE(r.copies.empty());
  EXPECT_EQ(r.copies[0].bytes, 16777216u);
  EXPECT_LT(r.copies[0].started, arrival);
  EXPECT_GT(r.copies[0].finished, arrival);
}

// An app whose isolated run faults: the shared run is still reported, that
// app's baseline and every metric are marked unavailable.
TEST(MultiAppRun, AFaultingBaselineLeavesTheSharedRunReported) {
  RunOptions o;
  o.use_cache = false;
  RunResult r = run_workload(workload({app("pc"), test::faulting_app()}, "smk-even"), o);
  EXPECT_FALSE(r.all_passed());
  EXPECT_TRUE(r.apps[0].alone_error.empty()) << r.apps[0].alone_error;
  EXPECT_GT(r.apps[0].alone, 0.0);
  EXPECT_NE(r.apps[1].alone_error.find("isolated run of faulty (oob) failed: "), std::string::npos)
      << r.apps[1].alone_error;
  EXPECT_FALSE(r.metrics);
  std::string summary = format_summary(r);
  EXPECT_NE(summary.find("app 1 has no baseline, so no NTT, STP, ANTT or fairness: isolated run of faulty"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find(" n/a "), std::string::npos) << summary;
  nlohmann::json j = to_json(r);
  EXPECT_TRUE(j["apps"][1]["alone"].is_null());
  EXPECT_TRUE(j["apps"][0]["alone"].is_number());
  EXPECT_TRUE(j["metrics"].is_null());

  // Alone, the run is its own isolated run: not simulated twice.
  RunResult alone = run_workload(workload({test::faulting_app()}, "fcfs"), o);
  EXPECT_EQ(alone.apps[0].alone_error, "this run is its isolated run, and it failed");
}

// Cycle counts print as integers, however large.
TEST(MultiAppRun, SummaryPrintsWholeCycles) {
  RunResult r;
  r.gpu = "gtx980";
  r.policy = "fcfs";
  AppOutcome a;
  a.name = a.benchmark = "lbm";
  a.shared = 3388523;
  a.alone = 1234567.4;
  r.apps.push_back(a);
  std::string s = format_summary(r);
  EXPECT_NE(s.find(" 3388523 "), std::string::npos) << s;
  EXPECT_NE(s.find(" 1234567 "), std::string::npos) << s;
  EXPECT_EQ(s.find("e+"), std::string::npos) << s;
}

}  // namespace
}  // namespace gpumux::multitask
