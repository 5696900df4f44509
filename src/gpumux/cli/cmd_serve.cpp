// gpumux serve: one simulated GPU shared by CUDA programs started as separate
// processes (docs/cuda-programs.md, "Several programs on one GPU").
//
//   gpumux serve WORKLOAD [--socket PATH] [--json FILE] [--timeline FILE] [--set k=v] [--no-baselines]
//   GPUMUX_SERVER=PATH GPUMUX_APP=NAME LD_LIBRARY_PATH=build/cudart ./app args...
//
// The workload file gives the GPU, the sharing policy and one [[app]] per
// program, by name (multitask/workload_file.h, attached = true). Each
// application is a task of the multitask runner whose host program is served
// over the socket; when all have ended the summary is that of gpumux run,
// with the isolated runs made by starting each program again, alone, against
// a private socket with its own argv, folder and environment.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpumux/cli/commands.h"
#include "gpumux/core/error.h"
#include "gpumux/gpu/gpu.h"
#include "gpumux/multitask/runner.h"
#include "gpumux/serve/client_session.h"
#include "gpumux/serve/lobby.h"
#include "gpumux/serve/protocol.h"

namespace gpumux::cli {
namespace {

namespace fs = std::filesystem;

struct ServeOptions {
  std::string workload;
  std::string socket = "gpumux.sock";
  std::string json, timeline;
  std::vector<std::string> overrides;
  bool no_baselines = false;
  double attach_timeout = 60;
};

// A program started by the server for an isolated run: its process and the
// private socket it attaches to.
class AloneProgram {
 public:
  AloneProgram(const serve::ClientHello& h, const std::string& dir) : socket_(dir + "/" + "alone.sock") {
    listen_fd_ = serve::listen_unix(socket_);
    std::vector<std::string> env;
    for (const std::string& e : h.env)
      if (!e.starts_with("GPUMUX_SERVER=") && !e.starts_with("GPUMUX_APP=")) env.push_back(e);
    env.push_back("GPUMUX_SERVER=" + socket_);
    env.push_back("GPUMUX_APP=" + h.name);
    std::vector<char*> argv, envp;
    for (const std::string& a : h.argv) argv.push_back(const_cast<char*>(a.c_str()));
    for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    argv.push_back(nullptr);
    envp.push_back(nullptr);
    std::fflush(stdout);
    pid_ = fork();
    if (pid_ < 0) throw ApiError("fork failed");
    if (pid_ == 0) {  // its output would repeat the shared run's: only its errors are shown
      // Only async-signal-safe calls between fork and exec: the server has other threads.
      int null = open("/dev/null", O_WRONLY);
      if (chdir(h.cwd.c_str()) != 0 || null < 0 || dup2(null, STDOUT_FILENO) < 0) _exit(126);
      execvpe(argv[0], argv.data(), envp.data());
      _exit(127);
    }
  }
  ~AloneProgram() {
    ::close(listen_fd_);
    ::unlink(socket_.c_str());
    if (pid_ > 0) {
      kill(pid_, SIGKILL);  // already gone unless it broke off
      waitpid(pid_, nullptr, 0);
    }
  }
  serve::Connection attach(const serve::ServedGpu& gpu, const std::string& name, double timeout_s) {
    int fd = serve::accept_within(listen_fd_, timeout_s);
    if (fd < 0) throw ApiError(fmt::format("its isolated run did not attach within {} s", timeout_s));
    return serve::greet(fd, gpu, {name});
  }
  // Waits for the program's exit; its status as a message (empty: exit 0).
  std::string wait() {
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0)
      if (errno != EINTR) return "waitpid failed";
    pid_ = -1;
    if (WIFSIGNALED(status)) return fmt::format("killed by signal {}", WTERMSIG(status));
    return WEXITSTATUS(status) ? fmt::format("exit status {}", WEXITSTATUS(status)) : "";
  }

 private:
  std::string socket_;
  int listen_fd_ = -1;
  pid_t pid_ = -1;
};

class Server {
 public:
  Server(const ServeOptions& o, serve::ServedGpu gpu, const multitask::WorkloadFile& w)
      : o_(o), gpu_(std::move(gpu)), lobby_(o.socket, names(w), gpu_) {
    char tmpl[] = "/tmp/gpumux-serve-XXXXXX";
    if (!mkdtemp(tmpl)) throw ApiError("cannot create a temporary folder for the isolated runs");
    private_dir_ = tmpl;
  }
  ~Server() {
    std::error_code ec;
    fs::remove_all(private_dir_, ec);
  }

  workloads::CheckResult serve(const multitask::AppSpec& app, bool alone, multitask::AppContext& c) {
    std::unique_ptr<AloneProgram> program;
    serve::Connection conn;
    if (alone) {
      auto it = hellos_.find(app.name);
      if (it == hellos_.end()) throw ApiError(fmt::format("{} never attached: no isolated run", app.name));
      program = std::make_unique<AloneProgram>(it->second, private_dir_);
      conn = program->attach(gpu_, app.name, o_.attach_timeout);
    } else {
      conn = lobby_.take(app.name, o_.attach_timeout);
      hellos_[app.name] = conn.hello();
      fmt::print(stderr, "gpumux serve: {} attached ({})\n", app.name, conn.hello().argv[0]);
      c.environment(conn.hello().env);
    }
    serve::ClientSession session(conn.fd(), *c.ctx, c.reset);
    serve::ClientSession::End end = session.run();
    if (!end.goodbye) {
      std::string why = fmt::format("detached: {}", end.detail);
      if (!alone) fmt::print(stderr, "gpumux serve: {} {}; its work is dropped, the others run on\n", app.name, why);
      throw ApiError(why);
    }
    if (program) {
      conn = {};  // closes the socket, so that the program can end
      if (std::string status = program->wait(); !status.empty())
        throw ApiError(fmt::format("the isolated run ended with {}", status));
    }
    // The program's own checks failed (or it failed otherwise): the application did not pass.
    if (end.exit_status != 0) return {false, end.detail};
    return {true, end.detail};
  }

