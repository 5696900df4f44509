// Isolated baselines ignore the config keys that only change how applications
// share the GPU (multitask/sharing_keys.h), so every sharing configuration
// compared divides by the same alone run.
#include "gpumux/multitask/sharing_keys.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gpumux/multitask/runner.h"
#include "gpumux/multitask/workload_file.h"
#include "multitask/run_test_util.h"

namespace gpumux::multitask {
namespace {

TEST(SharingOnlyKeys, RecogniseKeysAndSectionsNotTheirNeighbours) {
  EXPECT_TRUE(is_sharing_only("edge.scheduling=reserve"));
  EXPECT_TRUE(is_sharing_only(" edge.victim = newest"));
  EXPECT_TRUE(is_sharing_only("qos.epoch_cycles=2000"));
  EXPECT_TRUE(is_sharing_only("qos.tb_adjustment.enabled=true"));
  EXPECT_FALSE(is_sharing_only("edge.launch_path=cpu"));  // the event kernels' own latency
  EXPECT_FALSE(is_sharing_only("gpu.num_sms=4"));
  EXPECT_FALSE(is_sharing_only("sm.warp_scheduler=lrr"));
  EXPECT_FALSE(is_sharing_only("pcie.copy_engines=2"));
  EXPECT_FALSE(is_sharing_only("qosx.a=1"));
  std::vector<std::string> o = {"gpu.num_sms=4", "edge.scheduling=drain", "sm.warp_scheduler=lrr", "qos.epoch_cycles=9"};
  EXPECT_EQ(without_sharing_only(o), (std::vector<std::string>{"gpu.num_sms=4", "sm.warp_scheduler=lrr"}));
}

// A background application and an event application (EDGE, docs/edge.md).
WorkloadFile pair() {
  return parse_workload("gpu = \"edge-16sm\"\n[policy]\nname = \"fcfs\"\n"
                        "[[app]]\nbenchmark = \"pc\"\nsize = \"tiny\"\n"
                        "[[app]]\nbenchmark = \"ipv4\"\nsize = \"tiny\"\n"
                        "events = { process = \"poisson\", interval_us = 0.3, count = 64 }\n",
                        "pair.toml", ".");
}

RunResult run_with(const std::vector<std::string>& overrides) {
  RunOptions o;
  o.use_cache = false;
  o.overrides = overrides;
  RunResult r = run_workload(pair(), o);
  test::expect_all_passed(r);
  return r;
}

// Under SM reservation the event application alone would be confined to the
// reserved SMs; its baseline is the whole GPU's, as without the override.
// A GPU change (fewer SMs) gives its own baseline.
TEST(SharingOnlyKeys, OverridesOfThemKeepTheBaselineOthersChangeIt) {
  RunResult base = run_with({});
  RunResult reserve = run_with({"edge.scheduling=reserve", "edge.reserved_fraction=0.5"});
  RunResult smaller = run_with({"gpu.num_sms=4"});
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_GT(base.apps[i].alone, 0);
    EXPECT_EQ(reserve.apps[i].alone_kernel_cycles, base.apps[i].alone_kernel_cycles) << base.apps[i].name;
    EXPECT_EQ(reserve.apps[i].alone_event_cycles, base.apps[i].alone_event_cycles) << base.apps[i].name;
    EXPECT_EQ(reserve.apps[i].alone, base.apps[i].alone) << base.apps[i].name;
  }
  EXPECT_GT(base.apps[0].alone_kernel_cycles, 0);  // pc's kernels
  EXPECT_GT(base.apps[1].alone_event_cycles, 0);   // ipv4's events
  EXPECT_GT(smaller.apps[0].alone, base.apps[0].alone);  // pc alone on 4 SMs (the events are paced by arrivals)
  // The shared run itself does use the reservation: its events run as TBs on
  // the reserved SMs, not as warps through the PEWTs (edge.scheduling = preempt).
  ASSERT_FALSE(reserve.events.empty());
  for (const frontend::EventRecord& e : reserve.events) EXPECT_FALSE(e.warp_level);
  EXPECT_TRUE(std::any_of(base.events.begin(), base.events.end(),
                          [](const frontend::EventRecord& e) { return e.warp_level; }));
}

// [policy] warp_scheduler (SMK-(P+W): smk-drf with ka-fair) changes the shared
// run, not the isolated baselines it is divided by.
TEST(SharingOnlyKeys, PolicyWarpSchedulerKeepsTheBaseline) {
  auto run = [](const std::string& policy_keys) {
    RunOptions o;
    o.use_cache = false;
    RunResult r = run_workload(parse_workload("[policy]\nname = \"smk-drf\"\n" + policy_keys +
                                                  "[[app]]\nbenchmark = \"hotspot\"\nsize = \"tiny\"\n"
                                                  "[[app]]\nbenchmark = \"bfs\"\nsize = \"tiny\"\n",
                                              "pw.toml", "."),
                               o);
    test::expect_all_passed(r);
    return r;
  };
  RunResult drf = run("");
  RunResult pw = run("warp_scheduler = \"ka-fair\"\n");
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_GT(drf.apps[i].alone, 0);
    EXPECT_EQ(pw.apps[i].alone, drf.apps[i].alone) << drf.apps[i].name;
    EXPECT_EQ(pw.apps[i].alone_kernel_cycles, drf.apps[i].alone_kernel_cycles) << drf.apps[i].name;
  }
  EXPECT_NE(pw.cycles, drf.cycles);  // the fair scheduler did run the shared kernels
}

}  // namespace
}  // namespace gpumux::multitask
