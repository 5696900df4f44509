// Every workload runs at tiny size in functional mode and passes its CPU check.
#include <gtest/gtest.h>

#include "gpumux/runtime/runtime.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

CheckResult run_alone(const WorkloadSpec& w, Size size, uint64_t seed) {
  runtime::Device dev;
  runtime::Context& ctx = dev.create_context(w.name);
  return run_workload(w, ctx, size, seed);
}

class WorkloadTiny : public ::testing::TestWithParam<const WorkloadSpec*> {};

TEST_P(WorkloadTiny, PassesCheck) {
  const WorkloadSpec& w = *GetParam();
  CheckResult r = run_alone(w, Size::Tiny, 1);
  EXPECT_TRUE(r.passed) << w.name << ": " << r.detail;
}

INSTANTIATE_TEST_SUITE_P(All, WorkloadTiny, ::testing::ValuesIn(all_workloads()),
                         [](const ::testing::TestParamInfo<const WorkloadSpec*>& info) {
                           return info.param->name;
                         });

}  // namespace
}  // namespace gpumux::workloads
