#include "gpumux/core/config_import.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <optional>
#include <utility>

#include "gpumux/core/error.h"
#include "gpumux/core/gpgpusim_cache.h"
#include "gpumux/core/gpgpusim_options.h"
#include "gpumux/core/gpgpusim_importer.h"
#include "gpumux/core/gpgpusim_unmodeled.h"

namespace gpumux::gpgpusim_import {
namespace {

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  return std::string(s.substr(b, s.find_last_not_of(" \t") - b + 1));
}

// GPGPU-Sim DRAM timing names and their keys; RC, nbkgrp, CCDL and RTPL are
// checked by dram_timing(), the others are reported.
struct TimingName {
  const char* name;
  const char* key;
};
constexpr TimingName kTimingNames[] = {
    {"nbk", "dram.banks"}, {"CCD", "dram.tCCD"}, {"RRD", "dram.tRRD"}, {"RCD", "dram.tRCD"}, {"RAS", "dram.tRAS"},
    {"RP", "dram.tRP"},    {"CL", "dram.tCL"},   {"WL", "dram.tWL"},   {"WR", "dram.tWR"},
};


constexpr MappedOption kMapped[] = {
    {"-gpgpu_n_clusters", nullptr, "gpu.num_sms", "clusters x cores per cluster"},
    {"-gpgpu_n_cores_per_cluster", nullptr, "gpu.num_sms", "clusters x cores per cluster"},
    {"-gpgpu_n_mem", &Importer::direct, "gpu.num_partitions", ""},
    {"-gpgpu_n_sub_partition_per_mchannel", nullptr, "l2.size_kb",
     "L2 banks per partition: one gpumux slice holds them all"},
    {"-gpgpu_clock_domains", &Importer::clocks, "clock.*", "core:icnt:l2:dram MHz"},
    {"-gpgpu_kernel_launch_latency", &Importer::direct, "frontend.launch_latency", ""},
    {"-gpgpu_TB_launch_latency", &Importer::direct, "sm.tb_launch_latency", ""},
    {"-gpgpu_max_concurrent_kernel", &Importer::direct, "frontend.max_active_kernels", ""},
    {"-gpgpu_shader_core_pipeline", &Importer::core_pipeline, "sm.max_threads, sm.warp_slots", "threads:warp_size"},
    {"-gpgpu_shader_registers", &Importer::direct, "sm.registers", ""},
    {"-gpgpu_shader_cta", &Importer::direct, "sm.tb_slots", ""},
    {"-gpgpu_shmem_size", nullptr, "sm.shared_mem_bytes", "unless -gpgpu_shmem_sizeDefault is given"},
    {"-gpgpu_shmem_sizeDefault", nullptr, "sm.shared_mem_bytes",
     "what GPGPU-Sim gives kernels without a cache preference"},
    {"-gpgpu_num_sched_per_core", &Importer::direct, "sm.sub_cores", ""},
    {"-gpgpu_scheduler", &Importer::scheduler, "sm.warp_scheduler, sm.two_level_active",
     "gto, lrr, two_level_active:<active warps>"},
    {"-gpgpu_smem_latency", &Importer::direct, "sm.latency.shared_mem", ""},
    {"-smem_latency", &Importer::direct, "sm.latency.shared_mem", "older spelling"},
    {"-ptx_opcode_latency_int", &Importer::latency_table, "sm.latency.int",
     "ADD; MAX, MUL, MAD, DIV, SHFL to sm.opcode_latency.int_max, _mul, _mad, _div, shfl"},
    {"-ptx_opcode_latency_fp", &Importer::latency_table, "sm.latency.fp32",
     "ADD; MAX, MUL, MAD, DIV to sm.opcode_latency.fp32_max, _mul, _mad, _div"},
    {"-ptx_opcode_latency_dp", &Importer::latency_table, "sm.latency.fp64",
     "ADD; MAX, MUL, MAD, DIV to sm.opcode_latency.fp64_max, _mul, _mad, _div"},
    {"-ptx_opcode_latency_sfu", &Importer::first_entry, "sm.latency.sfu", ""},
    {"-ptx_opcode_initiation_int", nullptr, "sm.interval.int", "see the initiation interval rule"},
    {"-ptx_opcode_initiation_fp", nullptr, "sm.interval.fp32", "see the initiation interval rule"},
    {"-ptx_opcode_initiation_dp", nullptr, "sm.interval.fp64", "see the initiation interval rule"},
    {"-ptx_opcode_initiation_sfu", nullptr, "sm.interval.sfu", "see the initiation interval rule"},
    {"-gpgpu_num_sp_units", nullptr, "sm.interval.*", "see the initiation interval rule"},
    {"-gpgpu_num_int_units", nullptr, "sm.interval.int", "see the initiation interval rule"},
    {"-gpgpu_num_dp_units", nullptr, "sm.interval.fp64", "see the initiation interval rule"},
    {"-gpgpu_num_sfu_units", nullptr, "sm.interval.*", "see the initiation interval rule"},
    {"-ptx_opcode_latency_tesnor", &Importer::first_entry, "sm.latency.tensor", "GPGPU-Sim's spelling"},
    {"-ptx_opcode_initiation_tensor", nullptr, "sm.interval.tensor", "see the initiation interval rule"},
    {"-gpgpu_num_tensor_core_units", nullptr, "sm.interval.tensor", "see the initiation interval rule"},
    {"-gpgpu_num_reg_banks", nullptr, "sm.operand_collector.banks", "see the operand collector rule"},
    {"-gpgpu_reg_file_port_throughput", &Importer::direct, "sm.operand_collector.read_ports", ""},
    {"-gpgpu_operand_collector_num_units_gen", nullptr, "sm.operand_collector.collector_units",
     "see the operand collector rule"},
    {"-gpgpu_operand_collector_num_units_sp", nullptr, "sm.operand_collector.collector_units",
     "see the operand collector rule"},
    {"-gpgpu_operand_collector_num_units_sfu", nullptr, "sm.operand_collector.collector_units",
     "see the operand collector rule"},
    {"-gpgpu_operand_collector_num_units_dp", nullptr, "sm.operand_collector.collector_units",
     "see the operand collector rule"},
    {"-gpgpu_operand_collector_num_units_mem", nullptr, "sm.operand_collector.collector_units",
     "see the operand collector rule"},
    {"-gpgpu_enable_specialized_operand_collector", nullptr, "sm.operand_collector.collector_units",
     "see the operand collector rule"},
    {"-gpgpu_sub_core_model", nullptr, "sm.interval.*",
     "none needed: with or without sub-cores a sub-core sustains units / schedulers of a kind"},
    {"-gpgpu_cache:dl1", nullptr, "l1d.*", "see the cache rule"},
    {"-gpgpu_adaptive_cache_config", nullptr, "l1d.size_kb", "see the adaptive L1 rule"},
    {"-gpgpu_unified_l1d_size", nullptr, "l1d.size_kb", "see the adaptive L1 rule"},
    {"-gpgpu_shmem_option", nullptr, "l1d.size_kb", "see the adaptive L1 rule"},
    {"-gpgpu_l1_banks", &Importer::direct, "l1d.ports", "lines read per cycle"},
    {"-gpgpu_l1_latency", &Importer::direct, "l1d.hit_latency", ""},
    {"-l1_latency", &Importer::direct, "l1d.hit_latency", "older spelling"},
    {"-gpgpu_cache:dl2", nullptr, "l2.*", "see the cache rule"},
    {"-gpgpu_l2_rop_latency", nullptr, "l2.hit_latency", "core cycles converted to L2 cycles"},
    {"-gpgpu_dram_partition_queues", &Importer::partition_queues, "l2.input_queue", "the crossbar-to-L2 (first) queue"},
    {"-gpgpu_memory_partition_indexing", &Importer::partition_indexing, "address_map.hash",
     "0: none, 1 (and others): xor"},
    {"-gpgpu_mem_addr_mapping", &Importer::addr_mapping, "address_map.interleave_bytes", "2^bit of dramid@bit"},
    {"-icnt_flit_size", &Importer::direct, "icnt.port_bytes", ""},
    {"-icnt_in_buffer_limit", nullptr, "icnt.input_queue", "flits / flits of a 128 B line packet"},
    {"-icnt_out_buffer_limit", nullptr, "icnt.output_queue", "flits / flits of a 128 B line packet"},
    {"-gpgpu_dram_scheduler", &Importer::dram_scheduler, "", "1 (FR-FCFS) is what gpumux models"},
    {"-gpgpu_frfcfs_dram_sched_queue_size", &Importer::dram_queue, "dram.queue_size",
     "0 (unbounded) keeps the default"},
    {"-gpgpu_dram_buswidth", nullptr, "dram.bus_bytes", "bus width x chips per controller"},
    {"-gpgpu_n_mem_per_ctrlr", nullptr, "dram.bus_bytes", "bus width x chips per controller"},
    {"-gpgpu_dram_burst_length", &Importer::direct, "dram.burst_length", ""},
    {"-dram_data_command_freq_ratio", &Importer::direct, "dram.data_rate", ""},
    {"-dram_latency", nullptr, "dram.controller_latency", "core cycles converted to DRAM cycles"},
    {"-gpgpu_dram_timing_opt", &Importer::dram_timing, "dram.banks, dram.t*",
     "nbk, CCD, RRD, RCD, RAS, RP, CL, WL, WR; RC = RAS + RP"},
};

const MappedOption* find_mapped(std::string_view option) {
  auto it =
      std::find_if(std::begin(kMapped), std::end(kMapped), [&](const MappedOption& m) { return option == m.option; });
  return it == std::end(kMapped) ? nullptr : it;
}

}  // namespace

