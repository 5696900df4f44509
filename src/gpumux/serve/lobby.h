// Where programs attach to gpumux serve: a thread accepts connections on the
// server's Unix socket, reads each program's Hello and parks the connection
// under its application name until the simulation starts serving that
// application. Which connection is which application is decided by the name
// (GPUMUX_APP), never by the order in which programs connect, so the run
// does not depend on how the processes race.
#pragma once

#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gpumux/serve/client_session.h"

namespace gpumux::serve {

// An open connection whose program has said Hello; closes its socket.
class Connection {
 public:
  Connection() = default;
  Connection(int fd, ClientHello hello) : fd_(fd), hello_(std::move(hello)) {}
  Connection(Connection&& o) noexcept : fd_(o.fd_), hello_(std::move(o.hello_)) { o.fd_ = -1; }
  Connection& operator=(Connection&& o) noexcept;
  ~Connection();
  int fd() const { return fd_; }
  const ClientHello& hello() const { return hello_; }
  void set_hello(ClientHello h) { hello_ = std::move(h); }

 private:
  int fd_ = -1;
  ClientHello hello_;
};

// The Hello reply: the GPU config the program's runtime reports (device
// properties), as a preset or file and its overrides.
struct ServedGpu {
  std::string gpu;
  std::vector<std::string> overrides;
};

// Reads the Hello of a new connection and replies; a name not in `expected`
// gets a ProtocolError reply naming the expected ones (and a ProtocolError here).
Connection greet(int fd, const ServedGpu& gpu, const std::vector<std::string>& expected);

class Lobby {
 public:
  // Listens on `socket_path` (replacing a stale socket file) for the applications named `apps`.
  Lobby(std::string socket_path, std::vector<std::string> apps, ServedGpu gpu);
  ~Lobby();  // stops accepting and removes the socket file
  Lobby(const Lobby&) = delete;
  Lobby& operator=(const Lobby&) = delete;

  // Blocks in real time until application `name` has attached; ApiError
  // after `timeout_s` seconds. Each application is taken once.
  Connection take(const std::string& name, double timeout_s);

 private:
  void accept_loop();

  std::string path_;
  std::vector<std::string> apps_;
  ServedGpu gpu_;
  int listen_fd_ = -1;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<std::string, Connection> parked_;
  std::vector<std::string> seen_;  // names that attached (only the acceptor thread writes it)
  std::thread thread_;
};

// Accepts one connection on `listen_fd` within `timeout_s` seconds (-1 on timeout).
int accept_within(int listen_fd, double timeout_s);

}  // namespace gpumux::serve
