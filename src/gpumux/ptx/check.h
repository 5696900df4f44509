// Loading a PTX module for execution, and `gpumux ptx check`: a report of
// what a PTX file contains and whether gpumux can run it.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "gpumux/ptx/ir.h"

namespace gpumux::ptx {

// parse_ptx + analyze_module + require_supported: a module ready for exec::bind().
Module load_ptx(std::string_view text, const std::string& file_name);

// What an execution engine cannot run in an analysed module: one entry per
// instruction (line, "<opcode>: <why>"). The ptx layer does not know the
// engine; the caller passes it in (the CLI: exec::bind_instructions).
using EngineCheck = std::function<std::vector<Unsupported>(Module&)>;

// Prints, for the module in `text`, each kernel with its parameters and
// estimated resources, the device functions, and every unsupported construct
// as "file:line: unsupported: <construct>", then, with `engine`, every other
// instruction the engine cannot execute as "file:line: unsupported
// instruction <opcode>: <why>". Syntax errors are printed, not thrown.
// Returns false on any error or unsupported construct or instruction.
bool check_ptx_text(std::string_view text, const std::string& file_name, std::ostream& out,
                    const EngineCheck& engine = {});

// check_ptx_text on the contents of `path` (false if it cannot be read).
bool check_ptx_file(const std::string& path, std::ostream& out, const EngineCheck& engine = {});

}  // namespace gpumux::ptx
