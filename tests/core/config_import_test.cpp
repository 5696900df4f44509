#include "gpumux/core/config_import.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "gpumux/core/error.h"

namespace gpumux {
namespace {

// A Volta-like gpgpusim.config in the style of Accel-Sim's tested configs.
constexpr const char* kVoltaLike = R"(
# functional simulator specification
-gpgpu_ptx_instruction_classification 0
-gpgpu_n_clusters 40
-gpgpu_n_cores_per_cluster 2
-gpgpu_n_mem 24
-gpgpu_n_sub_partition_per_mchannel 2
-gpgpu_clock_domains 1200.0:1200.0:1200.0:850.0   # core:icnt:l2:dram
-gpgpu_shader_registers 65536
-gpgpu_shader_core_pipeline 2048:32
-gpgpu_shader_cta 32
-gpgpu_shmem_size 98304
-gpgpu_num_sched_per_core 4
-gpgpu_scheduler gto
-gpgpu_cache:dl1 S:4:128:64,L:T:m:L:L,A:256:32,16:0,32
-gpgpu_l1_latency 20
-gpgpu_cache:dl2 S:32:128:24,L:B:m:L:P,A:192:4,32:0,32
-gpgpu_l2_rop_latency 160
-ptx_opcode_latency_int 4,13,4,5,145,21
-ptx_opcode_latency_sfu 21
-gpgpu_dram_timing_opt "nbk=16:CCD=1:RRD=3:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=2:CDLR=3:WR=10:nbkgrp=4:CCDL=2:RTPL=3"
-gpgpu_dram_buswidth 16
-gpgpu_dram_burst_length 2
-dram_data_command_freq_ratio 2
-gpgpu_dram_scheduler 1
-gpgpu_frfcfs_dram_sched_queue_size 64
-gpgpu_mem_addr_mapping dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS
)";

bool has_note(const GpgpusimImport& r, const std::string& prefix) {
  return std::any_of(r.not_modeled.begin(), r.not_modeled.end(),
                     [&](const std::string& n) { return n.rfind(prefix, 0) == 0; });
}

TEST(ConfigImport, MapsModeledOptions) {
  GpgpusimImport r = import_gpgpusim_config(kVoltaLike, "volta");
  const GpuConfig& g = r.config.values();
  EXPECT_EQ(g.gpu.name, "volta");
  EXPECT_EQ(g.gpu.num_sms, 80u);
  EXPECT_EQ(g.gpu.num_partitions, 24u);
  EXPECT_DOUBLE_EQ(g.clock.core_mhz, 1200.0);
  EXPECT_DOUBLE_EQ(g.clock.dram_mhz, 850.0);
  EXPECT_EQ(g.sm.registers, 65536u);
  EXPECT_EQ(g.sm.max_threads, 2048u);
  EXPECT_EQ(g.sm.warp_slots, 64u);
  EXPECT_EQ(g.sm.tb_slots, 32u);
  EXPECT_EQ(g.sm.shared_mem_bytes, 98304u);
  EXPECT_EQ(g.sm.sub_cores, 4u);
  EXPECT_EQ(g.sm.warp_scheduler, "gto");
  EXPECT_EQ(g.sm.latency.int_alu, 4u);
  // Every entry of the int table: ADD, then MAX, MUL, MAD, DIV, SHFL.
  EXPECT_EQ(g.sm.opcode_latency.int_max, 13u);
  EXPECT_EQ(g.sm.opcode_latency.int_mul, 4u);
  EXPECT_EQ(g.sm.opcode_latency.int_mad, 5u);
  EXPECT_EQ(g.sm.opcode_latency.int_div, 145u);
  EXPECT_EQ(g.sm.opcode_latency.shfl, 21u);
  EXPECT_EQ(g.sm.opcode_latency.fp32_mad, 0u);  // no fp table: the unit's latency
  EXPECT_EQ(g.sm.latency.sfu, 21u);
  EXPECT_EQ(g.l1d.size_kb, 32u);  // 4 sets * 128 B * 64 ways
  EXPECT_EQ(g.l1d.ways, 64u);
  EXPECT_EQ(g.l1d.hit_latency, 20u);
  EXPECT_EQ(g.l1d.mshrs, 256u);
  EXPECT_EQ(g.l1d.mshr_merge, 32u);
  EXPECT_EQ(g.l1d.write_policy, mem::WritePolicy::WriteThrough);
  EXPECT_TRUE(g.l1d.write_allocate);  // 'L' (lazy fetch-on-read) allocates
  EXPECT_EQ(g.l2.size_kb, 32u * 128 * 24 * 24 * 2 / 1024);  // per sub-partition x 48 sub-partitions
  EXPECT_EQ(g.l2.write_policy, mem::WritePolicy::WriteBack);
  EXPECT_EQ(g.l2.hit_latency, 160u);
  EXPECT_EQ(g.dram.banks, 16u);
  EXPECT_EQ(g.dram.tRCD, 12u);
  EXPECT_EQ(g.dram.tCL, 12u);
  EXPECT_EQ(g.dram.tWL, 2u);
  EXPECT_EQ(g.dram.tWR, 10u);
  EXPECT_EQ(g.dram.bus_bytes, 16u);
  EXPECT_EQ(g.dram.data_rate, 2u);
  EXPECT_EQ(g.dram.queue_size, 64u);
}

TEST(ConfigImport, ReportsEveryOptionItDoesNotModel) {
  GpgpusimImport r = import_gpgpusim_config(kVoltaLike, "volta");
  EXPECT_TRUE(has_note(r, "not modeled: -gpgpu_ptx_instruction_classification 0"));
  EXPECT_TRUE(has_note(r, "not modeled: -gpgpu_mem_addr_mapping dramid@8;"));
  EXPECT_FALSE(has_note(r, "not modeled: -ptx_opcode_latency_int"));  // every entry is mapped
  EXPECT_TRUE(has_note(r, "not modeled: -gpgpu_cache:dl2 S:32:128:24,L:B:m:L:P,A:192:4,32:0,32 ("));
  EXPECT_TRUE(has_note(r, "not modeled: -gpgpu_dram_timing_opt"));
  for (const auto& n : r.not_modeled) {
    EXPECT_EQ(n.find("-gpgpu_n_clusters"), std::string::npos) << n;
    EXPECT_EQ(n.find("-gpgpu_shader_registers"), std::string::npos) << n;
  }
  auto timing = std::find_if(r.not_modeled.begin(), r.not_modeled.end(),
                             [](const std::string& n) { return n.find("-gpgpu_dram_timing_opt") != std::string::npos; });
  ASSERT_NE(timing, r.not_modeled.end());
  std::string detail = timing->substr(timing->find(" ("));
  EXPECT_EQ(detail, " (CDLR=3, nbkgrp=4, CCDL=2, RTPL=3: bank groups and turnarounds are not modeled)")
      << "RC equals RAS+RP: modeled";
}

TEST(ConfigImport, OutputLoadsBack) {
  GpgpusimImport r = import_gpgpusim_config(kVoltaLike, "volta");
  Config again;
  again.apply_text(r.config.dump(), "imported.toml");
  EXPECT_NO_THROW(again.validate());
  EXPECT_EQ(again.values().gpu.num_sms, 80u);
}

TEST(ConfigImport, InvalidModeledValuesAreReportedNotApplied) {
  GpgpusimImport r = import_gpgpusim_config("-gpgpu_num_sched_per_core 99\n", "x");
  EXPECT_TRUE(has_note(r, "not modeled: -gpgpu_num_sched_per_core 99 ("));
  EXPECT_EQ(r.config.values().sm.sub_cores, 4u);
  EXPECT_THROW(import_gpgpusim_config("stray\n", "x"), LoadError);
}

TEST(ConfigImport, OptionsGpumuxBehavesAsAreNotReported) {
  GpgpusimImport same = import_gpgpusim_config("-gpgpu_shmem_num_banks 32\n", "x");
  EXPECT_TRUE(same.not_modeled.empty());
  GpgpusimImport other = import_gpgpusim_config("-gpgpu_shmem_num_banks 16\n-gpgpu_no_such_option 1\n", "x");
  EXPECT_TRUE(has_note(other, "not modeled: -gpgpu_shmem_num_banks 16 (gpumux models 32"));
  EXPECT_TRUE(has_note(other, "not modeled: -gpgpu_no_such_option 1 (unknown to gpumux)"));
}

TEST(ConfigImport, SharedMemoryIsWhatKernelsWithoutCachePreferenceGet) {
  GpgpusimImport r = import_gpgpusim_config("-gpgpu_shmem_size 98304\n-gpgpu_shmem_sizeDefault 49152\n", "x");
  EXPECT_EQ(r.config.values().sm.shared_mem_bytes, 49152u);
  ASSERT_EQ(r.adjusted.size(), 1u);
  EXPECT_EQ(r.adjusted[0],
            "adjusted: -gpgpu_shmem_size 98304 (kernels without a cache preference get -gpgpu_shmem_sizeDefault 49152)");
  EXPECT_EQ(import_gpgpusim_config("-gpgpu_shmem_size 16384\n", "x").config.values().sm.shared_mem_bytes, 16384u);
}

TEST(ConfigImport, TwoLevelSchedulerKeepsItsActiveSet) {
  GpgpusimImport r = import_gpgpusim_config("-gpgpu_scheduler two_level_active:6:0:1\n", "x");
  EXPECT_EQ(r.config.values().sm.warp_scheduler, "two-level");
  EXPECT_EQ(r.config.values().sm.two_level_active, 6u);
  EXPECT_TRUE(has_note(r, "not modeled: -gpgpu_scheduler two_level_active:6:0:1 (inner and outer policies"));
}

TEST(ConfigImport, RepeatedOptionIsReportedOnceWithTheLastValue) {
  GpgpusimImport r = import_gpgpusim_config("-gpgpu_coalesce_arch 13\n-gpgpu_coalesce_arch 60\n", "x");
  ASSERT_EQ(r.not_modeled.size(), 1u);
  EXPECT_TRUE(has_note(r, "not modeled: -gpgpu_coalesce_arch 60 (gpumux has one coalescer"));
}

TEST(ConfigImport, ReferenceListsEveryMappedAndUnmodeledOption) {
  std::string md = gpgpusim_import_reference_markdown();
  EXPECT_NE(md.find("| `-gpgpu_kernel_launch_latency` | `frontend.launch_latency` |"), std::string::npos);
  EXPECT_NE(md.find("| `-gpgpu_num_reg_banks` | `sm.operand_collector.banks` |"), std::string::npos);
  EXPECT_NE(md.find("| `-gpgpu_operand_collector_num_in_ports_sp` |  | one instruction per sub-core"), std::string::npos);
  EXPECT_NE(md.find("| `-ptx_opcode_initiation_tensor` | `sm.interval.tensor` |"), std::string::npos);
  EXPECT_EQ(md.find("no tensor core"), std::string::npos);
  EXPECT_NE(md.find("| `-gpgpu_shmem_num_banks` | 32 |"), std::string::npos);
  EXPECT_NE(md.find("| `-gpgpu_TB_launch_latency` | `sm.tb_launch_latency` |"), std::string::npos);
}

TEST(ConfigImport, TbLaunchLatencyIsMapped) {
  GpgpusimImport r = import_gpgpusim_config("-gpgpu_TB_launch_latency 10\n", "x");
  EXPECT_TRUE(r.not_modeled.empty());
  EXPECT_EQ(r.config.values().sm.tb_launch_latency, 10u);
}

// A fixture written for these tests: a Turing-like SM with 4 schedulers,
// tensor cores and a banked register file with specialized collectors.
constexpr const char* kTensorAndCollector = R"(
-gpgpu_num_sched_per_core 4
-gpgpu_tensor_core_avail 1
-gpgpu_num_tensor_core_units 4
-ptx_opcode_latency_tesnor 40
-ptx_opcode_initiation_tensor 32
-gpgpu_num_reg_banks 16
-gpgpu_reg_file_port_throughput 2
-gpgpu_enable_specialized_operand_collector 1
-gpgpu_operand_collector_num_units_gen 2
-gpgpu_operand_collector_num_units_sp 4
-gpgpu_operand_collector_num_units_mem 3
-gpgpu_operand_collector_num_in_ports_sp 1
)";

