// Import of a GPGPU-Sim / Accel-Sim gpgpusim.config file: every option gpumux
// models becomes the matching config key; every other option is reported,
// never silently dropped.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpumux/core/config.h"

namespace gpumux {

struct GpgpusimImport {
  Config config;                        // defaults overridden by the modeled options, validated
  std::vector<std::string> not_modeled;  // "not modeled: <option> <value>[ (detail)]", in file order
};

// `name` stands for the file in errors. Throws LoadError if the modeled values
// do not form a valid configuration.
GpgpusimImport import_gpgpusim_config(std::string_view text, const std::string& name);

}  // namespace gpumux
