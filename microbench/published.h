// Published hardware figures for the microbenchmarks, with their sources
// (microbench/published.toml, compiled in).
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace gpumux::microbench {

struct Published {
  double value = 0;
  std::string source;     // paper or vendor document, table or page
  std::string deviation;  // why the preset stays beyond kPublishedTolerance of it (empty: it must not)
};

// The calibration target: measured within 10% of the published value.
inline constexpr double kPublishedTolerance = 0.10;

inline bool within_published(double measured, const Published& p) {
  double ratio = measured / p.value;
  return ratio >= 1 - kPublishedTolerance && ratio <= 1 + kPublishedTolerance;
}

// Measurement name -> published figure, for GPU `preset` (empty if none).
// `toml_text` defaults to the compiled-in published.toml; errors name file:line.
std::map<std::string, Published> published_values(const std::string& preset);
std::map<std::string, Published> parse_published(std::string_view toml_text, const std::string& file,
                                                 const std::string& preset);

}  // namespace gpumux::microbench