void Importer::dram_timing(const GpgpusimOption& o, const char*) {
  if (o.value.find('=') == std::string::npos) return note(o, "positional form");
  std::vector<std::string> ignored;
  std::optional<uint64_t> ras, rp, rc;
  for (const auto& raw : split(o.value, ':')) {
    std::string field = trim(raw);  // a value continued on the next line carries a space
    if (field.empty()) continue;
    auto kv = split(field, '=');
    if (kv.size() != 2) {
      ignored.push_back(field);
      continue;
    }
    auto known = std::find_if(std::begin(kTimingNames), std::end(kTimingNames),
                              [&](const TimingName& t) { return kv[0] == t.name; });
    if (kv[0] == "RAS") ras = parse_gpgpusim_uint(kv[1]);
    if (kv[0] == "RP") rp = parse_gpgpusim_uint(kv[1]);
    if (known != std::end(kTimingNames)) {
      set(o, known->key, kv[1]);
    } else if (kv[0] == "RC") {
      rc = parse_gpgpusim_uint(kv[1]);
    } else if (!(kv[0] == "nbkgrp" && kv[1] == "1") && !((kv[0] == "CCDL" || kv[0] == "RTPL") && kv[1] == "0")) {
      ignored.push_back(field);
    }
  }
  if (rc && (!ras || !rp || *rc != *ras + *rp)) ignored.push_back(fmt::format("RC={} (gpumux: RAS+RP)", *rc));
  if (!ignored.empty())
    note(o, fmt::format("{}: bank groups and turnarounds are not modeled", fmt::join(ignored, ", ")));
}

