#include "gpumux/core/gpgpusim_unmodeled.h"

#include <algorithm>
#include <iterator>

namespace gpumux {
namespace {

constexpr const char* kNoTiming = "no effect on timing (functional simulation, limits or statistics)";
constexpr const char* kCollectorPorts =
    "one instruction per sub-core and cycle enters the collector units (its issue) and each leaves for its "
    "unit once its operands are read: no port limit";
constexpr const char* kPreference =
    "a kernel's cudaFuncCachePreferL1/PreferShared choice; gpumux has one L1/shared split for all kernels";

constexpr UnmodeledOption kUnmodeled[] = {
    // Functional simulation, device limits, statistics, power.
    {"-gpgpu_ptx_instruction_classification", nullptr, kNoTiming},
    {"-gpgpu_ptx_sim_mode", nullptr, kNoTiming},
    {"-gpgpu_ptx_force_max_capability", nullptr, kNoTiming},
    {"-gpgpu_ptx_convert_to_ptxplus", nullptr, kNoTiming},
    {"-gpgpu_ptx_save_converted_ptxplus", nullptr, kNoTiming},
    {"-gpgpu_compute_capability_major", nullptr, kNoTiming},
    {"-gpgpu_compute_capability_minor", nullptr, kNoTiming},
    {"-gpgpu_ignore_resources_limitation", nullptr, kNoTiming},
    {"-gpgpu_stack_size_limit", nullptr, kNoTiming},
    {"-gpgpu_heap_size_limit", nullptr, kNoTiming},
    {"-gpgpu_runtime_sync_depth_limit", nullptr, kNoTiming},
    {"-gpgpu_runtime_pending_launch_count_limit", nullptr, kNoTiming},
    {"-gpgpu_occupancy_sm_number", nullptr, kNoTiming},
    {"-gpgpu_max_insn", nullptr, kNoTiming},
    {"-gpgpu_memlatency_stat", nullptr, kNoTiming},
    {"-gpgpu_runtime_stat", nullptr, kNoTiming},
    {"-enable_ptx_file_line_stats", nullptr, kNoTiming},
    {"-visualizer_enabled", nullptr, kNoTiming},
    {"-power_simulation_enabled", nullptr, kNoTiming},
    {"-gpuwattch_xml_file", nullptr, kNoTiming},
    {"-trace_enabled", nullptr, kNoTiming},
    {"-trace_components", nullptr, kNoTiming},
    {"-trace_sampling_core", nullptr, kNoTiming},
    {"-gpgpu_clock_gated_lanes", nullptr, "power model only"},
    {"-gpgpu_simd_model", "1", "gpumux executes warps on SIMT lanes (model 1); other models are not built"},
    // SM front end and issue.
    {"-gpgpu_max_insn_issue_per_warp", "1", "gpumux issues at most one instruction per warp per cycle (no dual issue)"},
    {"-gpgpu_dual_issue_diff_exec_units", nullptr,
     "dual issue is not modeled (one instruction per scheduler per cycle): it caps Kepler's FP32 rate at 128 of an "
     "SMX's 192 lanes, k20c's largest remaining deviation (docs/calibration.md)"},
    {"-gpgpu_pipeline_widths", nullptr,
     "gpumux has no pipeline registers between issue, operand read and execution: a sub-core issues one "
     "instruction per cycle and each unit accepts one per sm.interval"},
    {"-gpgpu_registers_per_block", nullptr, "gpumux limits registers per SM only (sm.registers)"},
    {"-gpgpu_shmem_per_block", nullptr, "gpumux limits shared memory per SM only (sm.shared_mem_bytes)"},
    {"-gpgpu_cache:il1", nullptr, "no instruction cache: sm.fetch_latency is paid at warp start and taken branches"},
    {"-gpgpu_inst_fetch_throughput", nullptr, "no instruction cache or fetch bandwidth model (sm.fetch_latency)"},
    {"-gpgpu_perfect_inst_const_cache", "1",
     "gpumux never misses in the instruction or constant cache (sm.fetch_latency, sm.latency.constant)"},
    {"-gpgpu_const_cache:l1", nullptr, "every constant load hits: sm.latency.constant per distinct address"},
    {"-gpgpu_tex_cache:l1", nullptr,
     "no separate texture cache: texture fetches go through the L1 plus sm.latency.texture"},
    // Operand collector ports, tensor cores.
    {"-gpgpu_operand_collector_num_in_ports_gen", nullptr, kCollectorPorts},
    {"-gpgpu_operand_collector_num_out_ports_gen", nullptr, kCollectorPorts},
    {"-gpgpu_operand_collector_num_in_ports_sp", nullptr, kCollectorPorts},
    {"-gpgpu_operand_collector_num_out_ports_sp", nullptr, kCollectorPorts},
    {"-gpgpu_operand_collector_num_in_ports_sfu", nullptr, kCollectorPorts},
    {"-gpgpu_operand_collector_num_out_ports_sfu", nullptr, kCollectorPorts},
    {"-gpgpu_operand_collector_num_in_ports_dp", nullptr, kCollectorPorts},
    {"-gpgpu_operand_collector_num_out_ports_dp", nullptr, kCollectorPorts},
    {"-gpgpu_operand_collector_num_in_ports_mem", nullptr, kCollectorPorts},
    {"-gpgpu_operand_collector_num_out_ports_mem", nullptr, kCollectorPorts},
    {"-gpgpu_tensor_core_avail", "1",
     "every sub-core has a tensor unit (sm.latency.tensor, sm.interval.tensor) that runs mma instructions"},
    // L1 data cache and shared memory.
    {"-gpgpu_cache:dl1PrefL1", nullptr, kPreference},
    {"-gpgpu_cache:dl1PrefShared", nullptr, kPreference},
    {"-gpgpu_shmem_size_PrefL1", nullptr, kPreference},
    {"-gpgpu_shmem_size_PrefShared", nullptr, kPreference},
    {"-gpgpu_gmem_skip_L1D", "0", "gpumux caches global loads in the L1; an L1 bypass for global data is not modeled"},
    {"-gpgpu_flush_l1_cache", nullptr,
     "gpumux keeps L1 contents from kernel to kernel (kernels of several applications share an SM)"},
    {"-gpgpu_l1_cache_write_ratio", nullptr, "no limit on the L1 lines written (unified cache write ratio)"},
    {"-gpgpu_n_cluster_ejection_buffer_size", nullptr,
     "responses enter the SM through the crossbar output buffer (icnt.output_queue); no separate ejection buffer"},
    {"-gpgpu_coalesce_arch", nullptr, "gpumux has one coalescer: 32 B sectors of 128 B lines per warp access"},
    {"-gpgpu_shmem_num_banks", "32", "gpumux models 32 shared-memory banks of 4 B words"},
    {"-gpgpu_shmem_limited_broadcast", "0", "gpumux broadcasts one word to any number of lanes"},
    {"-gpgpu_shmem_warp_parts", "1", "gpumux checks bank conflicts over the whole warp"},
    // L2, crossbar, DRAM.
    {"-gpgpu_cache:dl2_texture_only", "0", "gpumux's L2 caches all data"},
    {"-gpgpu_perf_sim_memcpy", nullptr, "copies go through the copy engines ([pcie]); they do not fill the L2"},
    {"-gpgpu_dram_return_queue_size", nullptr,
     "DRAM data returns to the L2 slice without a separate return queue (the L2 MSHRs bound it)"},
    {"-network_mode", "2", "gpumux has one crossbar model (like the local crossbar, mode 2)"},
    {"-inter_config_file", nullptr, "BookSim interconnect files are not read: gpumux has one crossbar model"},
    {"-icnt_subnets", "2", "gpumux's crossbar has separate request and response networks"},
    {"-icnt_arbiter_algo", "0", "gpumux's crossbar arbitrates round-robin (0); iSLIP (1) is not modeled"},
    {"-gpgpu_mem_address_mask", nullptr, "DRAM address bits are not masked (address_map decides the partition)"},
    {"-dram_dual_bus_interface", nullptr, "one command bus per channel (HBM dual row/column buses not modeled)"},
    {"-dram_bnk_indexing_policy", nullptr, "bank index bits are fixed in gpumux (no bank hashing)"},
    {"-dram_bnkgrp_indexing_policy", nullptr, "bank groups are not modeled"},
    {"-dram_seperate_write_queue_enable", "0", "reads and writes share the FR-FCFS queue (dram.queue_size)"},
    {"-dram_write_queue_size", nullptr, "no separate DRAM write queue or drain watermarks"},
};

}  // namespace

std::span<const UnmodeledOption> unmodeled_gpgpusim_options() { return kUnmodeled; }

const UnmodeledOption* find_unmodeled_gpgpusim_option(std::string_view option) {
  auto it = std::find_if(std::begin(kUnmodeled), std::end(kUnmodeled),
                         [&](const UnmodeledOption& u) { return option == u.option; });
  return it == std::end(kUnmodeled) ? nullptr : it;
}

}  // namespace gpumux
