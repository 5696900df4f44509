// Reader of GPGPU-Sim / Accel-Sim option files (gpgpusim.config): the
// "-option value" pairs in effect, as GPGPU-Sim's own option parser sees them.
//
//   -gpgpu_n_mem 32          # '#' starts a comment, to the end of the line
//   -gpgpu_dram_timing_opt "nbk=16:RCD=12:
//                           CL=12:WL=2"      # a quoted value may span lines
//   -gpgpu_n_mem 24          # a repeated option: the last one wins
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpumux {

struct GpgpusimOption {
  std::string name;   // with its leading '-'
  std::string value;  // quotes removed; the lines of a quoted value joined by one space
  int line = 0;       // where the value starts (1-based)
};

class GpgpusimOptions {
 public:
  // Parses `text`; `file` names it in errors. Throws LoadError "file:line: ..."
  // for a value without an option, an option without a value or an unclosed quote.
  static GpgpusimOptions parse(std::string_view text, const std::string& file);

  // The options in effect, in the order of their last occurrence.
  const std::vector<GpgpusimOption>& all() const { return options_; }
  const GpgpusimOption* find(std::string_view name) const;
  std::optional<std::string> value(std::string_view name) const;

 private:
  std::vector<GpgpusimOption> options_;
};

}  // namespace gpumux
