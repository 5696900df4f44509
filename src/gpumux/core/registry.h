// Factories registered by name (one X-macro line per plug-in, e.g.
// sm/warp_scheduler/policies.inc): lookup, with an error listing the known
// names, and the list of names for docs and validation.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "gpumux/core/error.h"

namespace gpumux {

template <class Factory>
struct Registered {
  const char* name;
  Factory make;
};

template <class Factory>
std::vector<std::string> registered_names(std::span<const Registered<Factory>> table) {
  std::vector<std::string> v;
  for (const auto& r : table) v.emplace_back(r.name);
  return v;
}

// The factory named `name`; LoadError "<what> '<name>' (known: a, b, ...)" if none.
template <class Factory>
Factory find_registered(std::span<const Registered<Factory>> table, std::string_view name, std::string_view what) {
  for (const auto& r : table)
    if (name == r.name) return r.make;
  throw LoadError(fmt::format("{} '{}' (known: {})", what, name, fmt::join(registered_names(table), ", ")));
}

}  // namespace gpumux
