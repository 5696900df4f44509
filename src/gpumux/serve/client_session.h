// The server side of one attached program (gpumux serve): executes its
// requests (protocol.h) on its own runtime::Context, one at a time, in the
// order the program sent them. It runs as the program's host thread under the
// multitask HostScheduler, so a request that waits on the GPU (a synchronize,
// a copy's transfer time) blocks in simulated time while the other programs
// run; while it waits for the program's next request, simulated time stands
// still. The GPU state is therefore a function of each program's request
// sequence only, whatever the real-time interleaving of the processes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "gpumux/runtime/runtime.h"
#include "gpumux/serve/protocol.h"

namespace gpumux::serve {

// What a program said in its Hello.
struct ClientHello {
  std::string name;               // the application it is (GPUMUX_APP)
  std::vector<std::string> argv;  // how to start it again (its isolated run)
  std::string cwd;
  std::vector<std::string> env;
};

// Reads and validates the Hello frame of a new connection (ProtocolError).
ClientHello read_hello(int fd);

class ClientSession {
 public:
  // `ctx` is the program's context; `reset` replaces it by a fresh one
  // (cudaDeviceReset) and returns it.
  ClientSession(int fd, runtime::Context& ctx, std::function<runtime::Context&()> reset);

  struct End {
    bool goodbye = false;  // the program said Goodbye; otherwise it vanished or broke the protocol
    int exit_status = 0;   // with Goodbye: the status it exits with
    std::string detail;
  };
  // Serves requests until Goodbye, the end of the connection or a protocol error.
  End run();

 private:
  void handle(Op op, Reader& in, Writer& out);
  const runtime::Module& module(uint32_t id) const;
  runtime::Stream stream(uint32_t id) const;
  runtime::Event event(uint32_t id) const;

  int fd_;
  runtime::Context* ctx_;
  std::function<runtime::Context&()> reset_;
  std::vector<const runtime::Module*> modules_;
  std::vector<runtime::Stream> streams_;  // index: stream id - 1
  uint32_t events_ = 0;                   // events created: ids 1..events_
};

}  // namespace gpumux::serve
