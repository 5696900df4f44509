#include "gpumux/experiments/process.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <utility>

#include "gpumux/core/error.h"

extern char** environ;

namespace gpumux::experiments {
namespace {

// Closes a descriptor when it leaves scope.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    reset(std::exchange(o.fd_, -1));
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

[[noreturn]] void fail(const std::string& what, int err) {
  throw ApiError(what + ": " + std::strerror(err));
}

// A pipe whose ends are closed in children (O_CLOEXEC), so processes spawned
// concurrently from other threads do not hold them open; posix_spawn's dup2
// onto 1 and 2 clears the flag on the child's copies.
std::array<Fd, 2> make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) fail("cannot create a pipe", errno);
  return {Fd(fds[0]), Fd(fds[1])};
}

// Reads both pipes until the child closes them (reading one at a time could
// deadlock when the child fills the other).
void drain(int out_fd, int err_fd, ProcessResult& r) {
  std::array<pollfd, 2> fds{pollfd{out_fd, POLLIN, 0}, pollfd{err_fd, POLLIN, 0}};
  std::array<std::string*, 2> sinks{&r.out, &r.err};
  int open = 2;
  std::array<char, 65536> buf;
  while (open > 0) {
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      fail("poll", errno);
    }
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t n = ::read(fds[i].fd, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) {
        sinks[i]->append(buf.data(), static_cast<size_t>(n));
      } else {
        fds[i].fd = -1;  // end of file (or an error: nothing more to read)
        --open;
      }
    }
  }
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) fail("waitpid", errno);
  }
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

// posix_spawn's file actions, destroyed with their scope.
struct FileActions {
  posix_spawn_file_actions_t a;
  FileActions() { posix_spawn_file_actions_init(&a); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  ~FileActions() { posix_spawn_file_actions_destroy(&a); }
};

// Errors of posix_spawnp that mean "this program cannot be executed" rather
// than "no process could be created".
bool is_exec_error(int e) {
  return e == ENOENT || e == EACCES || e == ENOEXEC || e == ENOTDIR || e == ELOOP || e == ENAMETOOLONG ||
         e == EPERM;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& output_file) {
  if (argv.empty()) throw ApiError("run_process: empty command");
  std::vector<char*> cargv;
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);

  FileActions fa;
  posix_spawn_file_actions_addopen(&fa.a, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  Fd file;
  std::array<Fd, 2> out_pipe, err_pipe;
  if (!output_file.empty()) {
    // Opened here rather than in the child, so a bad path is an error of ours.
    file.reset(::open(output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (file.get() < 0) fail("cannot open " + output_file.string(), errno);
    posix_spawn_file_actions_adddup2(&fa.a, file.get(), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa.a, file.get(), STDERR_FILENO);
  } else {
    out_pipe = make_pipe();
    err_pipe = make_pipe();
    posix_spawn_file_actions_adddup2(&fa.a, out_pipe[1].get(), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa.a, err_pipe[1].get(), STDERR_FILENO);
  }

  pid_t pid = 0;
  int e = ::posix_spawnp(&pid, cargv[0], &fa.a, nullptr, cargv.data(), environ);
  ProcessResult r;
  if (e != 0) {
    if (!is_exec_error(e)) fail("cannot start " + argv[0], e);
    r.exit_code = 127;
    std::string why = "cannot execute " + argv[0] + ": " + std::strerror(e) + "\n";
    if (file.get() >= 0) {
      if (::write(file.get(), why.data(), why.size()) < 0) fail("cannot write " + output_file.string(), errno);
    } else {
      r.err = why;
    }
    return r;
  }
  if (file.get() < 0) {
    out_pipe[1].reset();  // the child holds the write ends; EOF comes when it exits
    err_pipe[1].reset();
    drain(out_pipe[0].get(), err_pipe[0].get(), r);
  }
  r.exit_code = wait_for(pid);
  return r;
}

}  // namespace gpumux::experiments
