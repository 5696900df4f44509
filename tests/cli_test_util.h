// Runs the gpumux binary of this build from tests of its commands.
#pragma once

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>

namespace gpumux::test {

// Runs the shell command `cmd`; returns its exit status and (in `out`) its
// output, standard error included.
inline int run_command(const std::string& cmd, std::string& out) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  std::array<char, 4096> buf;
  out.clear();
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Runs `gpumux ARGS` of this build, as run_command().
inline int run_gpumux(const std::string& args, std::string& out) {
  return run_command(std::string(GPUMUX_BINARY) + " " + args, out);
}

// The whole text of the file at `p` (empty if it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace gpumux::test
