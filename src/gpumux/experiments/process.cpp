#include "gpumux/experiments/process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

extern char** environ;

namespace gpumux::experiments {

namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& stdout_file) {
  // Output goes through temporary files: no pipes to drain, no deadlock on large output.
  char tmpl[] = "/tmp/gpumux-process-XXXXXX";
  std::filesystem::path tmp = mkdtemp(tmpl) ? tmpl : "/tmp";
  std::filesystem::path out = stdout_file.empty() ? tmp / "out" : stdout_file, err = tmp / "err";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  ProcessResult r;
  int e = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (e) {
    r.exit_code = 127;
    r.err = argv[0] + ": " + std::strerror(e);
  } else {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (stdout_file.empty()) r.out = slurp(out);
    r.err = slurp(err);
  }
  std::error_code ec;
  std::filesystem::remove_all(tmp, ec);
  return r;
}

}  // namespace gpumux::experiments
