// Timing validation: each test isolates one mechanism with a kernel designed
// for it (tests/timing/kernels/timing_tests.cu) and checks the simulated
// behaviour against what the configuration implies.
#include <gtest/gtest.h>

#include <cmath>

#include "timing/timing_test_util.h"

namespace gpumux::test {
namespace {

using runtime::DevPtr;

// Warp instructions issued per core cycle over the last kernel, and the issue limit.
double last_ipc(TimedDevice& d, uint64_t insts_before) {
  Cycle c = d.last_kernel_cycles();
  return double(d.backend().warp_instructions() - insts_before) / double(c);
}

// A read stream (the copy kernel, stream_copy, reaches only ~50%: its reads
// and write-backs conflict in the DRAM banks, which drain writes without
// batching; see docs/timing-sm.md).
TEST(TimingValidation, StreamingReachesDramBandwidthWithoutExceedingIt) {
  TimedDevice d;
  const int n = 1 << 22, threads = 512 * 256;
  DevPtr in = d.ctx.malloc(n * 4), out = d.ctx.malloc(threads * 4);
  d.ctx.launch(d.mod.kernel("stream_sum"), {512}, {256}, in, out, n);
  Cycle cycles = d.last_kernel_cycles();
  const GpuConfig& g = d.config.values();
  double seconds = double(cycles) / (g.clock.core_mhz * 1e6);
  double peak = double(g.gpu.num_partitions) * g.dram.bus_bytes * g.dram.data_rate * g.clock.dram_mhz * 1e6;
  double achieved = (double(n) + threads) * 4 / seconds;
  EXPECT_GT(achieved, 0.70 * peak) << achieved / 1e9 << " GB/s of " << peak / 1e9;
  EXPECT_LT(achieved, 0.95 * peak) << achieved / 1e9 << " GB/s of " << peak / 1e9;
  // The data bus of no channel was busy for more cycles than elapsed.
  double dram_cycles = seconds * g.clock.dram_mhz * 1e6;
  for (uint32_t p = 0; p < g.gpu.num_partitions; ++p)
    EXPECT_LE(double(d.stats().sum("mem" + std::to_string(p) + ".dram.data_cycles")), dram_cycles + 1);
}

TEST(TimingValidation, ComputeBoundIpcApproachesIssueLimit) {
  TimedDevice d;
  const GpuConfig& g = d.config.values();
  double limit = double(g.gpu.num_sms) * g.sm.sub_cores;
  DevPtr out = d.ctx.malloc(16 * 8 * 256 * 4);
  d.ctx.launch(d.mod.kernel("fma_chains"), {16 * 8}, {256}, out, 512);
  double ipc = last_ipc(d, 0);
  EXPECT_GT(ipc, 0.80 * limit) << ipc;
  EXPECT_LE(ipc, limit);
}

TEST(TimingValidation, IpcRisesWithOccupancyUntilLatencyIsHidden) {
  std::vector<double> ipc;
  for (uint32_t tbs_per_sm : {1u, 2u, 4u, 8u, 16u}) {
    TimedDevice d;
    DevPtr out = d.ctx.malloc(16 * 16 * 128 * 4);
    // 128 threads: one warp per sub-core per TB.
    d.ctx.launch(d.mod.kernel("fma_dependent"), {16 * tbs_per_sm}, {128}, out, 256);
    ipc.push_back(last_ipc(d, 0) / 64.0);
  }
  for (size_t i = 1; i < ipc.size(); ++i) EXPECT_GE(ipc[i], ipc[i - 1] * 0.98) << "step " << i;
  EXPECT_LT(ipc[0], 0.35);  // one warp per scheduler cannot hide the FMA latency
  EXPECT_GT(ipc[3], 0.6);   // eight nearly can (loop overhead: dependent setp, branch refetch)
  EXPECT_GT(ipc[4], 0.8);   // sixteen do
  EXPECT_GT(ipc[4], ipc[0] * 3);
}

TEST(TimingValidation, SharedMemoryBankConflictsSerializeByDegree) {
  std::vector<Cycle> cycles;
  for (int stride : {1, 2, 4, 8, 16, 32}) {
    TimedDevice d;
    DevPtr out = d.ctx.malloc(256 * 4);
    d.ctx.launch(d.mod.kernel("smem_stride"), {1}, {256}, out, stride, 64);
    cycles.push_back(d.last_kernel_cycles());
    double accesses = double(d.stats().sum("sm*.shared.accesses"));
    double degree = 1.0 + double(d.stats().sum("sm*.shared.conflict_cycles")) / accesses;
    // Up to 5 conflict-free initialisation stores per warp dilute the 64 strided loads.
    double expected = (64.0 * stride + 5.0) / (64.0 + 5.0);
    EXPECT_NEAR(degree, expected, 0.1 * expected) << "stride " << stride;
  }
  for (size_t i = 1; i < cycles.size(); ++i) EXPECT_GT(cycles[i], cycles[i - 1]) << "stride index " << i;
  // 32-way conflicts: 8 warps x 64 loads x 32 cycles of banks.
  EXPECT_GT(cycles.back(), 8u * 64u * 32u);
}

TEST(TimingValidation, StridedAccessesCostTheSectorsCoalescingPredicts) {
  for (int stride : {1, 2, 4, 8, 32}) {
    TimedDevice d;
    const int threads = 16 * 256;
    DevPtr in = d.ctx.malloc(uint64_t(threads) * stride * 4), out = d.ctx.malloc(threads * 4);
    d.ctx.launch(d.mod.kernel("strided_read"), {16}, {256}, in, out, stride);
    d.ctx.synchronize();
    uint64_t warps = threads / 32;
    // Lines per warp load: 32 lanes x 4 B x stride over 128 B lines (at most 32), plus one per store.
    uint64_t lines = std::min<uint64_t>(32, uint64_t(stride));
    EXPECT_EQ(d.stats().sum("sm*.lsu.global_lines"), warps * (lines + 1)) << "stride " << stride;
    // DRAM reads: one 32 B sector per 8 lanes at unit stride, one per lane from stride 8 on.
    uint64_t sectors = warps * std::min<uint64_t>(32, 4 * uint64_t(stride));
    uint64_t dram_reads = d.stats().sum("mem*.dram.reads");
    EXPECT_GE(dram_reads, sectors / 4) << "stride " << stride;  // requests carry up to 4 sectors
    EXPECT_LE(dram_reads, sectors) << "stride " << stride;
  }
}

double hit_rate(StatRegistry& s, const std::string& level) {
  double h = double(s.sum(level + ".read_hits")), m = double(s.sum(level + ".read_misses")) +
                                                        double(s.sum(level + ".sector_misses"));
  return h / (h + m);
}

TEST(TimingValidation, CacheHitRatesFollowReuse) {
  {  // A 4 KB window read 128 times: the L1 serves nearly everything.
    TimedDevice d;
    DevPtr in = d.ctx.malloc(4096), out = d.ctx.malloc(16 * 256 * 4);
    d.ctx.launch(d.mod.kernel("reuse_read"), {16}, {256}, in, out, 1024, 128);
    d.ctx.synchronize();
    EXPECT_GT(hit_rate(d.stats(), "sm*.l1d"), 0.9);
  }
  {  // 1 MB streamed once, then again by a second launch: L2 hits, L1 misses.
    TimedDevice d;
    const int n = 1 << 18;
    DevPtr in = d.ctx.malloc(n * 4), out = d.ctx.malloc(n * 4);
    d.ctx.launch(d.mod.kernel("reuse_read"), {n / 256}, {256}, in, out, n, 1);
    d.ctx.synchronize();
    EXPECT_LT(hit_rate(d.stats(), "mem*.l2"), 0.05);
    d.stats().reset();
    d.ctx.launch(d.mod.kernel("reuse_read"), {n / 256}, {256}, in, out, n, 1);
    d.ctx.synchronize();
    EXPECT_LT(hit_rate(d.stats(), "sm*.l1d"), 0.3);
    EXPECT_GT(hit_rate(d.stats(), "mem*.l2"), 0.9);
  }
}

}  // namespace
}  // namespace gpumux::test
