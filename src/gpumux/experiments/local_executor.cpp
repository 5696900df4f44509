// The local executor: runs tasks as child processes on this machine, at most
// `jobs` at a time, wave after wave. Each child is the run-one command with
// its output redirected to the task's log.txt, so a crashing run cannot take
// the study down and its result is exactly what a Slurm array task would
// produce.
#include <spawn.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <thread>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/experiments/executor.h"

extern char** environ;

namespace gpumux::experiments {

namespace {

pid_t spawn(const std::vector<std::string>& argv, const std::filesystem::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int err = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err) throw ApiError(fmt::format("cannot start {}: {}", argv[0], std::strerror(err)));
  return pid;
}

class LocalExecutor : public Executor {
 public:
  void execute(const std::vector<RunTask>& tasks, const ExecutorOptions& o, ProgressSink& progress) override {
    unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
    std::map<pid_t, const RunTask*> running;
    auto reap_one = [&] {
      int status = 0;
      pid_t pid;
      do pid = waitpid(-1, &status, 0);
      while (pid < 0 && errno == EINTR);
      auto it = running.find(pid);
      if (it == running.end()) return;  // not ours (cannot happen: we start no other children)
      bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && std::filesystem::exists(it->second->dir / "run.json");
      progress.finished(*it->second, ok);
      running.erase(it);
    };
    size_t next = 0;
    while (next < tasks.size() || !running.empty()) {
      bool wave_blocked = !running.empty() && next < tasks.size() &&
                          std::any_of(running.begin(), running.end(),
                                      [&](const auto& r) { return r.second->wave < tasks[next].wave; });
      if (next < tasks.size() && running.size() < jobs && !wave_blocked) {
        const RunTask& t = tasks[next++];
        progress.started(t);
        running[spawn(run_one_command(t, o), t.dir / "log.txt")] = &t;
      } else {
        reap_one();
      }
    }
  }
};

}  // namespace

std::unique_ptr<Executor> make_local_executor() { return std::make_unique<LocalExecutor>(); }

}  // namespace gpumux::experiments