GpgpusimImport Importer::run() {
  for (const GpgpusimOption& o : opts_.all()) {
    if (const MappedOption* m = find_mapped(o.name)) {
      if (m->apply) (this->*m->apply)(o, m->key);
    } else if (const UnmodeledOption* u = find_unmodeled_gpgpusim_option(o.name)) {
      if (!u->gpumux_value || o.value != u->gpumux_value) note(o, u->reason);
    } else {
      note(o, "unknown to gpumux");
    }
  }
  // Options that combine with others, now that all are known.
  shared_memory();
  num_sms();
  memory_latencies();
  crossbar_buffers();
  dram_bus();
  intervals();
  operand_collector();
  l1_cache();
  l2_cache();
  out_.config.values().gpu.name = name_;
  out_.config.validate();
  return std::move(out_);
}

// GPGPU-Sim runs a kernel without a cache preference (all of gpumux's) with
// -gpgpu_shmem_sizeDefault of shared memory, replacing -gpgpu_shmem_size.
void Importer::shared_memory() {
  const GpgpusimOption* size = opts_.find("-gpgpu_shmem_size");
  const GpgpusimOption* default_size = opts_.find("-gpgpu_shmem_sizeDefault");
  if (default_size) {
    set(*default_size, "sm.shared_mem_bytes", default_size->value);
    if (size && size->value != default_size->value)
      adjust(*size,
             fmt::format("kernels without a cache preference get -gpgpu_shmem_sizeDefault {}", default_size->value));
  } else if (size) {
    set(*size, "sm.shared_mem_bytes", size->value);
  }
}

