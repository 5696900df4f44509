// Helpers shared by the PTX frontend tests.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gpumux/ptx/ir.h"
#include "gpumux/ptx/parser.h"

namespace gpumux::ptx::test {

inline constexpr const char* kHeader =
    ".version 9.0\n"
    ".target sm_80\n"
    ".address_size 64\n";  // 3 lines

// A kernel `k` with the usual register files around `body`; its first body
// line is line kBodyLine of the module.
inline constexpr unsigned kBodyLine = 15;
inline std::string kernel_with(const std::string& body, const std::string& module_prefix = "") {
  return std::string(kHeader) + module_prefix +
         ".visible .entry k(\n"                  // 4
         "\t.param .u64 k_param_0,\n"            // 5
         "\t.param .u32 k_param_1\n"             // 6
         ")\n"                                   // 7
         "{\n"                                   // 8
         "\t.reg .pred %p<8>;\n"                 // 9
         "\t.reg .b16 %rs<8>;\n"                 // 10
         "\t.reg .b32 %r<32>;\n"                 // 11
         "\t.reg .b64 %rd<16>;\n"                // 12
         "\t.reg .f32 %f<16>;\n"                 // 13
         "\t.reg .f64 %fd<8>;\n" +               // 14
         body + "\n}\n";
}

// Parses a kernel body (no module prefix) and returns the kernel.
inline Function parse_body(const std::string& body) {
  Module m = parse_ptx(kernel_with(body), "t.ptx");
  return m.functions.at(0);
}

// The LoadError message of parsing a kernel body, or "(no error)".
inline std::string body_error(const std::string& body) {
  try {
    parse_ptx(kernel_with(body), "bad.ptx");
  } catch (const LoadError& e) {
    return e.what();
  }
  return "(no error)";
}

// The single instruction of a one-instruction body.
inline Instruction parse_one(const std::string& inst) {
  Function f = parse_body(inst);
  if (f.insts.size() != 1) throw std::runtime_error("expected one instruction: " + inst);
  return f.insts[0];
}

inline uint16_t reg_index(const Function& f, const std::string& name) {
  for (size_t i = 0; i < f.reg_names.size(); ++i)
    if (f.reg_names[i] == name) return uint16_t(i);
  throw std::runtime_error("no register " + name);
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string corpus_dir() { return std::string(GPUMUX_SOURCE_DIR) + "/tests/ptx/corpus"; }

}  // namespace gpumux::ptx::test
