#include "gpumux/core/config_import.h"

#include <fmt/format.h>

#include <charconv>
#include <optional>

#include "gpumux/core/error.h"

namespace gpumux {
namespace {

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      parts.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

std::optional<uint64_t> to_uint(std::string_view s) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// Options that map one-to-one onto a config key.
struct DirectOption {
  const char* option;
  const char* key;
};
constexpr DirectOption kDirectOptions[] = {
    {"-gpgpu_n_mem", "gpu.num_partitions"},
    {"-gpgpu_shader_registers", "sm.registers"},
    {"-gpgpu_shmem_size", "sm.shared_mem_bytes"},
    {"-gpgpu_shader_cta", "sm.tb_slots"},
    {"-gpgpu_num_sched_per_core", "sm.sub_cores"},
    {"-gpgpu_smem_latency", "sm.latency.shared_mem"},
    {"-gpgpu_l1_latency", "l1d.hit_latency"},
    {"-gpgpu_l2_rop_latency", "l2.hit_latency"},
    {"-icnt_flit_size", "icnt.port_bytes"},
    {"-gpgpu_dram_burst_length", "dram.burst_length"},
    {"-gpgpu_dram_buswidth", "dram.bus_bytes"},
    {"-dram_data_command_freq_ratio", "dram.data_rate"},
    {"-dram_latency", "dram.controller_latency"},
};

// Functional-unit latency lists "ADD,MAX,MUL,MAD,DIV[,...]": gpumux keeps one latency per unit.
struct LatencyOption {
  const char* option;
  const char* key;
};
constexpr LatencyOption kLatencyOptions[] = {
    {"-ptx_opcode_latency_int", "sm.latency.int"},
    {"-ptx_opcode_latency_fp", "sm.latency.fp32"},
    {"-ptx_opcode_latency_dp", "sm.latency.fp64"},
    {"-ptx_opcode_latency_sfu", "sm.latency.sfu"},
};

// GPGPU-Sim DRAM timing names and their keys; the others are reported.
struct TimingName {
  const char* name;
  const char* key;
};
constexpr TimingName kTimingNames[] = {
    {"nbk", "dram.banks"}, {"CCD", "dram.tCCD"}, {"RRD", "dram.tRRD"}, {"RCD", "dram.tRCD"}, {"RAS", "dram.tRAS"},
    {"RP", "dram.tRP"},    {"CL", "dram.tCL"},   {"WL", "dram.tWL"},   {"WR", "dram.tWR"},
};

class Importer {
 public:
  explicit Importer(std::string name) : name_(std::move(name)) {}

  void option(const std::string& opt, const std::string& value) {
    for (const auto& d : kDirectOptions) {
      if (opt == d.option) return set(opt, value, d.key, value);
    }
    for (const auto& l : kLatencyOptions) {
      if (opt == l.option) return latency(opt, value, l.key);
    }
    if (opt == "-gpgpu_n_clusters") {
      clusters_ = to_uint(value);
      if (!clusters_) note(opt, value, "not a number");
    } else if (opt == "-gpgpu_n_cores_per_cluster") {
      cores_per_cluster_ = to_uint(value);
      if (!cores_per_cluster_) note(opt, value, "not a number");
    } else if (opt == "-gpgpu_n_sub_partition_per_mchannel") {
      auto n = to_uint(value);
      if (n && *n > 0) {
        sub_partitions_ = *n;  // folded into the L2 slice size, one slice per partition
      } else {
        note(opt, value, "not a number");
      }
    } else if (opt == "-gpgpu_clock_domains") {
      clocks(opt, value);
    } else if (opt == "-gpgpu_shader_core_pipeline") {
      auto parts = split(value, ':');
      auto threads = to_uint(parts[0]);
      if (!threads) return note(opt, value, "not threads:warp_size");
      set(opt, value, "sm.max_threads", parts[0]);
      set(opt, value, "sm.warp_slots", std::to_string(*threads / 32));
      if (parts.size() > 1 && parts[1] != "32") note(opt, value, "warp size other than 32");
    } else if (opt == "-gpgpu_scheduler") {
      scheduler(opt, value);
    } else if (opt == "-gpgpu_cache:dl1") {
      cache(opt, value, "l1d", 1);
    } else if (opt == "-gpgpu_cache:dl2") {
      dl2_ = value;  // its size needs the partition counts, which may come later
    } else if (opt == "-gpgpu_dram_timing_opt") {
      dram_timing(opt, value);
    } else if (opt == "-gpgpu_dram_scheduler") {
      if (value != "1") note(opt, value, "only FR-FCFS (1) is modeled");
    } else if (opt == "-gpgpu_frfcfs_dram_sched_queue_size") {
      if (value == "0") return note(opt, value, "unbounded queue; dram.queue_size kept");
      set(opt, value, "dram.queue_size", value);
    } else {
      note(opt, value);
    }
  }