void Importer::num_sms() {
  const GpgpusimOption* clusters = opts_.find("-gpgpu_n_clusters");
  const GpgpusimOption* cores = opts_.find("-gpgpu_n_cores_per_cluster");
  if (!clusters && !cores) return;
  const GpgpusimOption& at = clusters ? *clusters : *cores;
  set(at, "gpu.num_sms",
      std::to_string(uint_option("-gpgpu_n_clusters", 1) * uint_option("-gpgpu_n_cores_per_cluster", 1)));
}

// GPGPU-Sim counts the ROP and DRAM latencies in core cycles; gpumux counts
// them in the clock of their component.
void Importer::memory_latencies() {
  const ClockParams& clock = out_.config.values().clock;
  struct Latency {
    const char* option;
    const char* key;
    double mhz;
    const char* domain;
  };
  const Latency latencies[] = {{"-gpgpu_l2_rop_latency", "l2.hit_latency", clock.l2_mhz, "L2"},
                               {"-dram_latency", "dram.controller_latency", clock.dram_mhz, "DRAM"}};
  for (const Latency& l : latencies) {
    const GpgpusimOption* o = opts_.find(l.option);
    if (!o) continue;
    auto core_cycles = parse_gpgpusim_uint(o->value);
    if (!core_cycles) {
      note(*o, "not a number");
      continue;
    }
    double exact = double(*core_cycles) * l.mhz / clock.core_mhz;
    uint64_t cycles = uint64_t(std::lround(exact));
    set(*o, l.key, std::to_string(cycles));
    if (l.mhz != clock.core_mhz)
      adjust(*o, fmt::format("{} core cycles x {:g} / {:g} MHz -> {} = {} {} cycles", *core_cycles, l.mhz,
                             clock.core_mhz, l.key, cycles, l.domain));
  }
}

// The local crossbar counts its buffers in flits, gpumux's queues hold
// packets: they hold as many of the largest packet (a 128 B line and its
// header) as the buffer holds flits for.
void Importer::crossbar_buffers() {
  const mem::IcntParams& icnt = out_.config.values().icnt;
  uint64_t flits_per_packet = (128 + icnt.header_bytes + icnt.port_bytes - 1) / icnt.port_bytes;
  const std::pair<const char*, const char*> buffers[] = {{"-icnt_in_buffer_limit", "icnt.input_queue"},
                                                         {"-icnt_out_buffer_limit", "icnt.output_queue"}};
  for (const auto& [option, key] : buffers) {
    const GpgpusimOption* o = opts_.find(option);
    if (!o) continue;
    auto flits = parse_gpgpusim_uint(o->value);
    if (!flits) {
      note(*o, "not a number");
      continue;
    }
    uint64_t packets = std::max<uint64_t>(1, *flits / flits_per_packet);
    set(*o, key, std::to_string(packets));
    adjust(*o,
           fmt::format("{} flits / {} flits per 128 B line packet -> {} = {}", *flits, flits_per_packet, key, packets));
  }
}