TEST(ConfigImport, TensorCoresTakeTheLatencyAndTheIntervalRule) {
  GpgpusimImport r = import_gpgpusim_config(kTensorAndCollector, "x");
  const GpuConfig& g = r.config.values();
  EXPECT_EQ(g.sm.latency.tensor, 40u);
  // 32 cycles x 4 schedulers / 4 units, halved: a wmma.mma m16n16k16 is two m16n8k16.
  EXPECT_EQ(g.sm.interval.tensor, 16u);
  EXPECT_TRUE(std::any_of(r.adjusted.begin(), r.adjusted.end(), [](const std::string& a) {
    return a.find("-ptx_opcode_initiation_tensor 32 (32 x 4 schedulers / 4 units / 2") != std::string::npos;
  }));
  GpgpusimImport none = import_gpgpusim_config("-gpgpu_tensor_core_avail 0\n", "x");
  EXPECT_TRUE(has_note(none, "not modeled: -gpgpu_tensor_core_avail 0 (every sub-core has a tensor unit"));
  // Too slow for sm.interval.tensor's range: clamped, and said so.
  GpgpusimImport slow = import_gpgpusim_config("-ptx_opcode_initiation_tensor 1000\n", "x");
  EXPECT_EQ(slow.config.values().sm.interval.tensor, 64u);
}

