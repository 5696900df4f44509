# Script mode: writes OUT, a C++ file defining the std::string_view
# gpumux::embedded::IDENT with IN's text (a data file compiled into the binary).
file(READ ${IN} text)
file(WRITE ${OUT} "#include <string_view>\nnamespace gpumux::embedded {\nstatic const char ${IDENT}_text[] = R\"gpumux_text(${text})gpumux_text\";\nextern const std::string_view ${IDENT};\nconst std::string_view ${IDENT}(${IDENT}_text, sizeof(${IDENT}_text) - 1);\n}\n")
