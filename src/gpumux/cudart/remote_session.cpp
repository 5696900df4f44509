// A program attached to `gpumux serve` (GPUMUX_SERVER): every device
// operation is a request over the server's Unix socket (serve/protocol.h),
// answered when the server has executed it in simulated time. Module
// metadata (kernel parameters and resources, for launches and attribute
// queries) comes from a copy of each module parsed here on a functional
// device with the server GPU's limits; device state lives on the server only.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/cudart/session.h"
#include "gpumux/gpu/gpu.h"
#include "gpumux/serve/protocol.h"
#include "gpumux/timing/timing_backend.h"

extern char** environ;

namespace gpumux::cudart {

namespace {

constexpr int kConnectAttempts = 200;  // 10 s in all
constexpr useconds_t kConnectRetryMicroseconds = 50000;

using serve::Op;
using serve::Reader;
using serve::Status;
using serve::Writer;

// The program's argv, from /proc/self/cmdline (NUL-separated).
std::vector<std::string> own_argv() {
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::string> argv;
  for (size_t start = 0; start < all.size();) {
    size_t end = all.find('\0', start);
    if (end == std::string::npos) end = all.size();
    argv.push_back(all.substr(start, end - start));
    start = end + 1;
  }
  if (argv.empty()) argv.push_back(program_invocation_name);
  return argv;
}

class RemoteSession final : public Session {
 public:
  explicit RemoteSession(const std::string& socket);
  const GpuConfig& config() const override { return config_; }
  const runtime::DeviceLimits& limits() const override { return meta_device_->limits(); }