TEST(ConfigImport, OperandCollectorSharesBanksAndUnitsAmongSubCores) {
  GpgpusimImport r = import_gpgpusim_config(kTensorAndCollector, "x");
  const SmOperandCollectorParams& oc = r.config.values().sm.operand_collector;
  EXPECT_EQ(oc.banks, 4u);            // 16 / 4
  EXPECT_EQ(oc.read_ports, 2u);
  EXPECT_EQ(oc.collector_units, 2u);  // (2 + 4 + 3) / 4, rounded down
  EXPECT_TRUE(std::any_of(r.adjusted.begin(), r.adjusted.end(), [](const std::string& a) {
    return a.find("9 collector units (generic and specialized together) per SM / 4 sub-cores") != std::string::npos;
  }));
  EXPECT_TRUE(has_note(r, "not modeled: -gpgpu_operand_collector_num_in_ports_sp 1 (one instruction per sub-core"));
  // Generic units only when the specialized ones are off.
  GpgpusimImport generic = import_gpgpusim_config(
      "-gpgpu_num_sched_per_core 2\n-gpgpu_num_reg_banks 8\n-gpgpu_enable_specialized_operand_collector 0\n"
      "-gpgpu_operand_collector_num_units_gen 8\n-gpgpu_operand_collector_num_units_sp 4\n",
      "x");
  EXPECT_EQ(generic.config.values().sm.operand_collector.collector_units, 4u);
  EXPECT_EQ(generic.config.values().sm.operand_collector.banks, 4u);
  // Without banks the model stays off, and the unit counts say so.
  GpgpusimImport off = import_gpgpusim_config(
      "-gpgpu_operand_collector_num_units_gen 8\n-gpgpu_reg_file_port_throughput 2\n", "x");
  EXPECT_EQ(off.config.values().sm.operand_collector.banks, 0u);
  EXPECT_TRUE(has_note(off, "not modeled: -gpgpu_operand_collector_num_units_gen 8 (no -gpgpu_num_reg_banks"));
  EXPECT_TRUE(has_note(off, "not modeled: -gpgpu_reg_file_port_throughput 2 (no -gpgpu_num_reg_banks"));
}

}  // namespace
}  // namespace gpumux
