// Results of isolated ("alone") runs cached on disk, so that multiprogram
// experiments do not re-simulate the same baseline again and again.
//
// An entry is keyed by a text that must contain everything that affects the
// isolated run: the effective GPU configuration dump, the benchmark, its size
// and seed, and build_id(). The file name is the 64-bit FNV-1a hash of that
// text; the text itself is stored in the file and compared on lookup, so a
// hash collision is a miss, never a wrong answer.
//
// File format (one JSON document per entry, <dir>/<16 hex digits>.json):
//   {"format": 1, "key": "<key_text>", "value": <value>}
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace gpumux::multitask {

class BaselineCache {
 public:
  // `dir` is created on the first put().
  explicit BaselineCache(std::filesystem::path dir);

  // The value stored under exactly `key_text`; nullopt when absent, stored
  // under another key (hash collision), unreadable or corrupt.
  std::optional<nlohmann::json> get(const std::string& key_text) const;
  // Stores `value` under `key_text`, replacing any entry with the same file
  // name. Atomic: writes a temporary file in `dir`, then renames it, so a
  // concurrent reader sees the old entry or the new one, never a torn file.
  // ApiError naming the file if the directory or file cannot be written.
  void put(const std::string& key_text, const nlohmann::json& value);

  const std::filesystem::path& dir() const { return dir_; }
  // The file an entry for `key_text` lives in.
  std::filesystem::path file_for(const std::string& key_text) const;

  // $GPUMUX_CACHE_DIR, else $XDG_CACHE_HOME/gpumux, else ~/.cache/gpumux
  // ($HOME), else ./.gpumux-cache. Empty variables count as unset;
  // XDG_CACHE_HOME is ignored unless absolute (XDG base directory spec).
  static std::filesystem::path default_dir();

 private:
  std::filesystem::path dir_;
};

// 64-bit FNV-1a of `text`.
uint64_t fnv1a64(std::string_view text);

// Identifies this gpumux build for cache keys: "src-<sha256 prefix>
// <compiler id> <compiler version>". The hash covers the contents of every
// source file of the simulator and the workload library (src/gpumux/**.{h,cpp},
// workloads/**.{h,cpp,cu,ptx}) and is recomputed by the build itself
// (cmake/BuildId.cmake, run as a target on every build, rewriting the
// generated header only when it changes). So any change to the timing model,
// committed or not, gives a new id and invalidates cached baselines; identical
// sources built twice give the same id; it needs no .git, so it works in a
// tarball too. Built without that header (not through CMake), it is
// "unknown-build" and every build shares one id: don't rely on the cache then.
std::string build_id();

}  // namespace gpumux::multitask
