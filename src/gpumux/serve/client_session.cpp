#include "gpumux/serve/client_session.h"

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/exec/address_space.h"
#include "gpumux/exec/builtins/services.h"

namespace gpumux::serve {

namespace {

constexpr uint32_t kMaxStrings = 4096;  // argv and environment entries in a Hello

std::vector<std::string> strings(Reader& in, const char* field) {
  uint32_t n = in.u32(field);
  if (n > kMaxStrings) throw ProtocolError(fmt::format("Hello: {} {} entries (at most {})", n, field, kMaxStrings));
  std::vector<std::string> v;
  for (uint32_t i = 0; i < n; ++i) v.push_back(in.str(field));
  return v;
}

runtime::Dim3 dim3(Reader& in, const char* field) {
  uint32_t x = in.u32(field), y = in.u32(field), z = in.u32(field);
  return {x, y, z};
}

}  // namespace

ClientHello read_hello(int fd) {
  uint32_t code = 0;
  std::vector<uint8_t> payload;
  if (!recv_frame(fd, code, payload)) throw ProtocolError("the program closed the connection before its Hello");
  if (code != uint32_t(Op::Hello)) throw ProtocolError(fmt::format("expected Hello, got op {}", code));
  Reader in(payload);
  uint32_t version = in.u32("version");
  if (version != kProtocolVersion)
    throw ProtocolError(fmt::format("protocol version {} (this server speaks {}): rebuild the program's libcudart",
                                    version, kProtocolVersion));
  ClientHello h;
  h.name = in.str("name");
  h.argv = strings(in, "argv");
  h.cwd = in.str("cwd");
  h.env = strings(in, "env");
  in.end("Hello");
  if (h.name.empty()) throw ProtocolError("Hello: empty application name");
  if (h.argv.empty()) throw ProtocolError("Hello: empty argv");
  return h;
}

ClientSession::ClientSession(int fd, runtime::Context& ctx, std::function<runtime::Context&()> reset)
    : fd_(fd), ctx_(&ctx), reset_(std::move(reset)) {}

const runtime::Module& ClientSession::module(uint32_t id) const {
  if (id >= modules_.size()) throw ApiError(fmt::format("unknown module {}", id));
  return *modules_[id];
}

runtime::Stream ClientSession::stream(uint32_t id) const {
  if (id == 0) return {};
  if (id > streams_.size()) throw ApiError(fmt::format("unknown stream {}", id));
  return streams_[id - 1];
}

runtime::Event ClientSession::event(uint32_t id) const {
  if (id == 0 || id > events_) throw ApiError(fmt::format("unknown event {}", id));
  return {id};
}

void ClientSession::handle(Op op, Reader& in, Writer& out) {
  runtime::Context& ctx = *ctx_;
  switch (op) {
    case Op::LoadModule: {
      std::string ptx = in.str("ptx"), name = in.str("name");
      in.end("LoadModule");
      modules_.push_back(&ctx.load_module_string(ptx, name));
      out.u32(uint32_t(modules_.size() - 1));
      return;
    }
    case Op::Symbol: {
      uint32_t m = in.u32("module");
      std::string name = in.str("name");
      in.end("Symbol");
      out.u64(module(m).symbol(name));
      return;
    }
    case Op::Malloc: {
      uint64_t bytes = in.u64("bytes");
      in.end("Malloc");
      out.u64(ctx.malloc(bytes));
      return;
    }
    case Op::Free: {
      uint64_t p = in.u64("address");
      in.end("Free");
      ctx.free(p);
      return;
    }
    case Op::IsDevice: {
      uint64_t p = in.u64("address");
      in.end("IsDevice");
      out.u32(ctx.memory().find(p) != nullptr);
      return;
    }
    case Op::BytesAllocated:
      in.end("BytesAllocated");
      out.u64(ctx.memory().bytes_allocated());
      return;
    case Op::Write: {
      uint64_t p = in.u64("address");
      std::string bytes = in.str("bytes");
      in.end("Write");
      ctx.memory().write(p, bytes.data(), bytes.size());
      return;
    }
    case Op::Read: {
      uint64_t p = in.u64("address"), n = in.u64("count");
      in.end("Read");
      if (n > kMaxChunk) throw ProtocolError(fmt::format("Read of {} bytes (at most {} per request)", n, kMaxChunk));
      std::string bytes(n, '\0');
      ctx.memory().read(p, bytes.data(), n);
      out.str(bytes);
      return;
    }
    case Op::Fill: {
      uint64_t p = in.u64("address");
      uint32_t v = in.u32("value");
      uint64_t n = in.u64("count");
      in.end("Fill");
      ctx.memory().fill(p, uint8_t(v), n);
      return;
    }
    case Op::Transfer: {
      uint32_t kind = in.u32("kind");
      uint64_t bytes = in.u64("bytes");
      in.end("Transfer");
      if (kind > uint32_t(runtime::Transfer::Memset)) throw ProtocolError(fmt::format("Transfer kind {}", kind));
      ctx.device().backend().transfer(ctx, runtime::Transfer(kind), bytes);
      return;
    }
    case Op::Paging: {
      uint32_t kind = in.u32("kind");
      uint64_t p = in.u64("address");
      uint64_t n = in.u64("bytes");
      in.end("Paging");
      if (kind > runtime::Paging::kLastKind) throw ProtocolError(fmt::format("Paging kind {}", kind));
      ctx.paging({runtime::Paging::Kind(kind), p, n});
      return;
    }
    case Op::Launch: {
      uint32_t m = in.u32("module");
      std::string kernel = in.str("kernel");
      runtime::Dim3 grid = dim3(in, "grid"), block = dim3(in, "block");
      uint64_t smem = in.u64("dynamic shared bytes");
      runtime::Stream s = stream(in.u32("stream"));
      uint32_t flags = in.u32("launch flags");
      if (flags & ~(kLaunchCooperative | kLaunchGraphNode))
        throw ProtocolError(fmt::format("unknown launch flags {:#x}", flags));
      runtime::LaunchPath path =
          flags & kLaunchGraphNode ? runtime::LaunchPath::GraphNode : runtime::LaunchPath::Stream;
      uint32_t n = in.u32("argument count");
      runtime::KernelArgs args;
      for (uint32_t i = 0; i < n; ++i) {
        std::string a = in.str("argument");
        args.add_bytes(a.data(), a.size());
      }
      in.end("Launch");
      if (flags & kLaunchCooperative)
        ctx.launch_cooperative(module(m).kernel(kernel), grid, block, smem, s, args, path);
      else
        ctx.launch(module(m).kernel(kernel), grid, block, smem, s, args, path);
      return;
    }
    case Op::CreateStream: {
      int32_t priority = in.i32("priority");
      std::vector<uint32_t> sms = in.u32s("SMs");
      in.end("CreateStream");
      streams_.push_back(ctx.create_stream(priority, sms));
      out.u32(uint32_t(streams_.size()));
      return;
    }
    case Op::DeviceSms: {
      in.end("DeviceSms");
      out.u32s(ctx.device_sms());
      return;
    }
    case Op::CreateEvent:
      in.end("CreateEvent");
      events_ = ctx.create_event().id;  // ids count from 1 in each context
      out.u32(events_);
      return;
    case Op::Record: {
      runtime::Event e = event(in.u32("event"));
      runtime::Stream s = stream(in.u32("stream"));
      in.end("Record");
      ctx.record(e, s);
      return;
    }
    case Op::Synchronize:
      in.end("Synchronize");
      ctx.synchronize();
      return;
    case Op::EventSynchronize: {
      runtime::Event e = event(in.u32("event"));
      in.end("EventSynchronize");
      ctx.event_synchronize(e);
      return;
    }
    case Op::EventElapsed: {
      runtime::Event a = event(in.u32("start")), b = event(in.u32("end"));
      in.end("EventElapsed");
      out.f64(ctx.event_elapsed_ms(a, b));
      return;
    }
    case Op::HeapLimit:
      in.end("HeapLimit");
      out.u64(ctx.builtin_services().heap_limit);
      return;
    case Op::SetHeapLimit: {
      uint64_t v = in.u64("bytes");
      in.end("SetHeapLimit");
      ctx.set_device_heap_limit(v);
      return;
    }
    case Op::HostCompute: {
      double ns = in.f64("ns");
      in.end("HostCompute");
      ctx.host_compute(ns);
      return;
    }
    case Op::Reset:
      in.end("Reset");
      ctx_ = &reset_();
      modules_.clear();
      streams_.clear();
      events_ = 0;
      return;
    case Op::MallocArray: {
      exec::ArrayDesc d = get_array_desc(in);
      in.end("MallocArray");
      out.u64(ctx.malloc_array(d));
      return;
    }
    case Op::FreeArray: {
      uint64_t a = in.u64("array");
      in.end("FreeArray");
      ctx.free_array(a);
      return;
    }
    case Op::ToArray:
    case Op::FromArray: {
      uint64_t a = in.u64("array"), x = in.u64("x bytes");
      uint32_t y = in.u32("y"), z = in.u32("z");
      uint64_t width = in.u64("width bytes");
      uint32_t height = in.u32("height"), depth = in.u32("depth");
      if (width > kMaxChunk || uint64_t(height) * depth > kMaxChunk || width * height * depth > kMaxChunk)
        throw ProtocolError(fmt::format("{} of {} x {} x {} bytes (at most {})", op_name(op), width, height, depth,
                                        kMaxChunk));
      const uint64_t bytes = width * height * depth;
      if (op == Op::ToArray) {
        std::string rows = in.str("rows");
        in.end("ToArray");
        if (rows.size() != bytes)
          throw ProtocolError(fmt::format("ToArray: {} bytes for {} x {} x {}", rows.size(), width, height, depth));
        ctx.memcpy_to_array(a, x, y, z, rows.data(), width, width, height, depth);
      } else {
        in.end("FromArray");
        std::string rows(bytes, '\0');
        ctx.memcpy_from_array(rows.data(), width, a, x, y, z, width, height, depth);
        out.str(rows);
      }
      return;
    }
    case Op::CreateTexture: {
      exec::TextureResource r = get_texture_resource(in);
      exec::TextureDesc d = get_texture_desc(in);
      in.end("CreateTexture");
      out.u64(ctx.create_texture(r, d));
      return;
    }
    case Op::CreateSurface: {
      uint64_t a = in.u64("array");
      in.end("CreateSurface");
      out.u64(ctx.create_surface(a));
      return;
    }
    case Op::DestroyTexture:
    case Op::DestroySurface: {
      uint64_t h = in.u64("handle");
      in.end(op_name(op));
      op == Op::DestroyTexture ? ctx.destroy_texture(h) : ctx.destroy_surface(h);
      return;
    }
    case Op::Hello:
    case Op::Goodbye:
      break;
  }
  throw ProtocolError(fmt::format("unexpected {} request", op_name(op)));
}

ClientSession::End ClientSession::run() {
  std::vector<uint8_t> payload;
  for (;;) {
    uint32_t code = 0;
    try {
      if (!recv_frame(fd_, code, payload))
        return {false, 0, "the program disconnected without exiting normally (crashed or killed)"};
    } catch (const ProtocolError& e) {
      return {false, 0, fmt::format("connection lost: {}", e.what())};
    }
    if (code == uint32_t(Op::Goodbye)) {
      try {
        Reader in(payload);
        int status = in.i32("exit status");
        in.end("Goodbye");
        send_frame(fd_, uint32_t(Status::Ok), {});
        return {true, status, fmt::format("exited with status {}", status)};
      } catch (const ProtocolError& e) {
        send_frame(fd_, uint32_t(Status::ProtocolError), Writer().str(e.what()).data());
        return {false, 0, fmt::format("protocol error: {}", e.what())};
      }
    }
    Writer out;
    Status status = Status::Ok;
    try {
      if (code < 1 || code > kLastOp) throw ProtocolError(fmt::format("unknown request op {}", code));
      Reader in(payload);
      handle(Op(code), in, out);
    } catch (const ProtocolError& e) {
      send_frame(fd_, uint32_t(Status::ProtocolError), Writer().str(e.what()).data());
      return {false, 0, fmt::format("protocol error: {}", e.what())};
    } catch (const DeviceFault& e) {
      status = Status::DeviceFault;
      out = Writer().str(e.reason()).str(e.what());
    } catch (const LoadError& e) {
      status = Status::LoadError;
      out = Writer().str(e.what());
    } catch (const std::exception& e) {  // ApiError and the like: bad use of the API
      status = Status::ApiError;
      out = Writer().str(e.what());
    }
    if (!send_frame(fd_, uint32_t(status), out.data()))
      return {false, 0, "the program disconnected while waiting for a reply (crashed or killed)"};
  }
}

}  // namespace gpumux::serve
