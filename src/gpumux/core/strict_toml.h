// Strict reading of TOML input files (workload files, study files): every
// key of a table must be read, or finish() reports it as unknown; wrong types
// and values are LoadErrors naming "file:line: table.key: what".
#pragma once

#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "gpumux/core/error.h"

namespace gpumux {

// "file:line" of a node, or just "file" when it has no source position.
std::string where(const toml::node& n, const std::string& file);

// Parses TOML text; LoadError "name:line: ..." on a syntax error.
toml::table parse_toml(std::string_view text, const std::string& name);

class StrictTable {
 public:
  StrictTable(const toml::table& t, std::string path, const std::string& file)
      : t_(t), path_(std::move(path)), file_(file) {}

  const toml::node* node(std::string_view key) {
    used_.insert(std::string(key));
    return t_.get(key);
  }
  [[noreturn]] void fail(const toml::node& n, std::string_view key, const std::string& what) const {
    throw LoadError(fmt::format("{}: {}: {}", where(n, file_), qualified(key), what));
  }
  std::string qualified(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }
  template <class T>
  std::optional<T> get(std::string_view key, const char* type) {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    if constexpr (std::is_same_v<T, double>) {
      if (auto i = n->value_exact<int64_t>()) return double(*i);
    }
    auto v = n->value_exact<T>();
    if (!v) fail(*n, key, fmt::format("expected {}", type));
    return *v;
  }
  std::optional<int64_t> integer(std::string_view key, int64_t lo, int64_t hi) {
    auto v = get<int64_t>(key, "an integer");
    if (v && (*v < lo || *v > hi)) fail(*node(key), key, fmt::format("{} is outside [{}, {}]", *v, lo, hi));
    return v;
  }
  // One of the named values of an enumeration; `def` when absent.
  template <class E>
  E choice(std::string_view key, std::initializer_list<std::pair<std::string_view, E>> options, E def) {
    std::string names;
    for (const auto& o : options) names += fmt::format("{}\"{}\"", names.empty() ? "" : ", ", o.first);
    auto v = get<std::string>(key, names.c_str());
    if (!v) return def;
    for (const auto& o : options)
      if (*v == o.first) return o.second;
    fail(*node(key), key, fmt::format("'{}': expected one of {}", *v, names));
  }
  void finish() const {
    for (const auto& [key, n] : t_)
      if (!used_.count(std::string(key.str()))) fail(n, key.str(), "unknown key");
  }
  const std::string& file() const { return file_; }
  const toml::table& table() const { return t_; }

 private:
  const toml::table& t_;
  std::string path_;
  const std::string& file_;
  std::set<std::string> used_;
};

// The table under `key` (already looked up as `n`).
const toml::table& as_table(StrictTable& parent, std::string_view key, const toml::node& n);
// The tables of an array of tables ([[app.buffer]]); none if absent.
std::vector<const toml::table*> tables(StrictTable& parent, std::string_view key);
// An array of strings; empty if absent.
std::vector<std::string> strings(StrictTable& t, std::string_view key);

}  // namespace gpumux
