// Published hardware figures for the microbenchmarks, with their sources
// (microbench/published.toml, compiled in).
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace gpumux::microbench {

struct Published {
  double value = 0;
  std::string source;  // paper or vendor document, table or page
};

// Measurement name -> published figure, for GPU `preset` (empty if none).
// `toml_text` defaults to the compiled-in published.toml; errors name file:line.
std::map<std::string, Published> published_values(const std::string& preset);
std::map<std::string, Published> parse_published(std::string_view toml_text, const std::string& file,
                                                 const std::string& preset);

}  // namespace gpumux::microbench
