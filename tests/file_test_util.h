// Reading files that tests wrote or that the tests check.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace gpumux::test {

// The whole file (empty if it cannot be read).
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace gpumux::test