  Module load_module(const std::string& ptx, const std::string& name) override {
    const runtime::Module& meta = meta_ctx_->load_module_string(ptx, name);  // LoadError here, before the server
    std::vector<uint8_t> r = call(Op::LoadModule, Writer().str(ptx).str(name));
    Reader in(r);
    uint32_t id = in.u32("module");
    in.end("LoadModule reply");
    return {id, &meta};
  }
  runtime::DevPtr symbol(uint32_t module, const std::string& name) override {
    return u64_reply(Op::Symbol, Writer().u32(module).str(name));
  }
  runtime::DevPtr malloc(uint64_t bytes) override { return u64_reply(Op::Malloc, Writer().u64(bytes)); }
  void free(runtime::DevPtr p) override { call(Op::Free, Writer().u64(p)); }
  bool is_device(runtime::DevPtr p) override { return u64_reply(Op::IsDevice, Writer().u64(p), true) != 0; }
  uint64_t bytes_allocated() override { return u64_reply(Op::BytesAllocated, Writer()); }
  void write(runtime::DevPtr dst, const void* src, uint64_t n) override {
    for (uint64_t done = 0; done < n;) {
      uint64_t chunk = std::min(n - done, serve::kMaxChunk);
      call(Op::Write, Writer().u64(dst + done).bytes(static_cast<const uint8_t*>(src) + done, chunk));
      done += chunk;
    }
  }
  void read(runtime::DevPtr src, void* dst, uint64_t n) override {
    for (uint64_t done = 0; done < n;) {
      uint64_t chunk = std::min(n - done, serve::kMaxChunk);
      std::vector<uint8_t> r = call(Op::Read, Writer().u64(src + done).u64(chunk));
      Reader in(r);
      std::string bytes = in.str("bytes");
      in.end("Read reply");
      if (bytes.size() != chunk) fail(fmt::format("Read returned {} bytes for {}", bytes.size(), chunk));
      std::memcpy(static_cast<uint8_t*>(dst) + done, bytes.data(), chunk);
      done += chunk;
    }
  }
  void fill(runtime::DevPtr dst, uint8_t value, uint64_t n) override { call(Op::Fill, Writer().u64(dst).u32(value).u64(n)); }
  void transfer(runtime::Transfer t, uint64_t bytes) override { call(Op::Transfer, Writer().u32(uint32_t(t)).u64(bytes)); }
  void paging(const runtime::Paging& p) override {
    call(Op::Paging, Writer().u32(uint32_t(p.kind)).u64(p.base).u64(p.bytes));
  }
  void launch(uint32_t module, const runtime::Kernel& k, runtime::Dim3 grid, runtime::Dim3 block, uint64_t smem,
              runtime::Stream s, const runtime::KernelArgs& args, bool cooperative, runtime::LaunchPath path) override {
    Writer w;
    w.u32(module).str(k.name()).u32(grid.x).u32(grid.y).u32(grid.z).u32(block.x).u32(block.y).u32(block.z);
    uint32_t flags = (cooperative ? serve::kLaunchCooperative : 0) |
                     (path == runtime::LaunchPath::GraphNode ? serve::kLaunchGraphNode : 0);
    w.u64(smem).u32(s.id).u32(flags).u32(uint32_t(args.args().size()));
    for (const auto& a : args.args()) w.bytes(a.bytes.data(), a.bytes.size());
    call(Op::Launch, w);
  }
  std::vector<uint32_t> device_sms() override {
    std::vector<uint8_t> r = call(Op::DeviceSms, Writer());
    Reader in(r);
    std::vector<uint32_t> sms = in.u32s("SMs");
    in.end("DeviceSms reply");
    return sms;
  }
  runtime::Stream create_stream(int priority, std::span<const uint32_t> sms) override {
    return {uint32_t(u64_reply(Op::CreateStream, Writer().i32(priority).u32s(sms), true)), priority};
  }
  runtime::Event create_event() override { return {uint32_t(u64_reply(Op::CreateEvent, Writer(), true))}; }
  void record(runtime::Event e, runtime::Stream s) override { call(Op::Record, Writer().u32(e.id).u32(s.id)); }
  void synchronize() override { call(Op::Synchronize, Writer()); }
  void event_synchronize(runtime::Event e) override { call(Op::EventSynchronize, Writer().u32(e.id)); }
  double event_elapsed_ms(runtime::Event a, runtime::Event b) override {
    std::vector<uint8_t> r = call(Op::EventElapsed, Writer().u32(a.id).u32(b.id));
    Reader in(r);
    double ms = in.f64("ms");
    in.end("EventElapsed reply");
    return ms;
  }
  uint64_t heap_limit() override { return u64_reply(Op::HeapLimit, Writer()); }
  void set_heap_limit(uint64_t bytes) override { call(Op::SetHeapLimit, Writer().u64(bytes)); }
  uint64_t malloc_array(const exec::ArrayDesc& d) override {
    Writer w;
    serve::put(w, d);
    return u64_reply(Op::MallocArray, w);
  }
  void free_array(uint64_t array) override { call(Op::FreeArray, Writer().u64(array)); }
  // An array copy is one request (its simulated transfer is one copy): at most kMaxChunk bytes.
  static Writer array_box(uint64_t array, uint64_t x_bytes, uint32_t y, uint32_t z, uint64_t width_bytes,
                          uint32_t height, uint32_t depth) {
    if (width_bytes > serve::kMaxChunk || uint64_t(height) * depth > serve::kMaxChunk ||
        width_bytes * height * depth > serve::kMaxChunk)
      throw ApiError(fmt::format("an array copy of {} x {} x {} bytes: under gpumux serve at most {} bytes per call",
                                 width_bytes, height, depth, serve::kMaxChunk));
    Writer w;
    w.u64(array).u64(x_bytes).u32(y).u32(z).u64(width_bytes).u32(height).u32(depth);
    return w;
  }
  void memcpy_to_array(uint64_t array, uint64_t x_bytes, uint32_t y, uint32_t z, const void* src, uint64_t pitch,
                       uint64_t width_bytes, uint32_t height, uint32_t depth) override {
    Writer w = array_box(array, x_bytes, y, z, width_bytes, height, depth);
    if (pitch < width_bytes) throw ApiError(fmt::format("source pitch {} < row width {}", pitch, width_bytes));
    std::string rows;
    for (uint64_t r = 0; r < uint64_t(height) * depth; ++r)
      rows.append(static_cast<const char*>(src) + r * pitch, width_bytes);
    call(Op::ToArray, w.str(rows));
  }
  void memcpy_from_array(void* dst, uint64_t pitch, uint64_t array, uint64_t x_bytes, uint32_t y, uint32_t z,
                         uint64_t width_bytes, uint32_t height, uint32_t depth) override {
    if (pitch < width_bytes) throw ApiError(fmt::format("destination pitch {} < row width {}", pitch, width_bytes));
    std::vector<uint8_t> r = call(Op::FromArray, array_box(array, x_bytes, y, z, width_bytes, height, depth));
    std::string rows;
    try {
      Reader in(r);
      rows = in.str("rows");
      in.end("FromArray reply");
    } catch (const serve::ProtocolError& e) {
      fail(e.what());
    }
    if (rows.size() != width_bytes * height * depth) fail("FromArray returned a wrong number of bytes");
    for (uint64_t k = 0; k < uint64_t(height) * depth; ++k)
      std::memcpy(static_cast<char*>(dst) + k * pitch, rows.data() + k * width_bytes, width_bytes);
  }
  uint64_t create_texture(const exec::TextureResource& r, const exec::TextureDesc& d) override {
    Writer w;
    serve::put(w, r);
    serve::put(w, d);
    return u64_reply(Op::CreateTexture, w);
  }
  void destroy_texture(uint64_t texture) override { call(Op::DestroyTexture, Writer().u64(texture)); }
  uint64_t create_surface(uint64_t array) override { return u64_reply(Op::CreateSurface, Writer().u64(array)); }
  void destroy_surface(uint64_t surface) override { call(Op::DestroySurface, Writer().u64(surface)); }
  void host_compute(double ns) override { call(Op::HostCompute, Writer().f64(ns)); }
  void reset() override {
    call(Op::Reset, Writer());
    meta_device_->destroy_context(*meta_ctx_);
    meta_ctx_ = &meta_device_->create_context(program_invocation_short_name);
  }
  void finish(int status) override {
    if (fd_ >= 0) call(Op::Goodbye, Writer().i32(status));
  }

