#include "gpumux/core/params.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpumux {

std::string ParamInfo::type_name() const {
  switch (kind) {
    case ParamKind::Bool: return "bool";
    case ParamKind::Int: return "int";
    case ParamKind::Float: return "float";
    case ParamKind::String: return "string";
  }
  return "?";
}

std::string ParamInfo::constraint() const {
  switch (kind) {
    case ParamKind::Int: return fmt::format("{}..{}", min_int, max_int);
    case ParamKind::Float:
      if (std::isinf(min_float) && std::isinf(max_float)) return "";
      return fmt::format("{}..{}", min_float, max_float);
    case ParamKind::String: return fmt::format("{}", fmt::join(choices, " \\| "));
    case ParamKind::Bool: return "";
  }
  return "";
}

std::string ParamInfo::check(const ParamValue& v) const {
  switch (kind) {
    case ParamKind::Bool:
      if (!std::holds_alternative<bool>(v)) return "expected a bool (true or false)";
      return "";
    case ParamKind::Int: {
      if (!std::holds_alternative<int64_t>(v)) return "expected an integer";
      int64_t i = std::get<int64_t>(v);
      if (i < min_int || i > max_int)
        return fmt::format("value {} out of range [{}, {}]", i, min_int, max_int);
      return "";
    }
    case ParamKind::Float: {
      if (!std::holds_alternative<double>(v)) return "expected a number";
      double f = std::get<double>(v);
      if (!(f >= min_float && f <= max_float))
        return fmt::format("value {} out of range [{}, {}]", f, min_float, max_float);
      return "";
    }
    case ParamKind::String: {
      if (!std::holds_alternative<std::string>(v)) return "expected a string";
      const auto& s = std::get<std::string>(v);
      if (!choices.empty() && std::find(choices.begin(), choices.end(), s) == choices.end())
        return fmt::format("\"{}\" is not one of: {}", s, fmt::join(choices, ", "));
      return "";
    }
  }
  return "";
}

const ParamInfo* Schema::find_param(std::string_view name) const {
  for (const auto& p : params)
    if (p.name == name) return &p;
  return nullptr;
}

const SectionInfo* Schema::find_section(std::string_view name) const {
  for (const auto& s : sections)
    if (s.name == name) return &s;
  return nullptr;
}

std::string to_toml_literal(const ParamValue& v) {
  if (const bool* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const int64_t* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const double* f = std::get_if<double>(&v)) {
    std::string s = fmt::format("{}", *f);
    if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // 'n': inf/nan
    return s;
  }
  std::string out = "\"";
  for (char c : std::get<std::string>(v)) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace gpumux
