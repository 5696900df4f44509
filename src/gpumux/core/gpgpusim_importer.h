// The gpgpusim.config importer's state, shared by the files that map its
// options (config_import.cpp: the memory system and the rest;
// config_import_sm.cpp: the SM's units and operand collector). Internal.
#pragma once

#include <fmt/format.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpumux/core/config_import.h"
#include "gpumux/core/error.h"
#include "gpumux/core/gpgpusim_cache.h"
#include "gpumux/core/gpgpusim_options.h"

namespace gpumux::gpgpusim_import {

// As strings: the importer's keys and values are strings.
inline std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string_view> v = split_gpgpusim_fields(s, sep);
  return {v.begin(), v.end()};
}

class Importer;
using Apply = void (Importer::*)(const GpgpusimOption&, const char* key);

// One option gpumux reads. `apply` maps it as it comes; nullptr: it is read
// together with others once all are known (end of Importer::run).
struct MappedOption {
  const char* option;
  Apply apply;
  const char* key;   // the key set, for `direct` and the reference
  const char* rule;  // how, for the reference ("" for one-to-one)
};

class Importer {
 public:
  Importer(const GpgpusimOptions& options, std::string name) : opts_(options), name_(std::move(name)) {}

  GpgpusimImport run();

  void direct(const GpgpusimOption& o, const char* key) { set(o, key, o.value); }

  void first_entry(const GpgpusimOption& o, const char* key) {
    auto parts = split(o.value, ',');
    set(o, key, parts[0]);
    if (parts.size() > 1) note(o, "entries after the first: gpumux has one latency per functional unit");
  }

  // -ptx_opcode_latency_<int|fp|dp>: ADD (the unit's latency, `key`), then MAX,
  // MUL, MAD, DIV and, for int, SHFL into [sm.opcode_latency].
  void latency_table(const GpgpusimOption& o, const char* key) {
    static constexpr const char* kEntries[] = {"max", "mul", "mad", "div"};
    auto parts = split(o.value, ',');
    set(o, key, parts[0]);
    std::string kind = std::string(key).substr(std::string_view("sm.latency.").size());
    for (size_t i = 1; i < parts.size(); ++i) {
      bool shfl = kind == "int" && i == 5;
      if (i > 5 || (i == 5 && !shfl)) return note(o, fmt::format("entries after the {}th: GPGPU-Sim has none", i));
      std::string k = shfl ? "sm.opcode_latency.shfl" : fmt::format("sm.opcode_latency.{}_{}", kind, kEntries[i - 1]);
      set(o, k.c_str(), parts[i]);
    }
  }

  void clocks(const GpgpusimOption& o, const char*) {
    auto parts = split(o.value, ':');
    if (parts.size() != 4) return note(o, "expected core:icnt:l2:dram");
    const char* keys[] = {"clock.core_mhz", "clock.icnt_mhz", "clock.l2_mhz", "clock.dram_mhz"};
    for (size_t i = 0; i < 4; ++i) set(o, keys[i], parts[i]);
  }

  void core_pipeline(const GpgpusimOption& o, const char*) {
    auto parts = split(o.value, ':');
    auto threads = parse_gpgpusim_uint(parts[0]);
    if (!threads) return note(o, "expected threads:warp_size");
    set(o, "sm.max_threads", parts[0]);
    set(o, "sm.warp_slots", std::to_string(*threads / 32));
    if (parts.size() > 1 && parts[1] != "32") note(o, "warp size other than 32");
  }

  void scheduler(const GpgpusimOption& o, const char*) {
    // two_level_active:<active warps>:<inner policy>:<outer policy>
    auto parts = split(o.value, ':');
    if (parts[0] == "gto" || parts[0] == "lrr") return set(o, "sm.warp_scheduler", parts[0]);
    if (parts[0] != "two_level_active") return note(o, "scheduler not built in gpumux");
    set(o, "sm.warp_scheduler", "two-level");
    if (parts.size() > 1) set(o, "sm.two_level_active", parts[1]);
    if (parts.size() > 2) note(o, "inner and outer policies: gpumux's two-level scheduler has its own");
  }

  void dram_scheduler(const GpgpusimOption& o, const char*) {
    if (o.value != "1") note(o, "only FR-FCFS (1) is modeled");
  }

  void dram_queue(const GpgpusimOption& o, const char* key) {
    if (o.value == "0") return note(o, "unbounded queue; dram.queue_size kept");
    set(o, key, o.value);
  }

  void partition_queues(const GpgpusimOption& o, const char* key) {
    auto parts = split(o.value, ':');
    set(o, key, parts[0]);
    if (parts.size() > 1) note(o, "only the crossbar-to-L2 queue (the first) is modeled");
  }

  void partition_indexing(const GpgpusimOption& o, const char* key) {
    if (o.value == "0") return set(o, key, "none");
    set(o, key, "xor");
    if (o.value != "1") note(o, "hash other than bitwise XOR (1); gpumux's XOR folding used");
  }

  // "dramid@<bit>;<bit map>": the channel index starts at address bit <bit>.
  void addr_mapping(const GpgpusimOption& o, const char* key) {
    size_t at = o.value.find("dramid@");
    size_t semi = o.value.find(';');
    auto bit = at == std::string::npos || semi == std::string::npos
                   ? std::nullopt
                   : parse_gpgpusim_uint(std::string_view(o.value).substr(at + 7, semi - at - 7));
    if (!bit || *bit > 30) return note(o, "no dramid@<bit>; prefix");
    set(o, key, std::to_string(uint64_t(1) << *bit));
    note(o, "row/bank/column bit map: gpumux splits partition-local addresses its own way");
  }

  void dram_timing(const GpgpusimOption& o, const char*);

 private:
  void note(const GpgpusimOption& o, const std::string& reason) {
    out_.not_modeled.push_back(fmt::format("not modeled: {} {} ({})", o.name, o.value, reason));
  }
  void adjust(const GpgpusimOption& o, const std::string& change) {
    out_.adjusted.push_back(fmt::format("adjusted: {} {} ({})", o.name, o.value, change));
  }

  // Sets one key; a value gpumux cannot take is reported, not fatal.
  void set(const GpgpusimOption& o, const std::string& key, const std::string& value) {
    try {
      out_.config.set(key + "=" + value, name_);
    } catch (const LoadError& e) {
      note(o, e.what());
    }
  }

  uint64_t uint_option(const char* option, uint64_t fallback) const {
    auto v = opts_.value(option);
    auto n = v ? parse_gpgpusim_uint(*v) : std::nullopt;
    return n.value_or(fallback);
  }

  void shared_memory();
  void num_sms();
  void memory_latencies();
  void crossbar_buffers();
  void dram_bus();
  void intervals();
  void operand_collector();
  void l1_cache();
  void l2_cache();
  void cache_policies(const GpgpusimOption& o, const GpgpusimCacheSpec& c, const std::string& sec);

  const GpgpusimOptions& opts_;
  std::string name_;
  GpgpusimImport out_;
};

}  // namespace gpumux::gpgpusim_import