void Importer::dram_bus() {
  const GpgpusimOption* width = opts_.find("-gpgpu_dram_buswidth");
  if (!width) return;
  // A partition's channel is all its chips side by side.
  set(*width, "dram.bus_bytes",
      std::to_string(uint_option("-gpgpu_dram_buswidth", 0) * uint_option("-gpgpu_n_mem_per_ctrlr", 1)));
}

void Importer::cache_policies(const GpgpusimOption& o, const GpgpusimCacheSpec& c, const std::string& sec) {
  std::vector<std::string> ignored;
  if (!c.sectored) ignored.push_back("whole-line fills (gpumux fills 32 B sectors)");
  if (c.line_bytes != 128) ignored.push_back(fmt::format("{} B lines (gpumux: 128 B, ways scaled)", c.line_bytes));
  if (c.replacement != '\0' && c.replacement != 'L')
    ignored.push_back(fmt::format("replacement {} (gpumux: LRU)", c.replacement));
  if (c.write == 'B') {
    set(o, sec + ".write_policy", "write-back");
  } else if (c.write != '\0') {
    set(o, sec + ".write_policy", "write-through");
    if (c.write != 'T') ignored.push_back(fmt::format("write policy {} (gpumux: write-through)", c.write));
  }
  if (c.allocate != '\0' && c.allocate != 'm')
    ignored.push_back(fmt::format("allocation {} (gpumux: on miss)", c.allocate));
  if (c.write_allocate != '\0') {
    set(o, sec + ".write_allocate", c.write_allocate == 'N' ? "false" : "true");
    if (c.write_allocate != 'N' && c.write_allocate != 'W')
      ignored.push_back(fmt::format("write-allocate kind {} (gpumux: allocate)", c.write_allocate));
  }
  if (c.set_index != '\0' && c.set_index != 'L')
    ignored.push_back(fmt::format("set index function {} (gpumux: linear)", c.set_index));
  if (c.mshr_entries && c.mshr_merge) {
    set(o, sec + ".mshrs", std::to_string(*c.mshr_entries));
    set(o, sec + ".mshr_merge", std::to_string(*c.mshr_merge));
  } else if (!c.mshr_type.empty()) {
    ignored.push_back("MSHR spec not <type>:<entries>:<merge>");
  }
  const char* queue_names[] = {"miss queue", "data port width"};
  for (size_t i = 0; i < c.queue_groups.size(); ++i)
    ignored.push_back(fmt::format("{} {}", i < 2 ? queue_names[i] : "field", c.queue_groups[i]));
  if (!ignored.empty()) note(o, fmt::format("{}", fmt::join(ignored, "; ")));
}

