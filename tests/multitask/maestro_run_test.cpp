// The sharing policy maestro end to end: pairs of library benchmarks on a
// GTX980-like GPU with short epochs, so that the partition changes many times
// while they run. Every kernel must pass its CPU check under every
// repartition (TBs preempted by Chimera, by switching or flushing, then
// resumed elsewhere), the per-SM invariants must hold at every placement
// (frontend.check_invariants), and the policy must have measured and
// decided (its statistics).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include <fmt/format.h>

#include "multitask/run_test_util.h"

namespace gpumux::multitask {
namespace {

using test::benchmark_app;
using test::expect_all_passed;

WorkloadFile pair(const std::string& a, const std::string& b, const std::string& objective) {
  WorkloadFile w;
  w.gpu = std::string(GPUMUX_SOURCE_DIR) + "/configs/gtx980.toml";
  w.policy = "maestro";
  w.policy_options.maestro.epoch_cycles = 1000;
  w.policy_options.maestro.objective = *frontend::maestro::objective_named(objective);
  w.policy_options.preemption.mechanism = "chimera";
  w.overrides = {"gpu.num_sms=8", "frontend.check_invariants=true"};
  w.apps = {benchmark_app(a), benchmark_app(b)};
  for (AppSpec& s : w.apps) s.size = workloads::Size::Medium;  // enough TBs to share the GPU for many epochs
  return w;
}

uint64_t policy_stat(const RunResult& r, const std::string& policy, const std::string& path) {
  const nlohmann::json& m = r.stats.at("stats").at("frontend").at(policy);
  nlohmann::json node = m;
  size_t from = 0;
  for (size_t dot; (dot = path.find('.', from)) != std::string::npos; from = dot + 1)
    node = node.at(path.substr(from, dot - from));
  return node.at(path.substr(from)).at("total").get<uint64_t>();
}
uint64_t maestro_stat(const RunResult& r, const std::string& path) { return policy_stat(r, "maestro", path); }

struct Pair {
  const char* a;
  const char* b;
  const char* objective;
};

class MaestroRun : public ::testing::TestWithParam<Pair> {};

TEST_P(MaestroRun, MediumKernelsPassTheirChecksUnderRepartitioning) {
  RunOptions o = test::no_baselines();
  RunResult r = run_workload(pair(GetParam().a, GetParam().b, GetParam().objective), o);
  expect_all_passed(r);
  // The pair lasts while both kernels run.
  const uint64_t epochs = maestro_stat(r, "epochs");
  EXPECT_GT(epochs, 1u);
  EXPECT_EQ(maestro_stat(r, "decisions.spatial") + maestro_stat(r, "decisions.smk_even") +
                maestro_stat(r, "decisions.smk_other"),
            epochs);
  EXPECT_GT(maestro_stat(r, "repartitions"), 0u);
  // Some repartitions move a trial role onto an SM whose TBs fit it (role_swaps).
  EXPECT_GT(maestro_stat(r, "role_swaps"), 0u);
  // Dedicated and trial SMs alone take TBs back from the other kernel.
  EXPECT_FALSE(r.preemptions.empty());
  uint64_t left_early = 0;  // TBs switched or flushed, then resumed elsewhere
  for (const frontend::PreemptionRecord& p : r.preemptions) {
    EXPECT_EQ(p.mechanism, "chimera");
    EXPECT_TRUE(p.done()) << p.label << " on SM " << p.sm;
    left_early += p.switched + p.flushed;
  }
  EXPECT_GT(left_early, 0u);
}

// zero_cost_preemption: the same policy with every preempted TB switched
// without moving a byte (Maestro's repartition overhead is measured against
// it); the kernels still pass their checks.
TEST(MaestroZeroCost, MediumKernelsPassAndNoContextMoves) {
  WorkloadFile w = pair("hotspot", "bfs", "stp");
  w.policy_options.preemption.save.zero_cost = true;
  RunOptions o = test::no_baselines();
  RunResult r = run_workload(w, o);
  expect_all_passed(r);
  EXPECT_GT(maestro_stat(r, "repartitions"), 0u);
  ASSERT_FALSE(r.preemptions.empty());
  uint64_t switched = 0;
  for (const frontend::PreemptionRecord& p : r.preemptions) {
    EXPECT_TRUE(p.done()) << p.label << " on SM " << p.sm;
    EXPECT_EQ(p.bytes_saved, 0u);
    EXPECT_EQ(p.flushed, 0u);  // switched instead (a TB whose warps all exited still drains)
    switched += p.switched;
  }
  EXPECT_GT(switched, 0u);
}

// role_swaps = false: the trial roles stay on SMs 2 and 3 (no swap); the
// kernels pass their checks (MaestroRun runs the default, with swaps).
TEST(MaestroRoleSwaps, MediumKernelsPassWithoutSwaps) {
  WorkloadFile w = pair("hotspot", "bfs", "stp");
  w.policy_options.maestro.role_swaps = false;
  RunOptions o = test::no_baselines();
  RunResult r = run_workload(w, o);
  expect_all_passed(r);
  EXPECT_GT(maestro_stat(r, "repartitions"), 0u);
  EXPECT_EQ(maestro_stat(r, "role_swaps"), 0u);
}

// resume_pairs: hotspot launches its kernel again and again, each launch
// shorter than a 100,000-cycle epoch, beside cutcp's longer launches. A pair
// that starts over at each launch seldom finishes an epoch; one that resumes
// carries its unfinished epoch across launches and decides several times as
// often. The kernels pass their checks either way.
TEST(MaestroResume, MediumRelaunchedKernelsDecideMoreWhenPairsResume) {
  auto run = [](bool resume) {
    WorkloadFile w = pair("hotspot", "cutcp", "antt");
    w.policy_options.maestro.epoch_cycles = 100000;
    w.policy_options.maestro.resume_pairs = resume;
    w.run.max_cycles = 1200000;  // cutcp completes; hotspot's launches go on
    RunOptions o = test::no_baselines();
    RunResult r = run_workload(w, o);
    for (const AppOutcome& a : r.apps) {
      EXPECT_TRUE(a.error.empty()) << a.name << ": " << a.error;
      for (const AppRun& ar : a.runs) EXPECT_TRUE(ar.passed) << a.name << ": " << ar.detail;
    }
    EXPECT_FALSE(r.apps.at(1).runs.empty());  // cutcp completed
    return r;
  };
  RunResult fresh = run(false), resumed = run(true);
  EXPECT_EQ(maestro_stat(fresh, "resumed"), 0u);
  EXPECT_GT(maestro_stat(resumed, "resumed"), 0u);
  // 1 and 5 epochs when written.
  EXPECT_GT(maestro_stat(resumed, "epochs"), 2 * maestro_stat(fresh, "epochs"));
}

// A kernel launched beside one already resident in one wave: tpacf's tiny
// launch places its every TB at once, and cutcp arrives 20,000 cycles later.
// The two still make a pair (maestro pairs running kernels, not only those
// with TBs to place): its layout takes tpacf's TBs back from the SMs it gives
// cutcp, and the pair measures and decides. Both pass their checks.
TEST(MaestroResident, KernelPairsWithAKernelResidentInOneWave) {
  WorkloadFile w = pair("tpacf", "cutcp", "antt");
  w.policy_options.maestro.epoch_cycles = 5000;
  for (AppSpec& s : w.apps) s.size = workloads::Size::Tiny;
  w.apps[1].arrival = 20000;
  RunOptions o = test::no_baselines();
  RunResult r = run_workload(w, o);
  expect_all_passed(r);
  EXPECT_GT(maestro_stat(r, "pairs"), 0u);
  EXPECT_GT(maestro_stat(r, "epochs"), 0u);
  uint64_t tpacf_taken = 0;  // tpacf's resident TBs that made room
  for (const frontend::PreemptionRecord& p : r.preemptions) {
    EXPECT_TRUE(p.done()) << p.label << " on SM " << p.sm;
    if (p.label == r.kernels.front().label) tpacf_taken += p.tbs;
  }
  EXPECT_GT(tpacf_taken, 0u);
}

// More than two kernels: the first two in dispatch order are a pair on 8 of
// the 12 SMs (roles, epochs, repartitions), the third (cutcp) runs alone on
// the other 4 until a kernel finishes and the groups change. Every check passes.
TEST(MaestroThreeKernels, MediumKernelsPassBesideALoneKernel) {
  WorkloadFile w = pair("hotspot", "bfs", "antt");
  w.apps.push_back(benchmark_app("cutcp"));  // long launches: it keeps running beside the pair
  w.apps.back().size = workloads::Size::Medium;
  w.overrides = {"gpu.num_sms=12", "frontend.check_invariants=true"};
  RunOptions o = test::no_baselines();
  RunResult r = run_workload(w, o);
  expect_all_passed(r);
  const uint64_t epochs = maestro_stat(r, "epochs");
  EXPECT_GT(maestro_stat(r, "epochs_beyond_two"), 3u);
  EXPECT_EQ(maestro_stat(r, "decisions.spatial") + maestro_stat(r, "decisions.smk_even") +
                maestro_stat(r, "decisions.smk_other"),
            epochs);
  EXPECT_GT(maestro_stat(r, "repartitions"), 0u);
  EXPECT_GT(maestro_stat(r, "pairs"), 1u);  // the groups changed as kernels finished
  ASSERT_FALSE(r.preemptions.empty());
  // An application that completes first restarts, and the run ends with its
  // last launch in flight: only the preemptions of finished kernels must be over.
  std::set<uint32_t> finished;
  for (const frontend::KernelRecord& k : r.kernels)
    if (k.done) finished.insert(k.id);
  for (const frontend::PreemptionRecord& p : r.preemptions)
    if (finished.count(p.kernel)) {
      EXPECT_TRUE(p.done()) << p.label << " on SM " << p.sm;
    }
}

// warped-slicer (GPU Maestro's WS baseline): a profile phase, then every SM
// split from the measured curves; the kernels pass their checks through the
// change of layout (TBs of the profile layout taken back with chimera).
TEST(WarpedSlicerRun, MediumKernelsPassTheirChecksAfterProfiling) {
  WorkloadFile w = pair("hotspot", "bfs", "stp");
  w.policy = "warped-slicer";
  w.policy_options.warped_slicer.profile_cycles = 2000;
  RunOptions o = test::no_baselines();
  RunResult r = run_workload(w, o);
  expect_all_passed(r);
  EXPECT_GT(policy_stat(r, "warped_slicer", "profiles"), 0u);
  // bfs launches one kernel per level: later pairs with known curves are split without profiling.
  EXPECT_GT(policy_stat(r, "warped_slicer", "reused"), 0u);
}

INSTANTIATE_TEST_SUITE_P(Pairs, MaestroRun,
                         ::testing::Values(Pair{"hotspot", "bfs", "stp"}, Pair{"sgemm", "lbm", "antt"}),
                         [](const auto& i) { return fmt::format("{}_{}_{}", i.param.a, i.param.b, i.param.objective); });

}  // namespace
}  // namespace gpumux::multitask
