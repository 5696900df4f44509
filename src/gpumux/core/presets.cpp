#include "gpumux/core/presets.h"

namespace gpumux {

const Preset* find_builtin_preset(std::string_view name) {
  for (const Preset& p : builtin_presets())
    if (p.name == name) return &p;
  return nullptr;
}

std::string builtin_preset_names() {
  std::string names;
  for (const Preset& p : builtin_presets()) names += (names.empty() ? "" : ", ") + std::string(p.name);
  return names;
}

}  // namespace gpumux
