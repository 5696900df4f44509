// Loading a PTX module for execution, and `gpumux ptx check`: a report of
// what a PTX file contains and whether gpumux can run it.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "gpumux/ptx/ir.h"

namespace gpumux::ptx {

// parse_ptx + analyze_module + require_supported: a module ready for exec::bind().
Module load_ptx(std::string_view text, const std::string& file_name);

// Prints, for the module in `text`, each kernel with its parameters and
// estimated resources, the device functions, and every unsupported construct
// as "file:line: unsupported: <construct>". Syntax errors are printed, not
// thrown. Returns false on any error or unsupported construct.
bool check_ptx_text(std::string_view text, const std::string& file_name, std::ostream& out);

// check_ptx_text on the contents of `path` (false if it cannot be read).
bool check_ptx_file(const std::string& path, std::ostream& out);

}  // namespace gpumux::ptx