  GpgpusimImport finish() {
    out_.config.values().gpu.name = name_;
    if (clusters_ || cores_per_cluster_) {
      uint64_t sms = clusters_.value_or(1) * cores_per_cluster_.value_or(1);
      set("-gpgpu_n_clusters * -gpgpu_n_cores_per_cluster", std::to_string(sms), "gpu.num_sms", std::to_string(sms));
    }
    if (dl2_) cache("-gpgpu_cache:dl2", *dl2_, "l2", out_.config.values().gpu.num_partitions * sub_partitions_);
    out_.config.validate();
    return std::move(out_);
  }

 private:
  void note(const std::string& opt, const std::string& value, const std::string& detail = "") {
    out_.not_modeled.push_back(detail.empty() ? fmt::format("not modeled: {} {}", opt, value)
                                              : fmt::format("not modeled: {} {} ({})", opt, value, detail));
  }

  // Sets one key; a value gpumux cannot take is reported, not fatal.
  void set(const std::string& opt, const std::string& value, const std::string& key, const std::string& key_value) {
    try {
      out_.config.set(key + "=" + key_value, name_);
    } catch (const LoadError& e) {
      note(opt, value, e.what());
    }
  }

  void latency(const std::string& opt, const std::string& value, const char* key) {
    auto parts = split(value, ',');
    set(opt, value, key, parts[0]);
    if (parts.size() > 1) note(opt, value, "only the first (ADD) latency is used");
  }

  void clocks(const std::string& opt, const std::string& value) {
    auto parts = split(value, ':');
    if (parts.size() != 4) return note(opt, value, "expected core:icnt:l2:dram");
    const char* keys[] = {"clock.core_mhz", "clock.icnt_mhz", "clock.l2_mhz", "clock.dram_mhz"};
    for (size_t i = 0; i < 4; ++i) set(opt, value, keys[i], parts[i]);
  }

  void scheduler(const std::string& opt, const std::string& value) {
    std::string kind = split(value, ':')[0];
    if (kind == "gto" || kind == "lrr") return set(opt, value, "sm.warp_scheduler", kind);
    if (kind == "two_level_active") {
      set(opt, value, "sm.warp_scheduler", "two-level");
      if (value != kind) note(opt, value, "two-level parameters use gpumux defaults");
      return;
    }
    note(opt, value);
  }

