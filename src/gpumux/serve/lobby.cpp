#include "gpumux/serve/lobby.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpumux/core/error.h"

namespace gpumux::serve {

namespace {

// A connection that sends nothing must not hold up the acceptor for long.
constexpr int kHelloTimeoutSeconds = 10;

void set_receive_timeout(int fd, int seconds) {
  timeval tv{seconds, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

}  // namespace

Connection& Connection::operator=(Connection&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    hello_ = std::move(o.hello_);
    o.fd_ = -1;
  }
  return *this;
}

Connection::~Connection() {
  if (fd_ >= 0) ::close(fd_);
}

Connection greet(int fd, const ServedGpu& gpu, const std::vector<std::string>& expected) {
  Connection c(fd, {});  // closes the socket if the program is refused
  set_receive_timeout(fd, kHelloTimeoutSeconds);
  ClientHello h = read_hello(fd);
  set_receive_timeout(fd, 0);
  if (std::find(expected.begin(), expected.end(), h.name) == expected.end()) {
    std::string why = fmt::format("no application named '{}' is waiting to attach (waiting: {}); set GPUMUX_APP",
                                  h.name, fmt::join(expected, ", "));
    send_frame(fd, uint32_t(Status::ProtocolError), Writer().str(why).data());
    throw ProtocolError(why);
  }
  Writer reply;
  reply.str(gpu.gpu).u32(uint32_t(gpu.overrides.size()));
  for (const std::string& o : gpu.overrides) reply.str(o);
  if (!send_frame(fd, uint32_t(Status::Ok), reply.data())) throw ProtocolError("the program left during its Hello");
  c.set_hello(std::move(h));
  return c;
}

int accept_within(int listen_fd, double timeout_s) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return -1;
    pollfd p{listen_fd, POLLIN, 0};
    int r = ::poll(&p, 1, int(std::min<int64_t>(left.count(), 1000)));
    if (r <= 0) continue;  // timeout slice or EINTR
    int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) return fd;
  }
}

Lobby::Lobby(std::string socket_path, std::vector<std::string> apps, ServedGpu gpu)
    : path_(std::move(socket_path)), apps_(std::move(apps)), gpu_(std::move(gpu)) {
  listen_fd_ = listen_unix(path_);
  thread_ = std::thread([this] { accept_loop(); });
}

Lobby::~Lobby() {
  ::shutdown(listen_fd_, SHUT_RDWR);  // wakes the acceptor
  thread_.join();
  ::close(listen_fd_);
  ::unlink(path_.c_str());
}

void Lobby::accept_loop() {
  for (;;) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // shut down
    }
    try {
      std::vector<std::string> waiting;  // a second program with a name that attached is refused
      for (const std::string& a : apps_)
        if (std::find(seen_.begin(), seen_.end(), a) == seen_.end()) waiting.push_back(a);
      Connection c = greet(fd, gpu_, waiting);
      std::lock_guard lock(mutex_);
      seen_.push_back(c.hello().name);
      parked_.emplace(c.hello().name, std::move(c));
      cv_.notify_all();
    } catch (const ProtocolError& e) {
      fmt::print(stderr, "gpumux serve: refused a connection: {}\n", e.what());
    }
  }
}

Connection Lobby::take(const std::string& name, double timeout_s) {
  std::unique_lock lock(mutex_);
  if (!cv_.wait_for(lock, std::chrono::duration<double>(timeout_s), [&] { return parked_.count(name) > 0; }))
    throw ApiError(fmt::format("no program attached as '{}' within {} s (start it with GPUMUX_SERVER={} GPUMUX_APP={})",
                               name, timeout_s, path_, name));
  Connection c = std::move(parked_.at(name));
  parked_.erase(name);
  return c;
}

}  // namespace gpumux::serve