 private:
  // Sends a request and returns the reply's payload; rethrows the server's error.
  std::vector<uint8_t> call(Op op, const Writer& w);
  uint64_t u64_reply(Op op, const Writer& w, bool u32 = false);
  [[noreturn]] void fail(const std::string& why);

  std::string socket_;
  int fd_ = -1;
  GpuConfig config_;
  std::unique_ptr<runtime::Device> meta_device_;
  runtime::Context* meta_ctx_ = nullptr;
};

void RemoteSession::fail(const std::string& why) {
  fmt::print(stderr, "gpumux: {}: gpumux server at {}: {}\n", program_invocation_short_name, socket_, why);
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  std::exit(1);  // a program cannot go on without its GPU
}

std::vector<uint8_t> RemoteSession::call(Op op, const Writer& w) {
  if (fd_ < 0) fail(fmt::format("{} after the connection was closed", serve::op_name(op)));
  if (!serve::send_frame(fd_, uint32_t(op), w.data())) fail(fmt::format("connection lost: cannot send {}", serve::op_name(op)));
  uint32_t status = 0;
  std::vector<uint8_t> payload;
  try {
    if (!serve::recv_frame(fd_, status, payload)) fail(fmt::format("the server closed the connection during {}", serve::op_name(op)));
    if (status == uint32_t(Status::Ok)) return payload;
    Reader in(payload);
    std::string message = in.str("message");
    switch (Status(status)) {
      case Status::ApiError:
        throw ApiError(message);
      case Status::LoadError:
        throw LoadError(message);
      case Status::DeviceFault:
        throw RemoteFault(message, in.str("description"));
      default:
        fail(fmt::format("{} refused: {}", serve::op_name(op), message));
    }
  } catch (const serve::ProtocolError& e) {
    fail(fmt::format("connection lost: {}", e.what()));
  }
}

uint64_t RemoteSession::u64_reply(Op op, const Writer& w, bool u32) {
  std::vector<uint8_t> r = call(op, w);
  try {
    Reader in(r);
    uint64_t v = u32 ? in.u32("value") : in.u64("value");
    in.end("reply");
    return v;
  } catch (const serve::ProtocolError& e) {
    fail(e.what());
  }
}

RemoteSession::RemoteSession(const std::string& socket) : socket_(socket) {
  // The server may still be starting (programs are often launched right after it): retry for a while.
  for (int attempt = 0; attempt < kConnectAttempts && fd_ < 0; ++attempt) {
    try {
      fd_ = serve::connect_unix(socket);
    } catch (const serve::ProtocolError& e) {
      fail(e.what());
    }
    if (fd_ < 0 && errno != ENOENT && errno != ECONNREFUSED) break;
    if (fd_ < 0) usleep(kConnectRetryMicroseconds);
  }
  if (fd_ < 0) fail(fmt::format("cannot connect: {} (is gpumux serve running?)", std::strerror(errno)));
  const char* app = std::getenv("GPUMUX_APP");
  std::vector<std::string> argv = own_argv();
  Writer hello;
  hello.u32(serve::kProtocolVersion).str(app && *app ? app : program_invocation_short_name);
  hello.u32(uint32_t(argv.size()));
  for (const std::string& a : argv) hello.str(a);
  char cwd[4096];
  hello.str(getcwd(cwd, sizeof cwd) ? cwd : ".");
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) env.push_back(*e);
  hello.u32(uint32_t(env.size()));
  for (const std::string& e : env) hello.str(e);
  std::vector<uint8_t> r = call(Op::Hello, hello);
  std::string gpu;
  std::vector<std::string> overrides;
  try {
    Reader in(r);
    gpu = in.str("gpu");
    uint32_t n = in.u32("override count");
    for (uint32_t i = 0; i < n; ++i) overrides.push_back(in.str("override"));
    in.end("Hello reply");
  } catch (const serve::ProtocolError& e) {
    fail(e.what());
  }
  try {
    config_ = gpu::load_config(gpu, overrides).values();
  } catch (const std::exception& e) {
    fail(fmt::format("the server's GPU config {}: {}", gpu, e.what()));
  }
  meta_device_ = std::make_unique<runtime::Device>(timing::limits_for(config_));
  meta_ctx_ = &meta_device_->create_context(program_invocation_short_name);
}

}  // namespace

std::unique_ptr<Session> make_remote_session(const std::string& socket) {
  return std::make_unique<RemoteSession>(socket);
}

}  // namespace gpumux::cudart
