// The configuration of one simulated GPU: a tree of params structs mirroring
// the component tree, read from TOML presets (configs/*.toml) with overrides.
//
//   # configs/mine.toml
//   include = "gtx980.toml"      # inherit a preset (a file beside this one, else
//                                # the built-in preset of that name), then override
//   [l1d]
//   size_kb = 64
//
//   Config c = Config::build("configs/mine.toml", {"sm.warp_scheduler=lrr"});
//   const GpuConfig& g = c.values();
//
// Unknown keys, mistyped and out-of-range values are LoadErrors naming the key
// and the file (and line).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpumux/core/params.h"
#include "gpumux/core/presets.h"
#include "gpumux/core/sm_params.h"
#include "gpumux/frontend/events/edge_params.h"
#include "gpumux/frontend/frontend_params.h"
#include "gpumux/frontend/pcie_params.h"
#include "gpumux/gpu/qos/qos_params.h"
#include "gpumux/mem/address_map_params.h"
#include "gpumux/mem/cache_params.h"
#include "gpumux/mem/crossbar_params.h"
#include "gpumux/mem/dram_params.h"
#include "gpumux/mem/vm_params.h"

namespace gpumux {

struct GpuParams {
  std::string name = "generic";
  uint32_t num_sms = 16;
  uint32_t num_partitions = 4;  // memory partitions: L2 slice + DRAM channel each
  // Multi-Instance GPU (policy mig, docs/sharing-modes.md): SMs of one of the
  // 7 compute slices (0: the GPU has no MIG), and the memory size whose
  // eighths the profile names count ("3g.20gb" on a 40 GB GPU: 4 of 8).
  uint32_t mig_slice_sms = 0;
  uint32_t mig_memory_gb = 0;

  static void declare(ParamDecl<GpuParams>& d) {
    d.param("name", &GpuParams::name, "", "name of the modeled GPU, for reports");
    d.param("num_sms", &GpuParams::num_sms, "SMs", "streaming multiprocessors").range(1, 1024);
    d.param("num_partitions", &GpuParams::num_partitions, "partitions", "memory partitions (L2 slice + DRAM channel)")
        .range(1, 256);
    d.param("mig_slice_sms", &GpuParams::mig_slice_sms, "SMs",
            "MIG: SMs of each of the 7 compute slices (0: no MIG; policy mig)")
        .range(0, 1024);
    d.param("mig_memory_gb", &GpuParams::mig_memory_gb, "GB",
            "MIG: device memory the profile names divide in eighths (\"3g.20gb\" of 40 GB: 4 memory slices)")
        .range(0, 1 << 20);
  }
};

// Clock domains; every cycle count in the config is in the domain of its component.
struct ClockParams {
  double core_mhz = 1126;  // SMs and L1D
  double icnt_mhz = 1126;
  double l2_mhz = 1126;
  double dram_mhz = 1750;  // DRAM command clock

  static void declare(ParamDecl<ClockParams>& d) {
    d.param("core_mhz", &ClockParams::core_mhz, "MHz", "SM and L1D clock").range_float(1, 100000);
    d.param("icnt_mhz", &ClockParams::icnt_mhz, "MHz", "interconnect clock").range_float(1, 100000);
    d.param("l2_mhz", &ClockParams::l2_mhz, "MHz", "L2 slice clock").range_float(1, 100000);
    d.param("dram_mhz", &ClockParams::dram_mhz, "MHz", "DRAM command clock").range_float(1, 100000);
  }
};

struct SimParams {
  uint64_t watchdog_cycles = 100000;  // core cycles

  static void declare(ParamDecl<SimParams>& d) {
    d.param("watchdog_cycles", &SimParams::watchdog_cycles, "core cycles",
            "stop with a report of what each component waits for after this long without progress")
        .range(1, int64_t(1) << 50);
  }
};

struct GpuConfig {
  GpuParams gpu;
  ClockParams clock;
  FrontendParams frontend;
  PcieParams pcie;
  EdgeParams edge;
  SmParams sm;
  mem::CacheParams l1d;
  mem::IcntParams icnt;
  mem::L2Params l2;
  mem::AddressMapParams address_map;
  mem::DramParams dram;
  mem::VmParams vm;
  QosParams qos;
  SimParams sim;

  static void declare(ParamDecl<GpuConfig>& d);
};

class Config {
 public:
  Config() = default;  // all defaults

  // Defaults, then `file` (following its includes) if given, then each
  // "path.key=value" override, then the cross-parameter checks.
  static Config build(const std::optional<std::filesystem::path>& file, std::span<const std::string> overrides);

  // Applies a TOML file on top of the current values (its includes first).
  void apply_file(const std::filesystem::path& file);
  // Applies a built-in preset (core/presets.h); its includes are built-in presets.
  void apply_preset(const Preset& preset);
  // Applies TOML text; `name` stands for the file in errors, includes are
  // resolved against `dir`.
  void apply_text(std::string_view toml, const std::string& name, const std::filesystem::path& dir = ".");
  // Applies one "path.key=value" override, the value parsed by the key's type;
  // `source` names where it comes from in errors and sources().
  void set(std::string_view assignment, std::string_view source = "--set");
  // Runs the cross-parameter checks; throws LoadError naming the sources.
  void validate() const;

  const GpuConfig& values() const { return values_; }
  GpuConfig& values() { return values_; }
  const std::vector<std::string>& sources() const { return sources_; }

  // The effective configuration as TOML, loadable again.
  std::string dump() const;

 private:
  void apply_file_chain(const std::filesystem::path& file, std::vector<std::filesystem::path>& chain);
  // `dir` resolves the text's includes; nullopt for a built-in preset.
  void apply_text_chain(std::string_view toml, const std::string& name, const std::optional<std::filesystem::path>& dir,
                        std::vector<std::filesystem::path>& chain);
  void apply_preset_chain(const Preset& preset, std::vector<std::filesystem::path>& chain);
  void apply_include(const std::optional<std::filesystem::path>& dir, const std::string& file,
                     std::vector<std::filesystem::path>& chain);

  GpuConfig values_;
  std::vector<std::string> sources_;  // files and overrides applied, in order
};

// Markdown reference of every parameter (committed as docs/config.md).
std::string config_reference_markdown();

}  // namespace gpumux
