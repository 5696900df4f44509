// The GPU presets (configs/*.toml), compiled into the binary by
// cmake/EmbedPresets.cmake so that a preset name works from any folder and
// after an install, without the source tree.
//
//   if (const Preset* p = find_builtin_preset("gtx980")) config.apply_preset(*p);
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace gpumux {

struct Preset {
  std::string_view name;  // file name without .toml
  std::string_view text;  // the TOML
};

// Every preset, sorted by name (defined in the generated embedded/presets.cpp).
std::span<const Preset> builtin_presets();
// The preset of that name, or nullptr.
const Preset* find_builtin_preset(std::string_view name);
// "edge-16sm, gtx980, ...": for error messages.
std::string builtin_preset_names();

}  // namespace gpumux
