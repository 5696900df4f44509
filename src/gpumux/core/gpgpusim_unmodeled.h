// The GPGPU-Sim options gpumux does not model, each with the reason: the
// importer reports them with it and docs/config.md lists them.
#pragma once

#include <span>
#include <string_view>

namespace gpumux {

struct UnmodeledOption {
  const char* option;
  // The value gpumux behaves as if it had (nothing to report then), or nullptr.
  const char* gpumux_value;
  const char* reason;
};

std::span<const UnmodeledOption> unmodeled_gpgpusim_options();
const UnmodeledOption* find_unmodeled_gpgpusim_option(std::string_view option);

}  // namespace gpumux
