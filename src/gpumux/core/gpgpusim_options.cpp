#include "gpumux/core/gpgpusim_options.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "gpumux/core/error.h"

namespace gpumux {
namespace {

struct Token {
  std::string text;
  int line = 0;
};

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// "-gpgpu_n_mem" names an option; "-1" or "-0.5" is a (negative) value.
bool is_option_name(std::string_view token) {
  return token.size() > 1 && token[0] == '-' && !std::isdigit(static_cast<unsigned char>(token[1])) && token[1] != '.';
}

// Whitespace-separated tokens without comments. A token opening a quote runs
// on, over spaces and line ends, to the token that closes it; like GPGPU-Sim,
// a '#' ends the line even inside quotes.
std::vector<Token> tokenize(std::string_view text, const std::string& file) {
  std::vector<Token> tokens;
  bool in_quote = false;
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    for (size_t i = 0; i < line.size();) {
      while (i < line.size() && is_space(line[i])) ++i;
      size_t start = i;
      while (i < line.size() && !is_space(line[i])) ++i;
      if (start == i) continue;
      std::string_view word = line.substr(start, i - start);
      if (in_quote) {
        tokens.back().text += ' ';
        tokens.back().text += word;
      } else {
        tokens.push_back({std::string(word), line_no});
        in_quote = word.front() == '"';
        if (in_quote && word.size() == 1) continue;  // a lone '"' opens, it does not close
      }
      if (in_quote && word.back() == '"') {
        std::string& t = tokens.back().text;
        t = t.substr(1, t.size() - 2);
        in_quote = false;
      }
    }
  }
  if (in_quote) throw LoadError(fmt::format("{}:{}: quoted value is never closed", file, tokens.back().line));
  return tokens;
}

}  // namespace

GpgpusimOptions GpgpusimOptions::parse(std::string_view text, const std::string& file) {
  std::vector<Token> tokens = tokenize(text, file);
  GpgpusimOptions out;
  for (size_t i = 0; i < tokens.size(); i += 2) {
    const Token& name = tokens[i];
    if (!is_option_name(name.text))
      throw LoadError(fmt::format("{}:{}: value '{}' without an option", file, name.line, name.text));
    if (i + 1 == tokens.size() || is_option_name(tokens[i + 1].text))
      throw LoadError(fmt::format("{}:{}: option {} has no value", file, name.line, name.text));
    // A repeated option replaces the earlier one (GPGPU-Sim assigns in file order).
    std::erase_if(out.options_, [&](const GpgpusimOption& o) { return o.name == name.text; });
    out.options_.push_back({name.text, tokens[i + 1].text, tokens[i + 1].line});
  }
  return out;
}

const GpgpusimOption* GpgpusimOptions::find(std::string_view name) const {
  auto it = std::find_if(options_.begin(), options_.end(), [&](const GpgpusimOption& o) { return o.name == name; });
  return it == options_.end() ? nullptr : &*it;
}

std::optional<std::string> GpgpusimOptions::value(std::string_view name) const {
  const GpgpusimOption* o = find(name);
  return o ? std::optional<std::string>(o->value) : std::nullopt;
}

}  // namespace gpumux
