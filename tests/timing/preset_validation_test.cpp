// The streaming check of validation_test.cpp on other presets than gtx980: a
// read stream reaches 70-95% of the preset's DRAM bandwidth (no interconnect
// or L2 bottleneck below it). A preset below the band has a floor under what
// it reaches and its reason in docs/timing-memory.md ("Bandwidth per preset"):
// isca17-56sm puts 56 SMs' streams on 4 channels, whose rows they thrash.
#include <gtest/gtest.h>

#include "timing/timing_test_util.h"

namespace gpumux::test {
namespace {

struct StreamCase {
  const char* preset;
  double floor;  // of the peak
};

class PresetValidation : public ::testing::TestWithParam<StreamCase> {};

TEST_P(PresetValidation, StreamingReachesDramBandwidth) {
  TimedDevice d(GetParam().preset);
  const GpuConfig& g = d.config.values();
  const uint32_t tbs = 32 * g.gpu.num_sms;
  const int n = 1 << 22, threads = int(tbs) * 256;
  runtime::DevPtr in = d.ctx.malloc(n * 4), out = d.ctx.malloc(uint64_t(threads) * 4);
  d.ctx.launch(d.mod.kernel("stream_sum"), {tbs}, {256}, in, out, n);
  Cycle cycles = d.last_kernel_cycles();
  double seconds = double(cycles) / (g.clock.core_mhz * 1e6);
  double peak = double(g.gpu.num_partitions) * g.dram.bus_bytes * g.dram.data_rate * g.clock.dram_mhz * 1e6;
  double achieved = (double(n) + threads) * 4 / seconds;
  EXPECT_GT(achieved, GetParam().floor * peak) << achieved / 1e9 << " GB/s of " << peak / 1e9;
  EXPECT_LT(achieved, 0.95 * peak) << achieved / 1e9 << " GB/s of " << peak / 1e9;
}

INSTANTIATE_TEST_SUITE_P(EveryPreset, PresetValidation,
                         ::testing::Values(StreamCase{"gtx980", 0.70}, StreamCase{"isca17-16sm", 0.70},
                                           StreamCase{"isca17-56sm", 0.62}, StreamCase{"titanv", 0.70},
                                           StreamCase{"edge-16sm", 0.70}, StreamCase{"k20c", 0.70},
                                           StreamCase{"a100", 0.70}, StreamCase{"h100", 0.70}),
                         [](const auto& info) {
                           std::string s = info.param.preset;
                           std::erase(s, '-');
                           return s;
                         });

}  // namespace
}  // namespace gpumux::test
