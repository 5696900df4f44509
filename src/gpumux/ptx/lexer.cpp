#include "gpumux/ptx/lexer.h"

#include <fmt/format.h>

#include "gpumux/core/error.h"

namespace gpumux::ptx {

namespace {

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_word_char(char c) { return is_alpha(c) || is_digit(c) || c == '_' || c == '$'; }
bool is_hex_digit(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& file) : s_(text), file_(file) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    out.reserve(s_.size() / 4 + 1);
    for (;;) {
      skip_space_and_comments();
      if (p_ >= s_.size()) break;
      out.push_back(next());
    }
    out.push_back(Token{TokKind::End, line_, {}});
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& msg) const {
    throw LoadError(fmt::format("{}:{}: {}", file_, line_, msg));
  }

  char at(size_t i) const { return i < s_.size() ? s_[i] : '\0'; }

  void skip_space_and_comments() {
    while (p_ < s_.size()) {
      char c = s_[p_];
      if (c == '\n') {
        ++line_;
        ++p_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++p_;
      } else if (c == '/' && at(p_ + 1) == '/') {
        skip_line();
      } else if (c == '@' && at(p_ + 1) == '@') {
        skip_line();  // @@DWARF debug lines
      } else if (c == '/' && at(p_ + 1) == '*') {
        uint32_t start = line_;
        p_ += 2;
        for (;;) {
          if (p_ >= s_.size()) {
            line_ = start;
            fail("unterminated /* comment");
          }
          if (s_[p_] == '*' && at(p_ + 1) == '/') {
            p_ += 2;
            break;
          }
          if (s_[p_] == '\n') ++line_;
          ++p_;
        }
      } else {
        return;
      }
    }
  }

  void skip_line() {
    while (p_ < s_.size() && s_[p_] != '\n') ++p_;
  }

  // One word segment, allowing "::" inside dotted words (L1::evict_last).
  void scan_segment(bool allow_scope) {
    for (;;) {
      while (p_ < s_.size() && is_word_char(s_[p_])) ++p_;
      if (allow_scope && at(p_) == ':' && at(p_ + 1) == ':' && is_word_char(at(p_ + 2))) {
        p_ += 2;
        continue;
      }
      return;
    }
  }

  Token next() {
    size_t b = p_;
    char c = s_[p_];
    Token t;
    t.line = line_;
    if (is_alpha(c) || c == '_' || c == '$' || c == '%') {
      ++p_;
      scan_segment(false);
      while (at(p_) == '.' && is_word_char(at(p_ + 1))) {
        ++p_;
        scan_segment(true);
      }
      t.kind = TokKind::Ident;
    } else if (c == '.' && (is_alpha(at(p_ + 1)) || at(p_ + 1) == '_')) {
      ++p_;
      scan_segment(true);
      t.kind = TokKind::Directive;
    } else if (is_digit(c)) {
      scan_number(b);
      t.kind = TokKind::Number;
    } else if (c == '"') {
      ++p_;
      while (p_ < s_.size() && s_[p_] != '"') {
        if (s_[p_] == '\n') fail("unterminated string");
        if (s_[p_] == '\\') ++p_;
        ++p_;
      }
      if (p_ >= s_.size()) fail("unterminated string");
      ++p_;
      t.kind = TokKind::String;
    } else {
      static constexpr std::string_view kPunct = ",;:()[]{}<>+-!|@=";
      if (kPunct.find(c) == std::string_view::npos) {
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
          fail(fmt::format("unexpected character 0x{:02x}", static_cast<unsigned char>(c)));
        fail(fmt::format("unexpected character '{}'", c));
      }
      ++p_;
      t.kind = TokKind::Punct;
    }
    t.text = s_.substr(b, p_ - b);
    return t;
  }

  void scan_number(size_t b) {
    char c1 = at(p_ + 1);
    if (s_[p_] == '0' && (c1 == 'x' || c1 == 'X' || c1 == 'f' || c1 == 'F' || c1 == 'd' ||
                          c1 == 'D' || c1 == 'b' || c1 == 'B')) {
      p_ += 2;
      while (is_hex_digit(at(p_))) ++p_;
    } else {
      while (is_digit(at(p_))) ++p_;
      if (at(p_) == '.' && !is_alpha(at(p_ + 1)) && at(p_ + 1) != '_') {
        ++p_;
        while (is_digit(at(p_))) ++p_;
      }
      if ((at(p_) == 'e' || at(p_) == 'E') &&
          (is_digit(at(p_ + 1)) ||
           ((at(p_ + 1) == '+' || at(p_ + 1) == '-') && is_digit(at(p_ + 2))))) {
        p_ += 2;
        while (is_digit(at(p_))) ++p_;
      }
    }
    if (at(p_) == 'U') ++p_;
    if (is_word_char(at(p_)) || at(p_) == '.')
      fail(fmt::format("malformed number '{}'", s_.substr(b, p_ + 1 - b)));
  }

  std::string_view s_;
  const std::string& file_;
  size_t p_ = 0;
  uint32_t line_ = 1;
};

}  // namespace

std::vector<Token> tokenize(std::string_view text, const std::string& file_name) {
  return Lexer(text, file_name).run();
}

std::string describe(const Token& t) {
  if (t.kind == TokKind::End) return "end of file";
  return fmt::format("'{}'", t.text);
}

}  // namespace gpumux::ptx
