#include "gpumux/core/strict_toml.h"

namespace gpumux {

std::string where(const toml::node& n, const std::string& file) {
  const auto& src = n.source();
  return src.begin.line ? fmt::format("{}:{}", file, src.begin.line) : file;
}

toml::table parse_toml(std::string_view text, const std::string& name) {
  try {
    return toml::parse(text, name);
  } catch (const toml::parse_error& e) {
    throw LoadError(fmt::format("{}:{}: {}", name, e.source().begin.line, e.description()));
  }
}

const toml::table& as_table(StrictTable& parent, std::string_view key, const toml::node& n) {
  if (!n.is_table()) parent.fail(n, key, "expected a table");
  return *n.as_table();
}

std::vector<const toml::table*> tables(StrictTable& parent, std::string_view key) {
  std::vector<const toml::table*> out;
  const toml::node* n = parent.node(key);
  if (!n) return out;
  const toml::array* arr = n->as_array();
  if (!arr || !arr->is_array_of_tables()) parent.fail(*n, key, fmt::format("expected [[...{}]] tables", key));
  for (const auto& e : *arr) out.push_back(e.as_table());
  return out;
}

std::vector<std::string> strings(StrictTable& t, std::string_view key) {
  std::vector<std::string> out;
  const toml::node* n = t.node(key);
  if (!n) return out;
  const toml::array* arr = n->as_array();
  if (!arr) t.fail(*n, key, "expected an array of strings");
  for (const auto& e : *arr) {
    auto v = e.value_exact<std::string>();
    if (!v) t.fail(e, key, "expected an array of strings");
    out.push_back(*v);
  }
  return out;
}

}  // namespace gpumux
