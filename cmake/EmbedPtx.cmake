# Embeds each PTX file as a std::string_view named gpumux::embedded::<stem>_ptx,
# declared in the generated header embedded/embedded_ptx.h.
function(gpumux_embed_ptx out_var)
  set(outdir ${CMAKE_CURRENT_BINARY_DIR}/embedded)
  file(MAKE_DIRECTORY ${outdir})
  set(sources)
  set(decls "")
  foreach(ptx ${ARGN})
    get_filename_component(stem ${ptx} NAME_WE)
    string(MAKE_C_IDENTIFIER ${stem} ident)
    set(cpp ${outdir}/${ident}_ptx.cpp)
    add_custom_command(
      OUTPUT ${cpp}
      COMMAND ${CMAKE_COMMAND} -DIN=${ptx} -DOUT=${cpp} -DIDENT=${ident}
              -P ${PROJECT_SOURCE_DIR}/cmake/EmbedOne.cmake
      DEPENDS ${ptx} ${PROJECT_SOURCE_DIR}/cmake/EmbedOne.cmake
      COMMENT "Embedding ${stem}.ptx")
    list(APPEND sources ${cpp})
    string(APPEND decls "extern const std::string_view ${ident}_ptx;\n")
  endforeach()
  file(WRITE ${outdir}/embedded_ptx.h.tmp
       "#pragma once\n#include <string_view>\nnamespace gpumux::embedded {\n${decls}}\n")
  file(COPY_FILE ${outdir}/embedded_ptx.h.tmp ${outdir}/embedded_ptx.h ONLY_IF_DIFFERENT)
  set(${out_var} ${sources} PARENT_SCOPE)
endfunction()
