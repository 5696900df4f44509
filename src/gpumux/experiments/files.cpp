#include "gpumux/experiments/files.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "gpumux/core/error.h"

namespace gpumux::experiments {

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::path tmp = p;
  tmp += ".tmp";
  {
    std::ofstream out(tmp);
    out << text;
    if (!out) throw ApiError(fmt::format("cannot write {}", p.string()));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, p, ec);
  if (ec) throw ApiError(fmt::format("cannot write {}: {}", p.string(), ec.message()));
}

}  // namespace gpumux::experiments
