// The sharing policy mig end to end: two applications in two GPU instances
// use disjoint SMs, L2 slices and DRAM channels (read back from the per-SM
// and per-partition statistics by application), and both pass their checks;
// two memory-bound applications slow each other less in MIG instances than
// as MPS clients.
#include <gtest/gtest.h>

#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "multitask/run_test_util.h"

namespace gpumux::multitask {
namespace {

using test::benchmark_app;
using test::expect_all_passed;

// The units (SMs "sm<i>", or partitions "mem<i>") on which `stat` counted
// some event of application `app`.
std::set<uint32_t> units_used(const RunResult& r, const std::string& app, const std::string& prefix, uint32_t units,
                              const std::string& component, const std::string& stat) {
  std::set<uint32_t> used;
  const nlohmann::json& stats = r.stats.at("stats");
  for (uint32_t u = 0; u < units; ++u) {
    const nlohmann::json* node = &stats.at(prefix + std::to_string(u));
    if (!component.empty()) node = &node->at(component);
    for (const auto& [label, n] : node->at(stat).at("by_key").items())
      if (label.starts_with(app + ".") && n.get<uint64_t>() > 0) used.insert(u);
  }
  return used;
}

std::set<uint32_t> range(uint32_t first, uint32_t count) {
  std::set<uint32_t> s;
  for (uint32_t i = first; i < first + count; ++i) s.insert(i);
  return s;
}

bool within(const std::set<uint32_t>& used, const std::set<uint32_t>& allowed) {
  for (uint32_t u : used)
    if (!allowed.count(u)) return false;
  return !used.empty();
}

// An A100 cut to 14 SMs and 8 partitions (2 SMs per compute slice, 1
// partition per memory slice) so that the test stays small.
WorkloadFile small_a100(std::vector<AppSpec> apps, const std::string& policy) {
  WorkloadFile w;
  w.gpu = "a100";
  w.policy = policy;
  w.apps = std::move(apps);
  w.overrides = {"gpu.num_sms=14", "gpu.mig_slice_sms=2", "gpu.num_partitions=8", "frontend.check_invariants=true"};
  return w;
}

// The benchmarks `apps` in instances 3g.20gb and 4g.20gb of the small A100,
// in that order (an instance beyond the apps is idle); every app passes.
RunResult run_in_3g_and_4g(const std::vector<std::string>& apps) {
  std::vector<AppSpec> specs;
  for (const std::string& a : apps) specs.push_back(benchmark_app(a));
  WorkloadFile w = small_a100(std::move(specs), "mig");
  w.policy_options.mig_profile_by_app = {{0, "3g.20gb"}, {1, "4g.20gb"}};
  RunOptions o = test::no_baselines();
  RunResult r = run_workload(w, o);
  expect_all_passed(r);
  return r;
}

// 3g.20gb: compute slices 0-2 (SMs 0-5), memory slices 0-3; 4g.20gb: compute
// slices 3-6 (SMs 6-13), memory slices 4-7.
TEST(MigRun, InstancesUseDisjointSmsL2SlicesAndChannels) {
  RunResult r = run_in_3g_and_4g({"vecadd", "spmv"});
  EXPECT_TRUE(within(units_used(r, "vecadd", "sm", 14, "", "tbs_done"), range(0, 6)));
  EXPECT_TRUE(within(units_used(r, "spmv", "sm", 14, "", "tbs_done"), range(6, 8)));
  EXPECT_TRUE(within(units_used(r, "vecadd", "mem", 8, "l2", "read_misses"), range(0, 4)));
  EXPECT_TRUE(within(units_used(r, "spmv", "mem", 8, "l2", "read_misses"), range(4, 4)));
  EXPECT_TRUE(within(units_used(r, "vecadd", "mem", 8, "dram", "reads"), range(0, 4)));
  EXPECT_TRUE(within(units_used(r, "spmv", "mem", 8, "dram", "reads"), range(4, 4)));
}

// An idle instance (listed in [policy] mig_profiles beyond the apps) holds
// its slices: the one application stays on its own 3g.20gb's SMs and
// partitions although the other four compute slices run nothing.
TEST(MigRun, AnIdleInstanceKeepsItsSlices) {
  RunResult r = run_in_3g_and_4g({"spmv"});
  EXPECT_TRUE(within(units_used(r, "spmv", "sm", 14, "", "tbs_done"), range(0, 6)));
  EXPECT_TRUE(within(units_used(r, "spmv", "mem", 8, "dram", "reads"), range(0, 4)));
}

// Instances needing more slices than the GPU has are refused when the GPU
// is built too (the workload file's parser refuses them first, with its
// file and line: WorkloadFile.MigProfiles), with the profiles named.
TEST(MigRun, InstancesThatDoNotFitAreRefused) {
  WorkloadFile w = small_a100({benchmark_app("vecadd"), benchmark_app("spmv")}, "mig");
  w.policy_options.mig_profile_by_app = {{0, "4g.20gb"}, {1, "4g.20gb"}};
  RunOptions o = test::no_baselines();
  EXPECT_THROW(
      {
        try {
          run_workload(w, o);
        } catch (const LoadError& e) {
          EXPECT_NE(std::string(e.what()).find("4g.20gb + 4g.20gb need 8 compute and 8 memory slices"),
                    std::string::npos)
              << e.what();
          throw;
        }
      },
      LoadError);
}

// A memory-bound application without copies (so that two of them start
// their kernels together rather than one after the other's copies): a kernel
// writes a[i] = i over 4 MB, a second streams b[i] = 2 a[i] + 1 into another
// 4 MB; one grid-stride loop per kernel. Checked exactly on the CPU.
AppSpec streaming_app(const std::string& name) {
  static constexpr std::string_view kPtx = R"(
.version 7.0
.target sm_80
.address_size 64
.visible .entry stream(.param .u64 a, .param .u64 b, .param .u32 n, .param .u32 init)
{
  .reg .pred %p<3>;
  .reg .b32 %r<9>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u32 %r1, [n];
  ld.param.u32 %r8, [init];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.u32 %r5, %r2, %r3, %r4;
  mov.u32 %r6, %nctaid.x;
  mul.lo.u32 %r7, %r6, %r3;
  setp.ne.u32 %p2, %r8, 0;
LOOP:
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd3, %r5, 4;
  add.u64 %rd4, %rd1, %rd3;
  @%p2 cvt.rn.f32.u32 %f1, %r5;
  @%p2 st.global.f32 [%rd4], %f1;
  @!%p2 ld.global.f32 %f1, [%rd4];
  @!%p2 fma.rn.f32 %f2, %f1, 0f40000000, 0f3F800000;
  add.u64 %rd5, %rd2, %rd3;
  @!%p2 st.global.f32 [%rd5], %f2;
  add.u32 %r5, %r5, %r7;
  bra LOOP;
DONE:
  ret;
}
)";
  auto run = [](runtime::Context& ctx, runtime::Module& mod, workloads::Size, uint64_t) -> workloads::CheckResult {
    const uint32_t n = 1u << 20;
    runtime::DevPtr a = ctx.malloc(n * 4ull), b = ctx.malloc(n * 4ull);
    ctx.launch(mod.kernel("stream"), {112}, {256}, a, b, n, 1u);
    ctx.launch(mod.kernel("stream"), {112}, {256}, a, b, n, 0u);
    std::vector<float> got = ctx.read<float>(b, n);
    for (uint32_t i = 0; i < n; ++i)
      if (got[i] != 2.0f * float(i) + 1.0f) return {false, "b[" + std::to_string(i) + "] = " + std::to_string(got[i])};
    return {true, "b = 2 a + 1"};
  };
  static const workloads::WorkloadSpec kSpec{"stream", "streams 4 MB through DRAM", "memory", kPtx,
                                             {"n=2^20", "n=2^20", "n=2^20", "n=2^20"}, +run};
  return test::spec_app(name, kSpec);
}

// Slowdown of each application's kernels beside the other, against the same
// application alone in the same share (its MIG instance, or its MPS
// percentage): MIG instances own their L2 slices and channels, MPS clients
// share them.
std::vector<double> pair_slowdowns(const std::string& policy) {
  auto configure = [&](WorkloadFile& w, const std::vector<uint32_t>& apps) {
    for (uint32_t i = 0; i < apps.size(); ++i) {
      if (policy == "mig") w.policy_options.mig_profile_by_app[i] = apps[i] == 0 ? "3g.20gb" : "4g.20gb";
      if (policy == "mps") w.policy_options.mps_percent_by_app[i] = 50;
    }
  };
  RunOptions o = test::no_baselines();
  auto kernel_cycles = [](const RunResult& r, uint32_t i) {
    EXPECT_FALSE(r.apps[i].runs.empty());
    return double(kernel_busy_cycles(r.kernels, i, r.apps[i].runs.at(0)));
  };
  WorkloadFile pair = small_a100({streaming_app("s0"), streaming_app("s1")}, policy);
  configure(pair, {0, 1});
  RunResult together = run_workload(pair, o);
  expect_all_passed(together);
  std::vector<double> slowdowns;
  for (uint32_t i = 0; i < 2; ++i) {
    WorkloadFile one = small_a100({streaming_app(i == 0 ? "s0" : "s1")}, policy);
    configure(one, {i});
    RunResult alone = run_workload(one, o);
    expect_all_passed(alone);
    slowdowns.push_back(kernel_cycles(together, i) / kernel_cycles(alone, 0));
  }
  return slowdowns;
}

// Two memory-bound applications: in MIG instances neither slows the other
// (their memory paths are disjoint), as MPS clients each slows the other.
TEST(MigRun, MemoryBoundPairSlowsEachOtherLessInMigThanUnderMps) {
  std::vector<double> mig = pair_slowdowns("mig"), mps = pair_slowdowns("mps");
  for (size_t i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    EXPECT_LT(mig[i], 1.02);
    EXPECT_GT(mps[i], mig[i] + 0.05);
  }
  std::cout << "slowdown MIG " << mig[0] << " " << mig[1] << ", MPS 50% " << mps[0] << " " << mps[1] << "\n";
}

}  // namespace
}  // namespace gpumux::multitask
