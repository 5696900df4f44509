// Builds the CUDA test programs of tests/cuda with nvcc (-cudart shared) for
// the tests that run them. ctest runs every test in its own process (and in
// parallel): the builds are shared through kCudaOut under a lock, and a
// program is rebuilt only when its source (or check.h) is newer.
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_test_util.h"

namespace gpumux::test {

inline const std::filesystem::path kCudaOut = std::filesystem::path(GPUMUX_BUILD_DIR) / "cuda-tests";

inline std::string nvcc() {
  const char* env = std::getenv("NVCC");
  return env && *env ? env : "/usr/local/cuda/bin/nvcc";
}

// A program, the tests/cuda source it is built from, and its nvcc flags.
struct CudaBuild {
  std::string program, source, flags;
};

// Builds the stale programs in parallel; returns nvcc's log, with a line
// "nvcc failed: PROGRAM" per failed build. Nothing without nvcc.
inline std::string build_cuda_programs(const std::vector<CudaBuild>& builds) {
  namespace fs = std::filesystem;
  if (!fs::exists(nvcc())) return "";
  fs::create_directories(kCudaOut);
  int lock = open((kCudaOut / ".lock").c_str(), O_CREAT | O_RDWR, 0644);
  flock(lock, LOCK_EX);
  auto stale = [](const CudaBuild& b) {
    fs::path bin = kCudaOut / b.program, src = fs::path(GPUMUX_SOURCE_DIR) / "tests/cuda" / (b.source + ".cu");
    std::error_code ec;
    return !fs::exists(bin) || fs::last_write_time(bin) < fs::last_write_time(src) ||
           fs::last_write_time(bin) < fs::last_write_time(src.parent_path() / "check.h", ec);
  };
  std::string cmd, log;
  for (const CudaBuild& b : builds)
    if (stale(b))
      cmd += fmt::format("({} -cudart shared {} -o {} {}/tests/cuda/{}.cu || echo 'nvcc failed: {}') & ", nvcc(),
                         b.flags, (kCudaOut / b.program).string(), GPUMUX_SOURCE_DIR, b.source, b.program);
  if (!cmd.empty()) run_command(cmd + "wait", log);
  close(lock);  // releases the lock
  return log;
}

// For a fixture's SetUp: skips the test where CUDA programs cannot run (a
// sanitized build's libcudart, no nvcc) and fails it when one did not build.
inline void require_cuda_programs(const std::string& compile_log) {
#ifdef GPUMUX_SANITIZED
  GTEST_SKIP() << "libcudart.so.13 is built with sanitizers, which uninstrumented CUDA programs cannot load";
#endif
  if (!std::filesystem::exists(nvcc()))
    GTEST_SKIP() << "nvcc not found at " << nvcc() << " (set NVCC): CUDA programs not built";
  ASSERT_EQ(compile_log.find("nvcc failed"), std::string::npos) << compile_log;
}

}  // namespace gpumux::test
