// GPU Maestro's 2-way allocation (sm.two_way_pairs, docs/two-way-allocation.md)
// end to end: pairs of tiny library benchmarks sharing every SM under
// smk-even and under maestro, which repartitions every epoch (chimera
// preemption, boundary TBs first). Every CPU check passes, the per-SM
// invariants hold at every placement, and the fragmentation statistics are
// in the results.
#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>

#include "multitask/run_test_util.h"

namespace gpumux::multitask {
namespace {

constexpr unsigned kSms = 4;

WorkloadFile pair(const std::string& policy, unsigned pairs) {
  WorkloadFile w = test::gtx980_workload({test::benchmark_app("binomial"), test::benchmark_app("lbm")}, policy);
  w.overrides = {fmt::format("gpu.num_sms={}", kSms), "frontend.check_invariants=true",
                 fmt::format("sm.two_way_pairs={}", pairs)};
  if (policy == "maestro") {
    w.policy_options.maestro.epoch_cycles = 1000;
    w.policy_options.preemption.mechanism = "chimera";
  }
  return w;
}

// Statistic `leaf` of sm<i>.fragmentation, summed over the SMs; -1 if absent.
int64_t fragmentation(const RunResult& r, const std::string& leaf) {
  const nlohmann::json& s = r.stats.at("stats");
  int64_t sum = 0;
  for (unsigned i = 0; i < kSms; ++i) {
    const std::string sm = fmt::format("sm{}", i);
    if (!s.contains(sm) || !s.at(sm).contains("fragmentation") || !s.at(sm).at("fragmentation").contains(leaf))
      return -1;
    sum += s.at(sm).at("fragmentation").at(leaf).at("total").get<int64_t>();
  }
  return sum;
}

struct Case {
  const char* policy;
  unsigned pairs;
};

class TwoWayRun : public ::testing::TestWithParam<Case> {};

TEST_P(TwoWayRun, KernelsPassTheirChecks) {
  RunOptions o = test::no_baselines();
  RunResult r = run_workload(pair(GetParam().policy, GetParam().pairs), o);
  test::expect_all_passed(r);
  // maestro's SM roles take TBs back: boundary TBs first under 2-way.
  if (std::string(GetParam().policy) == "maestro") {
    EXPECT_FALSE(r.preemptions.empty());
  }
  for (const frontend::PreemptionRecord& p : r.preemptions) EXPECT_TRUE(p.done()) << p.label << " on SM " << p.sm;
  const int64_t cycles = fragmentation(r, "cycles"), register_cycles = fragmentation(r, "register_cycles");
  ASSERT_GE(cycles, 0);
  ASSERT_GE(register_cycles, 0);
  // At most the whole register file is fragmented at any time.
  EXPECT_LE(register_cycles, cycles * 65536);
  EXPECT_EQ(cycles == 0, fragmentation(r, "episodes") == 0);
}

INSTANTIATE_TEST_SUITE_P(Policies, TwoWayRun,
                         ::testing::Values(Case{"smk-even", 1}, Case{"maestro", 1}, Case{"smk-even", 2}),
                         [](const auto& i) {
                           std::string n = fmt::format("{}_{}way", i.param.policy, 2 * i.param.pairs);
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

}  // namespace
}  // namespace gpumux::multitask
