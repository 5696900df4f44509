// Running a command and waiting for it (sbatch, squeue, the report script).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace gpumux::experiments {

struct ProcessResult {
  int exit_code = 0;  // 127: the program could not be started
  std::string out, err;
};

// Runs argv[0] (looked up in PATH) with argv; stdout is captured, or written
// to `stdout_file` when given; stderr is captured.
ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& stdout_file = {});

}  // namespace gpumux::experiments
