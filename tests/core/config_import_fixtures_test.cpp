// Import of fixtures shaped like every configuration Accel-Sim tests
// (tests/core/fixtures/gpgpusim/README.md).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_test_util.h"
#include "gpumux/core/config_import.h"
#include "gpumux/core/error.h"

namespace gpumux {
namespace {

const std::filesystem::path kFixtures = std::filesystem::path(GPUMUX_SOURCE_DIR) / "tests/core/fixtures/gpgpusim";

GpgpusimImport import_fixture(const std::string& name) {
  std::ifstream in(kFixtures / (name + ".config"));
  std::stringstream text;
  text << in.rdbuf();
  return import_gpgpusim_config(text.str(), name);
}

bool has_line(const std::vector<std::string>& lines, const std::string& part) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

struct Expected {
  const char* name;
  uint32_t sms, partitions, l1_kb, l1_ways, l2_kb, shared_bytes, tCL;
};

// L1: adaptive configs get unified - shared memory; L2: sub-partition size x
// sub-partitions x partitions.
constexpr Expected kExpected[] = {
    {"SM2_GTX480", 15, 6, 16, 4, 768, 49152, 12},       {"SM3_KEPLER_TITAN", 14, 12, 16, 32, 1536, 49152, 16},
    {"SM6_TITANX", 28, 12, 48, 64, 3072, 98304, 16},    {"SM7_QV100", 80, 32, 32, 64, 6144, 98304, 12},
    {"SM7_TITANV", 80, 24, 32, 64, 4608, 98304, 12},    {"SM7_GV100", 80, 32, 32, 64, 6144, 98304, 12},
    {"SM75_RTX2060", 30, 12, 32, 64, 3072, 65536, 24},  {"SM75_RTX2060_S", 34, 16, 64, 64, 4096, 65536, 20},
    {"SM86_RTX3070", 46, 16, 28, 56, 4096, 102400, 24},
};

TEST(ConfigImportFixtures, EveryTestedConfigImportsAndValidates) {
  for (const Expected& e : kExpected) {
    SCOPED_TRACE(e.name);
    GpgpusimImport r = import_fixture(e.name);
    const GpuConfig& g = r.config.values();
    EXPECT_EQ(g.gpu.num_sms, e.sms);
    EXPECT_EQ(g.gpu.num_partitions, e.partitions);
    EXPECT_EQ(g.l1d.size_kb, e.l1_kb);
    EXPECT_EQ(g.l1d.ways, e.l1_ways);
    EXPECT_EQ(g.l2.size_kb, e.l2_kb);
    EXPECT_EQ(g.sm.shared_mem_bytes, e.shared_bytes);
    EXPECT_EQ(g.dram.tCL, e.tCL);
    for (const auto& n : r.not_modeled) EXPECT_EQ(n.find("unknown to gpumux"), std::string::npos) << n;
    Config again;
    again.apply_text(r.config.dump(), "imported.toml");
    EXPECT_NO_THROW(again.validate());
  }
}

TEST(ConfigImportFixtures, AdaptiveL1GetsWhatSharedMemoryLeaves) {
  GpgpusimImport r = import_fixture("SM86_RTX3070");
  EXPECT_TRUE(has_line(r.adjusted,
                       "adjusted: -gpgpu_adaptive_cache_config 1 (L1 = 128 KiB unified - 102400 B shared "
                       "memory = 28672 B in 4 sets"));
  EXPECT_EQ(r.config.values().l1d.mshrs, 384u);
  EXPECT_EQ(r.config.values().l1d.mshr_merge, 48u);
}

TEST(ConfigImportFixtures, WideCachesKeepTheirCapacity) {
  GpgpusimImport titanx = import_fixture("SM6_TITANX");
  EXPECT_TRUE(has_line(titanx.adjusted, "96 ways -> 6 sets of 64 ways"));
  GpgpusimImport single_set = import_fixture("SM75_RTX2060_S");
  EXPECT_TRUE(has_line(single_set.adjusted, "512 ways -> 8 sets of 64 ways"));
}

TEST(ConfigImportFixtures, TimingOptionsMapOntoGpumuxParameters) {
  GpgpusimImport qv100 = import_fixture("SM7_QV100");
  const GpuConfig& v = qv100.config.values();
  EXPECT_EQ(v.sm.warp_scheduler, "lrr") << "the repeated option's last value wins";
  EXPECT_EQ(v.frontend.launch_latency, 5000u);
  EXPECT_EQ(v.frontend.max_active_kernels, 128u);
  EXPECT_EQ(v.sm.interval.int_alu, 2u);  // one unit per sub-core: initiation as is
  EXPECT_EQ(v.sm.interval.fp32, 2u);
  EXPECT_EQ(v.sm.interval.fp64, 4u);
  EXPECT_EQ(v.sm.interval.sfu, 8u);
  EXPECT_EQ(v.sm.latency.sfu, 100u);
  EXPECT_EQ(v.l1d.ports, 4u);
  EXPECT_EQ(v.l2.hit_latency, 160u);          // core and L2 clocks are equal
  EXPECT_EQ(v.dram.controller_latency, 75u);  // 100 core cycles at 1132 MHz in 850 MHz DRAM cycles
  EXPECT_TRUE(has_line(qv100.adjusted,
                       "adjusted: -dram_latency 100 (100 core cycles x 850 / 1132 MHz -> "
                       "dram.controller_latency = 75 DRAM cycles)"));
  EXPECT_EQ(v.icnt.input_queue, 128u);  // 512 flits of 40 B: 4 flits per 128 B line + 8 B header
  EXPECT_EQ(v.icnt.output_queue, 128u);
  EXPECT_TRUE(has_line(qv100.adjusted,
                       "adjusted: -icnt_in_buffer_limit 512 (512 flits / 4 flits per 128 B line "
                       "packet -> icnt.input_queue = 128)"));
  EXPECT_EQ(v.l2.input_queue, 64u);
  EXPECT_EQ(v.address_map.interleave_bytes, 256u);
  EXPECT_EQ(v.address_map.hash, mem::PartitionHash::Xor);
  EXPECT_TRUE(has_line(qv100.not_modeled, "-gpgpu_memory_partition_indexing 2 (hash other than bitwise XOR"));
  EXPECT_EQ(std::count_if(qv100.not_modeled.begin(), qv100.not_modeled.end(),
                          [](const std::string& n) { return n.find("-gpgpu_scheduler") != std::string::npos; }),
            0);

  // Kepler: 6 SP, 2 SFU, 4 DP units shared by 4 schedulers, no INT units (INT runs on SP).
  GpgpusimImport kepler = import_fixture("SM3_KEPLER_TITAN");
  const GpuConfig& k = kepler.config.values();
  EXPECT_EQ(k.sm.interval.fp32, 1u);  // 1 x 4 / 6, rounded, at least 1
  EXPECT_EQ(k.sm.interval.int_alu, 1u);
  EXPECT_EQ(k.sm.interval.sfu, 4u);   // 2 x 4 / 2
  EXPECT_EQ(k.sm.interval.fp64, 2u);  // 2 x 4 / 4
  EXPECT_EQ(k.sm.latency.shared_mem, 24u) << "older spelling -smem_latency";
  EXPECT_EQ(k.address_map.hash, mem::PartitionHash::None);

  // Fermi: DP runs on the single SFU of each SM, two schedulers; two chips per controller.
  GpgpusimImport fermi = import_fixture("SM2_GTX480");
  const GpuConfig& f = fermi.config.values();
  EXPECT_EQ(f.sm.interval.fp64, 16u);  // 8 x 2 / 1
  EXPECT_EQ(f.sm.sub_cores, 2u);
  EXPECT_EQ(f.dram.bus_bytes, 8u);
  EXPECT_EQ(f.l1d.write_policy, mem::WritePolicy::WriteThrough);
}

TEST(ConfigImportFixtures, UnmodeledTimingOptionsAreReportedWithTheirReason) {
  GpgpusimImport r = import_fixture("SM3_KEPLER_TITAN");
  EXPECT_TRUE(has_line(r.not_modeled, "not modeled: -gpgpu_max_insn_issue_per_warp 2 (gpumux issues at most one"));
  EXPECT_TRUE(has_line(r.not_modeled, "not modeled: -gpgpu_gmem_skip_L1D 1 (gpumux caches global loads"));
  EXPECT_TRUE(has_line(r.not_modeled, "not modeled: -gpgpu_operand_collector_num_in_ports_sp 2 (one instruction"));
  EXPECT_TRUE(has_line(r.not_modeled, "not modeled: -gpgpu_pipeline_widths 6,4,0,2,1,6,4,0,2,1,12 ("));
  EXPECT_TRUE(has_line(r.not_modeled, "not modeled: -inter_config_file config_kepler_islip.icnt (BookSim"));
}

// Every imported TOML drives a simulation through the CLI (about 0.1 s each).
TEST(ConfigImportFixtures, ImportedConfigsRunVerifyTiny) {
  for (const Expected& e : kExpected) {
    SCOPED_TRACE(e.name);
    std::filesystem::path toml = std::filesystem::temp_directory_path() / fmt::format("gpumux_import_{}.toml", e.name);
    std::string out;
    std::string config = (kFixtures / (std::string(e.name) + ".config")).string();
    ASSERT_EQ(test::run_gpumux("config import " + config + " -o " + toml.string(), out), 0) << out;
    EXPECT_EQ(test::run_gpumux("verify vecadd --size tiny -c " + toml.string(), out), 0) << out;
    EXPECT_NE(out.find("timing model on " + std::string(e.name)), std::string::npos) << out;
    std::filesystem::remove(toml);
  }
}

TEST(ConfigImportFixtures, BadInputFailsWithFileAndLine) {
  std::filesystem::path bad = std::filesystem::temp_directory_path() / "gpumux_import_bad.config";
  std::ofstream(bad) << "-gpgpu_n_mem 4\n# fine so far\n-gpgpu_dram_timing_opt \"nbk=16:CL=12:\n";
  std::string out;
  EXPECT_NE(test::run_gpumux("config import " + bad.string(), out), 0);
  EXPECT_NE(out.find(bad.string() + ":3: quoted value is never closed"), std::string::npos) << out;
  std::filesystem::remove(bad);
}

}  // namespace
}  // namespace gpumux
