// Import of a GPGPU-Sim / Accel-Sim gpgpusim.config file: every option gpumux
// models becomes the matching config key; every other option is reported with
// the reason, never silently dropped; every value changed to fit gpumux's
// limits is reported with what changed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpumux/core/config.h"

namespace gpumux {

struct GpgpusimImport {
  Config config;                         // defaults overridden by the modeled options, validated
  std::vector<std::string> adjusted;     // "adjusted: <option> <value> (<what changed>)"
  std::vector<std::string> not_modeled;  // "not modeled: <option> <value> (<reason>)", in file order
};

// `file` names the text in errors; `gpu_name` becomes gpu.name (empty: `file`).
// Throws LoadError ("file:line: ...") for text GPGPU-Sim could not parse
// either, and if the mapped values do not form a valid configuration.
GpgpusimImport import_gpgpusim_config(std::string_view text, const std::string& file,
                                      const std::string& gpu_name = "");

// The reference of the import (part of docs/config.md): which option sets
// which key, and why each other option is not modeled.
std::string gpgpusim_import_reference_markdown();

}  // namespace gpumux