 private:
  static std::vector<std::string> names(const multitask::WorkloadFile& w) {
    std::vector<std::string> v;
    for (const multitask::AppSpec& a : w.apps) v.push_back(a.name);
    return v;
  }
  const ServeOptions& o_;
  serve::ServedGpu gpu_;
  serve::Lobby lobby_;
  std::string private_dir_;
  std::map<std::string, serve::ClientHello> hellos_;  // by application, from the shared run
};

// Demand paging's counters per program (docs/cuda-programs.md, "Managed memory
// under demand paging"), summed over the program's statistics keys.
std::string paging_summary(const multitask::RunResult& r) {
  const nlohmann::json* vm = r.stats.is_object() ? &r.stats.at("stats") : nullptr;
  if (!vm || !vm->contains("vm") || !vm->at("vm").contains("faults")) return "";
  vm = &vm->at("vm");
  auto of_app = [&](const char* stat, size_t app) {
    uint64_t n = 0;
    const nlohmann::json& by_key = vm->at(stat).at("by_key");
    for (const nlohmann::json& k : r.stats.at("keys"))
      if (k.at("app").get<size_t>() == app && by_key.contains(k.at("label").get<std::string>()))
        n += by_key.at(k.at("label").get<std::string>()).get<uint64_t>();
    return n;
  };
  std::string s;
  for (size_t i = 0; i < r.apps.size(); ++i)
    s += fmt::format("{}: paging: {} faults ({} allocation-only), {} bytes migrated by faults, {} prefetched, "
                     "{} evictions, {} bytes written back\n",
                     r.apps[i].name, of_app("faults", i), of_app("allocation_faults", i), of_app("migrated_bytes", i),
                     of_app("prefetched_bytes", i), of_app("evictions", i), of_app("written_back_bytes", i));
  return s;
}

void run_serve(const ServeOptions& o) {
  multitask::WorkloadFile w = multitask::load_workload_file(o.workload, true);
  w.overrides.insert(w.overrides.end(), o.overrides.begin(), o.overrides.end());
  Config config = gpu::load_config(w.gpu, w.overrides);  // bad overrides fail before anyone attaches
  if (config.values().sm.warp_scheduler == "ka-fair" || w.warp_scheduler == "ka-fair")
    throw ApiError("sm.warp_scheduler ka-fair needs each program's isolated run before the shared one; gpumux serve "
                   "makes isolated runs after it");
  std::string gpu = w.gpu;
  if (gpu.find('/') != std::string::npos || gpu.ends_with(".toml")) gpu = fs::absolute(gpu).string();
  Server server(o, {gpu, w.overrides}, w);
  fmt::print(stderr, "gpumux serve: {} on {}, policy {}: waiting for {} programs on {}\n", o.workload,
             config.values().gpu.name, w.policy, w.apps.size(), o.socket);
  std::unique_ptr<stats::Timeline> timeline;
  if (!o.timeline.empty()) timeline = std::make_unique<stats::Timeline>();
  multitask::RunOptions ro;
  ro.baselines = !o.no_baselines;
  ro.use_cache = false;  // a program can change between runs: its isolated run is made every time
  ro.timeline = timeline.get();
  ro.progress = isatty(STDERR_FILENO) ? stderr : nullptr;
  ro.attached = [&](const multitask::AppSpec& a, bool alone, multitask::AppContext& c) {
    return server.serve(a, alone, c);
  };
  multitask::RunResult r = multitask::run_workload(w, ro);
  fmt::print("{}", multitask::format_summary(r));
  if (config.values().vm.demand_paging) fmt::print("{}", paging_summary(r));
  if (!r.all_passed()) exit_code() = 1;
  if (!o.json.empty()) {
    std::ofstream f(o.json);
    f << multitask::to_json(std::move(r)).dump(1) << "\n";
    if (!f) throw ApiError(fmt::format("cannot write {}", o.json));
  }
  if (timeline) timeline->write(o.timeline);
}

}  // namespace

void add_serve_commands(CLI::App& app) {
  auto o = std::make_shared<ServeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "serve", "Run one simulated GPU shared by CUDA programs that attach over a Unix socket (GPUMUX_SERVER)");
  cmd->add_option("workload", o->workload, "Workload file: gpu, policy, [run] max_cycles and one [[app]] per program")
      ->required();
  cmd->add_option("-s,--socket", o->socket, "Unix socket the programs attach to (GPUMUX_SERVER)")->capture_default_str();
  cmd->add_option("--json", o->json, "Write the run (apps, kernels, copies, metrics, statistics) as JSON to this file");
  cmd->add_option("--timeline", o->timeline, "Write a Perfetto/Chrome trace-event timeline to this file");
  cmd->add_option("--set", o->overrides, "Config override path.key=value (repeatable)");
  cmd->add_flag("--no-baselines", o->no_baselines, "Skip the isolated runs (no NTT/STP/ANTT)");
  cmd->add_option("--attach-timeout", o->attach_timeout, "Seconds (real time) a program may take to attach")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 86400.0));
  cmd->callback([o] { run_serve(*o); });
}

}  // namespace gpumux::cli
