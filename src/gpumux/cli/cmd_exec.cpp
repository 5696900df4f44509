// gpumux exec: runs an unmodified CUDA program (built with nvcc -cudart
// shared) on the simulated GPU by loading gpumux's libcudart.so.13 instead of
// NVIDIA's (docs/cuda-programs.md).
//
//   gpumux exec [--config PRESET_OR_FILE] [--json FILE] [--timeline FILE] -- ./app args...
//
// The program's own output is untouched; the library prints a summary of the
// simulated run (kernels, cycles) to stderr when the program exits. The exit
// code is the program's (128 + signal if it was killed).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpumux/cli/commands.h"
#include "gpumux/core/error.h"
#include "gpumux/gpu/gpu.h"

namespace gpumux::cli {
namespace {

namespace fs = std::filesystem;

constexpr char kLibrary[] = "libcudart.so.13";

struct ExecOptions {
  std::string config = "gtx980";
  std::string json, timeline;
  std::vector<std::string> command;
};

// The folder holding the built library: build/cudart beside build/gpumux, or
// lib/gpumux of an installation.
fs::path library_dir() {
  fs::path bin = fs::read_symlink("/proc/self/exe").parent_path();
  for (const fs::path& dir : {bin / "cudart", bin.parent_path() / "lib" / "gpumux"})
    if (fs::exists(dir / kLibrary)) return dir;
  throw ApiError(fmt::format("{} not found in {}/cudart or {}/lib/gpumux (build the gpumux_cudart target)", kLibrary,
                             bin.string(), bin.parent_path().string()));
}

// The program file: a path, or a name looked up in PATH like execvp does.
fs::path program_file(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    fs::path candidate = fs::path(dirs.substr(start, end - start)) / name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  throw ApiError(fmt::format("{}: command not found", name));
}

// A program linked with the static CUDA runtime (nvcc's default) would never
// load gpumux's library: refuse it with the fix instead. Scripts (not ELF)
// run as they are: the programs they start inherit the environment.
void check_links_shared_cudart(const fs::path& program) {
  std::ifstream f(program, std::ios::binary);
  if (!f) throw ApiError(fmt::format("{}: cannot open", program.string()));
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (bytes.starts_with("\x7f" "ELF") && bytes.find(kLibrary) == std::string::npos)
    throw ApiError(fmt::format("{} does not load {}: build it with nvcc -cudart shared -arch=compute_80",
                               program.string(), kLibrary));
}

void set_env(const char* name, const std::string& value) {
  if (setenv(name, value.c_str(), 1) != 0) throw ApiError(fmt::format("cannot set {}", name));
}

int run_exec(const ExecOptions& o) {
  gpu::load_config(o.config);  // a bad preset or file fails here, before the program starts
  bool is_file = o.config.find('/') != std::string::npos || o.config.ends_with(".toml");
  fs::path program = program_file(o.command[0]);
  check_links_shared_cudart(program);
  const char* old_path = std::getenv("LD_LIBRARY_PATH");
  set_env("LD_LIBRARY_PATH", library_dir().string() + (old_path && *old_path ? std::string(":") + old_path : ""));
  set_env("GPUMUX_CONFIG", is_file ? fs::absolute(o.config).string() : o.config);
  set_env("GPUMUX_SUMMARY", "1");
  // A progress line on a terminal only (every 0.5 s unless GPUMUX_PROGRESS
  // gives the seconds): logs and pipes get the summary alone.
  if (!isatty(STDERR_FILENO))
    unsetenv("GPUMUX_PROGRESS");
  else if (const char* p = std::getenv("GPUMUX_PROGRESS"); !p || !*p)
    set_env("GPUMUX_PROGRESS", "0.5");
  if (!o.json.empty()) set_env("GPUMUX_JSON", fs::absolute(o.json).string());
  if (!o.timeline.empty()) set_env("GPUMUX_TIMELINE", fs::absolute(o.timeline).string());
  std::vector<char*> argv;
  for (const std::string& a : o.command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) throw ApiError("fork failed");
  if (pid == 0) {
    execv(program.c_str(), argv.data());
    fmt::print(stderr, "gpumux: cannot run {}\n", program.string());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw ApiError("waitpid failed");
  }
  if (WIFSIGNALED(status)) {
    fmt::print(stderr, "gpumux: {} was killed by signal {}\n", o.command[0], WTERMSIG(status));
    return 128 + WTERMSIG(status);
  }
  return WEXITSTATUS(status);
}

}  // namespace

void add_exec_commands(CLI::App& app) {
  auto o = std::make_shared<ExecOptions>();
  CLI::App* exec = app.add_subcommand("exec", "Run a CUDA program built with nvcc -cudart shared on the simulated GPU");
  exec->add_option("-c,--config", o->config, "GPU preset name or config file (TOML)")->capture_default_str();
  exec->add_option("--json", o->json, "Write the run's kernels and cycles as JSON to this file");
  exec->add_option("--timeline", o->timeline, "Write a Perfetto timeline (kernels per stream, copies) to this file");
  exec->add_option("command", o->command, "The program and its arguments (after --)")->required()->expected(-1);
  exec->callback([o] { exit_code() = run_exec(*o); });
}

}  // namespace gpumux::cli
