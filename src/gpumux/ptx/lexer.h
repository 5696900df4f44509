// Tokenizer for PTX text. Comments and @@DWARF lines are dropped. Token texts
// are views into the source text, which must outlive the tokens.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpumux::ptx {

enum class TokKind : uint8_t {
  End,        // end of input (always the last token)
  Ident,      // foo, %r1, $L__BB0_2, _ ; also dotted words: ld.global.f32, %tid.x
  Directive,  // .reg, .u32, .align (one dotted segment each: ".ptr.global" is two tokens)
  Number,     // 12, 0x1F, 0f3F800000, 1.5e3, 7U (unsigned suffix kept in the text)
  String,     // "text" (quotes kept in the text)
  Punct,      // one of , ; : ( ) [ ] { } < > + - ! | @ =
};

struct Token {
  TokKind kind = TokKind::End;
  uint32_t line = 0;
  std::string_view text;
};

// Throws LoadError "file:line: ..." on a character that starts no token or an
// unterminated string or comment.
std::vector<Token> tokenize(std::string_view text, const std::string& file_name);

// A token as the user wrote it, for messages: "'foo'" or "end of file".
std::string describe(const Token& t);

}  // namespace gpumux::ptx
