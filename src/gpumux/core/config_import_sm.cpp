// gpgpusim.config options of the SM's functional units (initiation intervals,
// tensor cores) and of its register file and operand collector.
#include <algorithm>
#include <cmath>
#include <iterator>

#include "gpumux/core/gpgpusim_importer.h"

namespace gpumux::gpgpusim_import {
namespace {

// Functional unit kinds of the initiation tables, with the unit count option
// of each and the unit that runs them when it is 0.
struct UnitKind {
  const char* suffix;        // -ptx_opcode_initiation_<suffix>
  const char* key;           // sm.interval.<key>
  const char* count_option;  // units per SM
  const char* host_option;   // runs on these units when count_option is 0 or absent
  // Work of GPGPU-Sim's instruction over the work gpumux's interval is for:
  // a wmma.mma m16n16k16 is 4096 multiply-adds, sm.interval.tensor is per 2048.
  uint32_t work_ratio;
  uint64_t max_interval;  // sm.interval.<key>'s range
};
constexpr UnitKind kUnitKinds[] = {
    {"int", "int", "-gpgpu_num_int_units", "-gpgpu_num_sp_units", 1, 256},
    {"fp", "fp32", "-gpgpu_num_sp_units", nullptr, 1, 256},
    {"dp", "fp64", "-gpgpu_num_dp_units", "-gpgpu_num_sfu_units", 1, 256},
    {"sfu", "sfu", "-gpgpu_num_sfu_units", nullptr, 1, 256},
    {"tensor", "tensor", "-gpgpu_num_tensor_core_units", nullptr, 2, 64},
};

// Collector unit counts per SM: the generic ones always, the specialized
// ones (one pool per unit kind in GPGPU-Sim) when enabled.
constexpr const char* kGenericUnits = "-gpgpu_operand_collector_num_units_gen";
constexpr const char* kSpecializedUnits[] = {
    "-gpgpu_operand_collector_num_units_sp", "-gpgpu_operand_collector_num_units_sfu",
    "-gpgpu_operand_collector_num_units_dp", "-gpgpu_operand_collector_num_units_mem"};
constexpr const char* kSpecialized = "-gpgpu_enable_specialized_operand_collector";
constexpr const char* kStaysOff = "no -gpgpu_num_reg_banks: the operand collector stays off";

}  // namespace

// An initiation interval counts cycles per warp instruction on one unit. With
// U units of a kind for S schedulers (shared, or split among sub-cores), one
// sub-core sustains U / S of them: its interval is initiation * S / U.
void Importer::intervals() {
  uint64_t schedulers = out_.config.values().sm.sub_cores;
  for (const UnitKind& k : kUnitKinds) {
    const GpgpusimOption* init = opts_.find(fmt::format("-ptx_opcode_initiation_{}", k.suffix));
    if (!init) continue;
    auto cycles = parse_gpgpusim_uint(split(init->value, ',')[0]);
    if (!cycles) {
      note(*init, "not a number");
      continue;
    }
    uint64_t units = uint_option(k.count_option, 0);
    if (units == 0 && k.host_option) units = uint_option(k.host_option, 0);
    if (units == 0) units = schedulers;  // no count given: one unit per sub-core
    double exact = double(*cycles) * double(schedulers) / double(units) / k.work_ratio;
    uint64_t interval = std::clamp<uint64_t>(uint64_t(std::lround(exact)), 1, k.max_interval);
    set(*init, fmt::format("sm.interval.{}", k.key), std::to_string(interval));
    std::string per_work = k.work_ratio == 1 ? "" : fmt::format(" / {} (work per instruction)", k.work_ratio);
    if (double(interval) != exact || k.work_ratio != 1)
      adjust(*init, fmt::format("{} x {} schedulers / {} units{} = {:g} -> sm.interval.{} = {}", *cycles, schedulers,
                                units, per_work, exact, k.key, interval));
    if (split(init->value, ',').size() > 1)
      note(*init, "entries after the first (MAX, MUL, MAD, DIV...): gpumux has one interval per functional unit");
  }
}

// GPGPU-Sim's banks and collector units are counted per SM; gpumux gives
// each sub-core its own share of them (the register file of a sub-core
// serves its warps only).
void Importer::operand_collector() {
  uint64_t schedulers = out_.config.values().sm.sub_cores;
  auto per_sub_core = [&](const GpgpusimOption& o, uint64_t per_sm, const char* what, const char* key, uint64_t max) {
    uint64_t n = std::clamp<uint64_t>(per_sm / schedulers, 1, max);
    set(o, key, std::to_string(n));
    if (n * schedulers != per_sm)
      adjust(o, fmt::format("{} {} per SM / {} sub-cores -> {} = {}", per_sm, what, schedulers, key, n));
  };
  const GpgpusimOption* banks = opts_.find("-gpgpu_num_reg_banks");
  if (banks) {
    auto n = parse_gpgpusim_uint(banks->value);
    if (!n) return note(*banks, "not a number");
    if (*n == 0) return note(*banks, "0 banks; the operand collector stays off");
    per_sub_core(*banks, *n, "banks", "sm.operand_collector.banks", 64);
  } else if (const GpgpusimOption* ports = opts_.find("-gpgpu_reg_file_port_throughput")) {
    note(*ports, kStaysOff);
  }
  const GpgpusimOption* generic = opts_.find(kGenericUnits);
  const GpgpusimOption* first = generic;
  uint64_t units = uint_option(kGenericUnits, 0);
  const GpgpusimOption* specialized = opts_.find(kSpecialized);
  if (!specialized || specialized->value != "0") {  // on unless disabled, as in GPGPU-Sim
    for (const char* option : kSpecializedUnits) {
      if (!first) first = opts_.find(option);
      units += uint_option(option, 0);
    }
  }
  if (!first || units == 0) return;
  if (!banks) return note(*first, kStaysOff);
  per_sub_core(*first, units, "collector units (generic and specialized together)",
               "sm.operand_collector.collector_units", 64);
}

}  // namespace gpumux::gpgpusim_import