// With -gpgpu_adaptive_cache_config 1 the dl1 geometry describes the whole
// unified L1/shared array and GPGPU-Sim gives each kernel the part its shared
// memory leaves. gpumux splits the array once for all kernels: shared memory
// gets sm.shared_mem_bytes (any kernel fits), the L1 the rest, same sets.
void Importer::l1_cache() {
  const GpgpusimOption* dl1 = opts_.find("-gpgpu_cache:dl1");
  if (!dl1) return;
  auto spec = parse_gpgpusim_cache(dl1->value);
  if (!spec) return note(*dl1, "unreadable geometry");
  uint64_t bytes = spec->bytes();
  uint64_t ways = std::max<uint64_t>(1, spec->ways * spec->line_bytes / 128);  // same sets with 128 B lines
  const GpgpusimOption* adaptive = opts_.find("-gpgpu_adaptive_cache_config");
  uint64_t unified_kb = uint_option("-gpgpu_unified_l1d_size", 0);
  if (adaptive && adaptive->value != "0" && unified_kb > 0) {
    uint64_t shared = out_.config.values().sm.shared_mem_bytes;
    uint64_t unified = unified_kb * 1024;
    if (shared >= unified) {
      note(*adaptive, "shared memory fills the unified L1; the dl1 geometry is used as given");
    } else {
      uint64_t set_bytes = std::max<uint64_t>(1, spec->sets * 128);
      bytes = unified - shared;
      ways = std::max<uint64_t>(1, (bytes + set_bytes / 2) / set_bytes);
      adjust(*adaptive, fmt::format("L1 = {} KiB unified - {} B shared memory = {} B in {} sets "
                                    "(GPGPU-Sim resizes per kernel; gpumux splits once)",
                                    unified_kb, shared, bytes, spec->sets));
    }
  }
  FittedCache fit = fit_gpgpusim_cache(bytes, ways, 1);
  set(*dl1, "l1d.size_kb", std::to_string(fit.size_kb));
  set(*dl1, "l1d.ways", std::to_string(fit.ways));
  if (!fit.adjustment.empty()) adjust(*dl1, fit.adjustment);
  cache_policies(*dl1, *spec, "l1d");
}

// GPGPU-Sim has one L2 bank per sub-partition; a gpumux slice (one per
// partition) holds the banks of its partition: same ways, their sets together.
void Importer::l2_cache() {
  const GpgpusimOption* dl2 = opts_.find("-gpgpu_cache:dl2");
  if (!dl2) return;
  auto spec = parse_gpgpusim_cache(dl2->value);
  if (!spec) return note(*dl2, "unreadable geometry");
  uint64_t banks = std::max<uint64_t>(1, uint_option("-gpgpu_n_sub_partition_per_mchannel", 1));
  uint64_t ways = std::max<uint64_t>(1, spec->ways * spec->line_bytes / 128);
  FittedCache fit = fit_gpgpusim_cache(spec->bytes() * banks, ways, out_.config.values().gpu.num_partitions);
  set(*dl2, "l2.size_kb", std::to_string(fit.size_kb));
  set(*dl2, "l2.ways", std::to_string(fit.ways));
  if (!fit.adjustment.empty()) adjust(*dl2, fit.adjustment);
  cache_policies(*dl2, *spec, "l2");
}

namespace {

std::string escape_cell(std::string_view s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

}  // namespace
}  // namespace gpumux::gpgpusim_import