  // "[N|S:]<sets>:<line>:<ways>,<repl>:<write>:<alloc>:<write_alloc>:<index>,<mshr>:<entries>:<merge>,<miss_queue>..."
  // `copies` is how many such caches form the configured size (L2: one per sub-partition).
  void cache(const std::string& opt, const std::string& value, const std::string& sec, uint64_t copies) {
    auto groups = split(value, ',');
    auto geo = split(groups[0], ':');
    if (!geo.empty() && (geo[0] == "N" || geo[0] == "S")) geo.erase(geo.begin());
    auto sets = geo.size() == 3 ? to_uint(geo[0]) : std::nullopt;
    auto line = geo.size() == 3 ? to_uint(geo[1]) : std::nullopt;
    auto ways = geo.size() == 3 ? to_uint(geo[2]) : std::nullopt;
    if (!sets || !line || !ways) return note(opt, value, "unreadable geometry");
    std::vector<std::string> ignored;
    set(opt, value, sec + ".size_kb", std::to_string(*sets * *line * *ways * copies / 1024));
    set(opt, value, sec + ".ways", std::to_string(*ways * *line / 128));  // same sets with 128 B lines
    if (*line != 128) ignored.push_back(fmt::format("{} B lines (gpumux: 128 B, ways scaled)", *line));
    if (groups.size() > 1) {
      auto pol = split(groups[1], ':');
      if (pol.size() >= 1 && pol[0] != "L") ignored.push_back("replacement " + pol[0] + " (gpumux: LRU)");
      if (pol.size() >= 2) {
        const std::string& w = pol[1];
        if (w == "B") {
          set(opt, value, sec + ".write_policy", "write-back");
        } else {
          set(opt, value, sec + ".write_policy", "write-through");
          if (w != "T") ignored.push_back("write policy " + w + " (gpumux: write-through)");
        }
      }
      if (pol.size() >= 3 && pol[2] != "m") ignored.push_back("allocation " + pol[2] + " (gpumux: on miss)");
      if (pol.size() >= 4) {
        set(opt, value, sec + ".write_allocate", pol[3] == "N" ? "false" : "true");
        if (pol[3] != "N" && pol[3] != "W") ignored.push_back("write-allocate kind " + pol[3]);
      }
      if (pol.size() >= 5 && pol[4] != "L") ignored.push_back("set index function " + pol[4] + " (gpumux: linear)");
    }
    if (groups.size() > 2) {
      auto mshr = split(groups[2], ':');
      if (mshr.size() == 3) {
        set(opt, value, sec + ".mshrs", mshr[1]);
        set(opt, value, sec + ".mshr_merge", mshr[2]);
      } else {
        ignored.push_back("MSHR spec " + groups[2]);
      }
    }
    for (size_t g = 3; g < groups.size(); ++g) ignored.push_back("queue spec " + groups[g]);
    if (!ignored.empty()) note(opt, value, fmt::format("{}", fmt::join(ignored, "; ")));
  }

  void dram_timing(const std::string& opt, const std::string& value) {
    if (value.find('=') == std::string::npos) return note(opt, value, "positional form");
    std::vector<std::string> ignored;
    std::optional<uint64_t> ras, rp, rc;
    for (const auto& field : split(value, ':')) {
      auto kv = split(field, '=');
      if (kv.size() != 2) {
        ignored.push_back(field);
        continue;
      }
      const TimingName* known = nullptr;
      for (const auto& t : kTimingNames)
        if (kv[0] == t.name) known = &t;
      if (kv[0] == "RAS") ras = to_uint(kv[1]);
      if (kv[0] == "RP") rp = to_uint(kv[1]);
      if (known) {
        set(opt, value, known->key, kv[1]);
      } else if (kv[0] == "RC") {
        rc = to_uint(kv[1]);
      } else if (!(kv[0] == "nbkgrp" && kv[1] == "1") && !((kv[0] == "CCDL" || kv[0] == "RTPL") && kv[1] == "0")) {
        ignored.push_back(field);
      }
    }
    if (rc && (!ras || !rp || *rc != *ras + *rp)) ignored.push_back(fmt::format("RC={} (gpumux: RAS+RP)", *rc));
    if (!ignored.empty()) note(opt, value, fmt::format("{}", fmt::join(ignored, ", ")));
  }

  std::string name_;
  GpgpusimImport out_;
  std::optional<uint64_t> clusters_, cores_per_cluster_;
  uint64_t sub_partitions_ = 1;
  std::optional<std::string> dl2_;
};

}  // namespace

GpgpusimImport import_gpgpusim_config(std::string_view text, const std::string& name) {
  Importer importer(name);
  std::string opt, value;
  auto flush = [&] {
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    if (!opt.empty()) importer.option(opt, value);
    opt.clear();
    value.clear();
  };
  for (const auto& raw : split(text, '\n')) {
    std::string_view line = raw;
    if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      size_t start = i;
      while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      std::string_view token = line.substr(start, i - start);
      if (token.empty()) continue;
      if (token.front() == '-' && !to_uint(token.substr(1))) {
        flush();
        opt = token;
      } else if (!opt.empty()) {
        if (!value.empty()) value += ' ';
        value += token;
      } else {
        throw LoadError(fmt::format("{}: value '{}' without an option", name, token));
      }
    }
    flush();  // an option's value never spans lines
  }
  return importer.finish();
}

}  // namespace gpumux
