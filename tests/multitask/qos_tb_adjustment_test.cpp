// The QoS TB adjustment (ISCA'17 3.6, gpu/qos/tb_adjustment.h) end to end: a
// QoS application below its goal gets TBs of the non-QoS one swapped out
// with a partial context switch; the swapped-out TBs resume and every run
// still passes its CPU check; the adjustment's statistics count it all.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "gpumux/multitask/runner.h"
#include "multitask/run_test_util.h"

namespace gpumux::multitask {
namespace {

WorkloadFile adjusted_pair(bool adjust) {
  WorkloadFile w;
  w.gpu = std::string(GPUMUX_SOURCE_DIR) + "/configs/gtx980.toml";
  w.overrides = {"gpu.num_sms=4", "qos.epoch_cycles=1000", "frontend.check_invariants=true"};
  w.policy = "smk-symmetric";
  w.policy_options.qos_apps = {0};
  w.quota_scheme = "rollover";
  w.tb_adjustment = adjust;
  w.apps = {test::benchmark_app("conv2d", 0.9), test::benchmark_app("lbm")};
  return w;
}

// The total of statistic `path` ("a.b.c"), 0 if it is not registered.
uint64_t stat_total(const RunResult& r, const std::string& path) {
  const nlohmann::json* node = &r.stats.at("stats");
  for (size_t from = 0; from <= path.size();) {
    size_t dot = std::min(path.find('.', from), path.size());
    std::string part = path.substr(from, dot - from);
    if (!node->contains(part)) return 0;
    node = &node->at(part);
    from = dot + 1;
  }
  return node->at("total").get<uint64_t>();
}

TEST(QosTbAdjustment, SwapsNonQosTbsOutForTheQosKernelAndEveryRunStillPasses) {
  std::filesystem::path cache = std::filesystem::temp_directory_path() / "gpumux-qos-tb-adjust-test";
  std::filesystem::remove_all(cache);
  RunOptions o = test::no_baselines();
  o.cache_dir = cache;
  RunResult r = run_workload(adjusted_pair(true), o);
  test::expect_all_passed(r);
  uint64_t grants = stat_total(r, "qos.tb_adjust.grants"), victims = stat_total(r, "qos.tb_adjust.victim_tbs");
  EXPECT_GT(grants, 0u);
  EXPECT_GT(victims, 0u);
  EXPECT_GT(stat_total(r, "qos.tb_adjust.swap_bytes"), 0u);
  EXPECT_GT(stat_total(r, "qos.tb_adjust.swap_cycles"), 0u);
  EXPECT_GT(stat_total(r, "qos.tb_adjust.idle_warp_samples"), 0u);
  // The swaps are the run's context switches (the policy's repartitions
  // drain): lbm's TBs, every one resumed, their bytes and cycles counted.
  uint64_t switched = 0, finished = 0, bytes = 0, cycles = 0;
  for (const frontend::PreemptionRecord& p : r.preemptions) {
    EXPECT_TRUE(p.done());
    if (p.mechanism != "switch") continue;
    EXPECT_EQ(p.app, 1u);
    switched += p.switched;
    finished += p.drained;  // a victim whose warps had all exited finishes instead
    bytes += p.bytes_saved;
    cycles += p.latency();
  }
  EXPECT_GT(switched, 0u);
  EXPECT_EQ(switched + finished, victims);
  EXPECT_EQ(bytes, stat_total(r, "qos.tb_adjust.swap_bytes"));
  EXPECT_EQ(cycles, stat_total(r, "qos.tb_adjust.swap_cycles"));
  EXPECT_EQ(stat_total(r, "frontend.preempt.tbs_resumed"), switched);

  // Without the adjustment the same allocation switches nothing and has no such statistics.
  RunResult plain = run_workload(adjusted_pair(false), o);
  test::expect_all_passed(plain);
  EXPECT_FALSE(plain.stats.at("stats").contains("qos"));
  for (const frontend::PreemptionRecord& p : plain.preemptions) EXPECT_EQ(p.switched, 0u);
  std::filesystem::remove_all(cache);
}

}  // namespace
}  // namespace gpumux::multitask
