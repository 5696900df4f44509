#include "published.h"

#include "embedded_published.h"
#include "gpumux/core/strict_toml.h"

namespace gpumux::microbench {

std::map<std::string, Published> parse_published(std::string_view toml_text, const std::string& file,
                                                 const std::string& preset) {
  toml::table root = parse_toml(toml_text, file);
  std::map<std::string, Published> out;
  const toml::node* gpu = root.get(preset);
  if (!gpu) return out;
  StrictTable top(root, "", file);
  const toml::table& entries = as_table(top, preset, *gpu);
  StrictTable t(entries, preset, file);
  for (const auto& [key, node] : entries) {
    StrictTable e(as_table(t, key.str(), node), preset + "." + std::string(key.str()), file);
    Published p;
    auto v = e.get<double>("value", "a number");
    auto s = e.get<std::string>("source", "a string");
    auto d = e.get<std::string>("deviation", "a string");
    if (!v || *v <= 0) e.fail(node, "value", "a positive value is required");
    if (!s || s->empty()) e.fail(node, "source", "the source (paper or document, table or page) is required");
    e.finish();
    p.value = *v;
    p.source = *s;
    if (d) p.deviation = *d;
    out.emplace(std::string(key.str()), std::move(p));
  }
  return out;
}

std::map<std::string, Published> published_values(const std::string& preset) {
  return parse_published(embedded::published_toml, "microbench/published.toml", preset);
}

}  // namespace gpumux::microbench
