// GPGPU-Sim cache geometry strings and how their caches fit gpumux's cache
// (128 B lines of four sectors, at most 64 ways, capacity in whole KiB).
//
//   [N|S:]<sets>:<line>:<ways>,<repl>:<write>:<alloc>:<write_alloc>:<index>,<mshr>:<entries>:<merge>,<miss queue>...
//   S:4:128:64,L:T:m:L:L,A:512:8,16:0,32    N:32:128:4,L:L:m:N:H,S:64:8,8
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpumux {

struct GpgpusimCacheSpec {
  bool sectored = false;  // 'S': fills 32 B sectors; 'N' or no prefix: whole lines
  uint64_t sets = 0, line_bytes = 0, ways = 0;
  // Policy letters; '\0' where the string stops early.
  char replacement = '\0', write = '\0', allocate = '\0', write_allocate = '\0', set_index = '\0';
  std::string mshr_type;  // "A", "S", "T", "F" or empty
  std::optional<uint64_t> mshr_entries, mshr_merge;
  std::vector<std::string> queue_groups;  // miss queue, data port width...: not modeled

  uint64_t bytes() const { return sets * line_bytes * ways; }
};

// The fields of an option value between separators `sep` (empty ones kept).
std::vector<std::string_view> split_gpgpusim_fields(std::string_view s, char sep);
// A whole decimal number, or nullopt.
std::optional<uint64_t> parse_gpgpusim_uint(std::string_view s);

// Nullopt when the geometry (the first group) is not <sets>:<line>:<ways>.
std::optional<GpgpusimCacheSpec> parse_gpgpusim_cache(std::string_view text);

struct FittedCache {
  uint32_t size_kb = 0;  // of all `slices` together
  uint32_t ways = 0;
  std::string adjustment;  // what had to change, empty if nothing
};

// A cache of `slices` slices of `slice_bytes` each, `ways`-way with 128 B
// lines, fitted to gpumux: capacity rounded down to whole 128 B lines per slice
// and whole KiB in total, then associativity lowered (to at most 64) until the
// lines of a slice form whole sets. Capacity decides hit rates more than
// associativity does, so it is what is kept.
FittedCache fit_gpgpusim_cache(uint64_t slice_bytes, uint64_t ways, uint32_t slices);

}  // namespace gpumux
