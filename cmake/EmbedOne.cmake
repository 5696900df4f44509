# Script mode: writes OUT, a C++ file defining gpumux::embedded::IDENT_ptx with IN's text.
file(READ ${IN} text)
# Raw string literals are limited in practice by compilers to ~64K per piece; split them.
string(LENGTH "${text}" len)
set(body "")
set(pos 0)
while(pos LESS len)
  string(SUBSTRING "${text}" ${pos} 30000 piece)
  string(APPEND body "R\"gpumux_ptx(${piece})gpumux_ptx\"\n")
  math(EXPR pos "${pos} + 30000")
endwhile()
file(WRITE ${OUT} "#include <string_view>\nnamespace gpumux::embedded {\nstatic const char ${IDENT}_text[] =\n${body};\nextern const std::string_view ${IDENT}_ptx;\nconst std::string_view ${IDENT}_ptx(${IDENT}_text, sizeof(${IDENT}_text) - 1);\n}\n")
