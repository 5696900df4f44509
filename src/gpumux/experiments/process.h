// Running a child process to completion (sbatch, squeue, the report script).
// No shell is involved: argv reaches the program as is, so arguments need no
// quoting.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace gpumux::experiments {

struct ProcessResult {
  int exit_code = 0;  // the child's exit status; 128 + N if signal N ended it
  std::string out;    // standard output, when captured
  std::string err;    // standard error, when captured
};

// Runs argv[0] (looked up in PATH when it has no '/') with argv, the current
// environment and standard input from /dev/null, and waits for it. With an
// empty output_file, standard output and error are captured into `out` and
// `err`; otherwise both go to output_file (truncated), as with `>file 2>&1`.
// Like a shell, a program that cannot be executed gives exit code 127 and the
// reason on standard error (`err`, or appended to output_file). Throws
// ApiError only when no process can be created at all (fork or pipe failed,
// output_file cannot be opened) or argv is empty.
ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& output_file = {});

}  // namespace gpumux::experiments