namespace gpumux {

using gpgpusim_import::Importer;

GpgpusimImport import_gpgpusim_config(std::string_view text, const std::string& file, const std::string& gpu_name) {
  GpgpusimOptions options = GpgpusimOptions::parse(text, file);
  return Importer(options, gpu_name.empty() ? file : gpu_name).run();
}

std::string gpgpusim_import_reference_markdown() {
  std::string out =
      "\n## Importing gpgpusim.config\n\n"
      "`gpumux config import gpgpusim.config` reads a GPGPU-Sim / Accel-Sim configuration as GPGPU-Sim's\n"
      "option parser does: `#` comments, quoted values spanning lines, the last of repeated options.\n"
      "Options it does not have keep the gpumux defaults. It prints `adjusted:` for every value changed to\n"
      "fit gpumux and `not modeled:` with the reason for every option (or part) it cannot map, and\n"
      "fails with file:line on text GPGPU-Sim could not parse either. All nine configurations Accel-Sim\n"
      "tests (SM2_GTX480 to SM86_RTX3070) import; `tests/core/fixtures/gpgpusim/` has one fixture of each shape.\n\n"
      "Rules:\n\n"
      "- **cache**: "
      "`[N|S:]<sets>:<line>:<ways>,<repl>:<write>:<alloc>:<write_alloc>:<index>,<mshr>:<entries>:<merge>,...`\n"
      "  gives the capacity (L2: per sub-partition, times the sub-partitions of a partition per slice), the\n"
      "  associativity (scaled to 128 B lines), the write policy (`B`: write-back, others write-through), write\n"
      "  allocation (`N`: none) and the MSHRs. gpumux needs whole KiB, at most 64 ways and whole sets, so the\n"
      "  capacity is rounded down to whole lines and KiB, then the ways are lowered until the sets are whole\n"
      "  (capacity kept), with an `adjusted:` line.\n"
      "- **adaptive L1** (`-gpgpu_adaptive_cache_config 1` with `-gpgpu_unified_l1d_size`): GPGPU-Sim gives\n"
      "  each kernel the unified array minus the shared memory option it needs; gpumux splits once for all\n"
      "  kernels: `sm.shared_mem_bytes` (from `-gpgpu_shmem_sizeDefault`, else `-gpgpu_shmem_size`: what a\n"
      "  kernel without a cache preference gets in GPGPU-Sim), L1 = unified - that, with the dl1 sets.\n"
      "- **latency**: the first (ADD) entry of `-ptx_opcode_latency_<kind>` is the unit's latency\n"
      "  (`sm.latency`); the MAX, MUL, MAD, DIV (and, for int, SHFL) entries go to `[sm.opcode_latency]`,\n"
      "  which times those opcodes of that type (fma as MAD, rem as DIV, vote/match/redux as SHFL).\n"
      "- **initiation interval**: the first entry of `-ptx_opcode_initiation_<kind>` (int, fp, dp, sfu, tensor)\n"
      "  on U units of that kind (`-gpgpu_num_int_units`, `_sp_`, `_dp_`, `_sfu_`, `-gpgpu_num_tensor_core_units`;\n"
      "  int counts the SP units and dp the SFUs when they have none, though gpumux keeps their own unit; no\n"
      "  count: one per scheduler) for S schedulers, shared or split into sub-cores, gives `sm.interval` =\n"
      "  initiation x S / U, rounded, at least 1 (`adjusted:` when rounded). For tensor it is also halved:\n"
      "  GPGPU-Sim's tensor instruction is a `wmma.mma` m16n16k16 (4096 multiply-adds), `sm.interval.tensor`\n"
      "  is per 2048 (one m16n8k16), so a wmma.mma keeps its cycles (`adjusted:` always says so).\n"
      "- **operand collector**: `-gpgpu_num_reg_banks` B per SM turns the model on with\n"
      "  `sm.operand_collector.banks` = B / S per sub-core; the collector units per SM, the generic ones\n"
      "  (`_num_units_gen`) plus, unless `-gpgpu_enable_specialized_operand_collector 0`, the specialized ones\n"
      "  (`_sp`, `_sfu`, `_dp`, `_mem`; gpumux pools them), give `collector_units` = units / S (at least 1;\n"
      "  `adjusted:` when not exact). Without `-gpgpu_num_reg_banks` the model stays off and the unit\n"
      "  counts and the port throughput are reported as not modeled.\n\n"
      "| option | key | rule |\n|---|---|---|\n";
  for (const gpgpusim_import::MappedOption& m : gpgpusim_import::kMapped)
    out +=
        fmt::format("| `{}` | {} | {} |\n", m.option, m.key[0] ? fmt::format("`{}`", m.key) : "", gpgpusim_import::escape_cell(m.rule));
  out +=
      "\nNot modeled (a value in the second column is what gpumux behaves as; only other values are reported):\n\n"
      "| option | gpumux | reason |\n|---|---|---|\n";
  for (const UnmodeledOption& u : unmodeled_gpgpusim_options())
    out += fmt::format("| `{}` | {} | {} |\n", u.option, u.gpumux_value ? u.gpumux_value : "", gpgpusim_import::escape_cell(u.reason));
  out += "\nAny other option is reported as unknown to gpumux.\n";
  return out;
}

}  // namespace gpumux
