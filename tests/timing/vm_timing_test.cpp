// Library workloads under address translation and demand paging
// (docs/virtual-memory.md): results stay correct, and the MMU's work shows in
// its statistics and in the run time.
#include <gtest/gtest.h>

#include "gpumux/gpu/gpu.h"
#include "gpumux/timing/timing_backend.h"
#include "workload.h"
#include "workload_test_name.h"

namespace gpumux::test {
namespace {

struct VmRun {
  workloads::CheckResult check;
  Cycle cycles = 0;
  uint64_t l1_lookups = 0, walks = 0, faults = 0, allocation_faults = 0, migrated = 0, evictions = 0;
  uint64_t local_faults = 0;
};

VmRun run_vm(const std::string& name, std::vector<std::string> overrides) {
  Config cfg = Config::build(std::string(GPUMUX_SOURCE_DIR) + "/configs/thesis-ch6.toml", overrides);
  auto dev = timing::make_device(cfg.values());
  runtime::Context& ctx = dev->create_context(name);
  VmRun r;
  r.check = workloads::run_workload(*workloads::find_workload(name), ctx, workloads::Size::Tiny, 1);
  timing::TimingBackend& b = timing::backend_of(*dev);
  r.cycles = b.busy_cycles();
  const StatRegistry& s = b.gpu().stats();
  if (cfg.values().vm.translation) {
    r.l1_lookups = s.sum("vm.l1_tlb.hits") + s.sum("vm.l1_tlb.misses");
    r.walks = s.sum("vm.walks");
    r.faults = s.sum("vm.faults");
    r.allocation_faults = s.sum("vm.allocation_faults");
    r.migrated = s.sum("vm.migrated_bytes");
    r.evictions = s.sum("vm.evictions");
    r.local_faults = s.sum("vm.local_faults");
  } else {
    EXPECT_EQ(s.find("vm.walks"), nullptr);  // nothing of the MMU is built
  }
  return r;
}

class VmWorkloadTiny : public ::testing::TestWithParam<const char*> {};

TEST_P(VmWorkloadTiny, CorrectWithTranslationAndWithDemandPaging) {
  const std::string name = GetParam();
  VmRun off = run_vm(name, {"vm.translation=false"});
  VmRun tlb = run_vm(name, {});
  VmRun paged = run_vm(name, {"vm.demand_paging=true"});
  EXPECT_TRUE(off.check.passed) << off.check.detail;
  EXPECT_TRUE(tlb.check.passed) << tlb.check.detail;
  EXPECT_TRUE(paged.check.passed) << paged.check.detail;
  EXPECT_GT(tlb.l1_lookups, 0u);
  EXPECT_GT(tlb.walks, 0u);
  EXPECT_EQ(tlb.faults, 0u);
  EXPECT_GT(tlb.cycles, off.cycles);  // translation only adds latency
  EXPECT_GT(paged.faults, 0u);
  // Units the host never wrote (memcpy_h2d, memset) fault without a transfer;
  // every one of these workloads copies its inputs in, and those transfer.
  EXPECT_LT(paged.allocation_faults, paged.faults);
  EXPECT_EQ(paged.migrated, (paged.faults - paged.allocation_faults) * 65536);
  // Each fault costs 12 us at 1 GHz (10 us allocation-only), serialized at
  // the host, all within the kernels' run.
  EXPECT_GE(paged.cycles, (paged.faults - paged.allocation_faults) * 12000 + paged.allocation_faults * 10000);
  EXPECT_EQ(paged.evictions, 0u);  // device memory is unlimited by default
}

// Outputs written only by the kernel: their faults are allocation-only.
TEST(VmWorkload, VecaddOutputFaultsAreAllocationOnly) {
  VmRun r = run_vm("vecadd", {"vm.demand_paging=true"});
  EXPECT_TRUE(r.check.passed) << r.check.detail;
  EXPECT_GT(r.allocation_faults, 0u);
  EXPECT_LT(r.allocation_faults, r.faults);  // the inputs came from the host
}

// Device memory for paged data smaller than the workload's data: every
// result still right, units evicted and faulted again, and slower.
TEST(VmWorkload, OversubscribedDeviceMemoryEvictsAndStaysCorrect) {
  VmRun fit = run_vm("vecadd", {"vm.demand_paging=true"});
  VmRun over = run_vm("vecadd", {"vm.demand_paging=true", "vm.device_memory_bytes=131072"});
  EXPECT_TRUE(over.check.passed) << over.check.detail;
  EXPECT_GT(over.evictions, 0u);
  EXPECT_GE(over.faults, fit.faults);
  EXPECT_GT(over.cycles, fit.cycles);
}

INSTANTIATE_TEST_SUITE_P(Library, VmWorkloadTiny, ::testing::Values("vecadd", "sgemm", "histo", "stencil"));

// vm.copies_resident (the thesis's setting of figures 6.14 and 6.15): the
// inputs are copied in, so no fault transfers data; the output faults,
// allocation-only.
TEST(VmWorkload, CopiedInputsAreResidentAndOnlyTheOutputFaults) {
  VmRun r = run_vm("vecadd", {"vm.demand_paging=true", "vm.copies_resident=true"});
  EXPECT_TRUE(r.check.passed) << r.check.detail;
  EXPECT_GT(r.faults, 0u);
  EXPECT_EQ(r.allocation_faults, r.faults);
  EXPECT_EQ(r.migrated, 0u);
}

// The device-malloc workloads (figure 6.14): the heap is first touched on the
// device, so every fault is allocation-only, handled where vm.local_faults says.
class DeviceHeapPaging : public ::testing::TestWithParam<const char*> {};

const std::vector<std::string> kHeapPaging = {"vm.demand_paging=true", "vm.copies_resident=true",
                                              "sm.fault_pipeline.mode=operand-log"};

std::vector<std::string> local_faults(std::vector<std::string> overrides) {
  overrides.push_back("vm.local_faults=true");
  return overrides;
}

TEST_P(DeviceHeapPaging, CorrectWithFaultsAtTheHostAndOnTheGpu) {
  VmRun host = run_vm(GetParam(), kHeapPaging), gpu = run_vm(GetParam(), local_faults(kHeapPaging));
  EXPECT_TRUE(host.check.passed) << host.check.detail;
  EXPECT_TRUE(gpu.check.passed) << gpu.check.detail;
  EXPECT_GT(host.faults, 0u);
  EXPECT_EQ(host.allocation_faults, host.faults);
  EXPECT_EQ(host.local_faults, 0u);
  EXPECT_EQ(gpu.faults, host.faults);
  EXPECT_EQ(gpu.local_faults, gpu.faults);
}

INSTANTIATE_TEST_SUITE_P(Library, DeviceHeapPaging, ::testing::Values("add-strings", "random-graph", "grid-points"),
                         [](const auto& info) { return workload_test_name(info.param); });

// Tiny TLBs, one MSHR and one walker: every back-pressure path is taken.
TEST(VmWorkload, CorrectWithTheSmallestMmu) {
  VmRun r = run_vm("histo", {"vm.demand_paging=true", "vm.l1_tlb.entries=1", "vm.l1_tlb.ways=1",
                             "vm.l1_tlb.mshrs=1", "vm.l2_tlb.entries=2", "vm.l2_tlb.ways=1", "vm.l2_tlb.mshrs=1",
                             "vm.walkers=1", "vm.fault_us=1", "vm.fault_alloc_us=0.5"});
  EXPECT_TRUE(r.check.passed) << r.check.detail;
  EXPECT_GT(r.faults, 0u);
}

TEST(VmWorkload, DemandPagingWithoutTranslationIsRejected) {
  EXPECT_THROW(Config::build(std::string(GPUMUX_SOURCE_DIR) + "/configs/thesis-ch6.toml",
                             std::vector<std::string>{"vm.translation=false", "vm.demand_paging=true"}),
               std::exception);
  // A fault the watchdog would take for a deadlock (100 us at 1 GHz is its limit).
  EXPECT_THROW(Config::build(std::string(GPUMUX_SOURCE_DIR) + "/configs/thesis-ch6.toml",
                             std::vector<std::string>{"vm.demand_paging=true", "vm.fault_us=100"}),
               std::exception);
  EXPECT_NO_THROW(Config::build(std::string(GPUMUX_SOURCE_DIR) + "/configs/thesis-ch6.toml",
                                std::vector<std::string>{"vm.demand_paging=true", "vm.fault_us=25"}));
  // The allocation-only fault is the transfer fault without its transfer.
  EXPECT_THROW(Config::build(std::string(GPUMUX_SOURCE_DIR) + "/configs/thesis-ch6.toml",
                             std::vector<std::string>{"vm.fault_alloc_us=13"}),
               std::exception);
  // Less than one migration unit of device memory.
  EXPECT_THROW(Config::build(std::string(GPUMUX_SOURCE_DIR) + "/configs/thesis-ch6.toml",
                             std::vector<std::string>{"vm.device_memory_bytes=4096"}),
               std::exception);
  // With eviction a fault may write a unit back first: 2 * 60 - 10 us is too long.
  EXPECT_THROW(Config::build(std::string(GPUMUX_SOURCE_DIR) + "/configs/thesis-ch6.toml",
                             std::vector<std::string>{"vm.demand_paging=true", "vm.fault_us=60",
                                                      "vm.device_memory_bytes=1048576"}),
               std::exception);
  // The GPU's handler needs a preemptible pipeline, and both paging options need demand paging.
  EXPECT_THROW(Config::build(std::string(GPUMUX_SOURCE_DIR) + "/configs/thesis-ch6.toml",
                             std::vector<std::string>{"vm.demand_paging=true", "vm.local_faults=true"}),
               std::exception);
  EXPECT_NO_THROW(Config::build(std::string(GPUMUX_SOURCE_DIR) + "/configs/thesis-ch6.toml",
                                std::vector<std::string>{"vm.demand_paging=true", "vm.local_faults=true",
                                                         "sm.fault_pipeline.mode=wd-commit"}));
  EXPECT_THROW(Config::build(std::string(GPUMUX_SOURCE_DIR) + "/configs/thesis-ch6.toml",
                             std::vector<std::string>{"vm.copies_resident=true"}),
               std::exception);
  EXPECT_THROW(Config::build(std::string(GPUMUX_SOURCE_DIR) + "/configs/thesis-ch6.toml",
                             std::vector<std::string>{"vm.demand_paging=true", "vm.local_faults=true",
                                                      "sm.fault_pipeline.mode=wd-commit", "vm.local_fault_us=150"}),
               std::exception);
}

}  // namespace
}  // namespace gpumux::test
