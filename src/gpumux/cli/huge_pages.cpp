#include "gpumux/cli/huge_pages.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace gpumux::cli {

namespace {

constexpr const char* kTunables = "GLIBC_TUNABLES";
constexpr const char* kHugeTlb = "glibc.malloc.hugetlb=1";
constexpr const char* kAdded = "GPUMUX_ADDED_HUGETLB";  // marks the re-executed process

bool huge_pages_on_request() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(f, modes);
  return modes.find("[madvise]") != std::string::npos;
}

}  // namespace

void use_huge_pages(char** argv) {
  const char* env = std::getenv(kTunables);
  std::string tunables = env ? env : "";
  if (std::getenv(kAdded)) {  // the re-executed process: malloc has read the tunable
    unsetenv(kAdded);
    if (tunables == kHugeTlb) unsetenv(kTunables);
    else setenv(kTunables, tunables.substr(0, tunables.size() - std::strlen(kHugeTlb) - 1).c_str(), 1);
    return;
  }
  // The user's own malloc settings win; glibc older than 2.35 ignores the
  // tunable (no harm: one exec).
  if (tunables.find("glibc.malloc.hugetlb") != std::string::npos || !huge_pages_on_request()) return;
  setenv(kTunables, (tunables.empty() ? std::string(kHugeTlb) : tunables + ":" + kHugeTlb).c_str(), 1);
  setenv(kAdded, "1", 1);
  execv("/proc/self/exe", argv);
  // No /proc: run on with 4 KB pages.
  unsetenv(kAdded);
  if (env) setenv(kTunables, tunables.c_str(), 1); else unsetenv(kTunables);
}

}  // namespace gpumux::cli
