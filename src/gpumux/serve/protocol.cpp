#include "gpumux/serve/protocol.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace gpumux::serve {

const char* op_name(Op op) {
  static constexpr const char* kNames[] = {"Hello",        "LoadModule",  "Symbol",     "Malloc",
                                           "Free",         "IsDevice",    "BytesAllocated", "Write",
                                           "Read",         "Fill",        "Transfer",   "Launch",
                                           "CreateStream", "CreateEvent", "Record",     "Synchronize",
                                           "EventSynchronize", "EventElapsed", "HeapLimit", "SetHeapLimit",
                                           "HostCompute",  "Reset",       "Goodbye",    "MallocArray",
                                           "FreeArray",    "ToArray",     "FromArray",  "CreateTexture",
                                           "DestroyTexture", "CreateSurface", "DestroySurface", "Paging",
                                           "DeviceSms"};
  static_assert(std::size(kNames) == kLastOp);
  uint32_t i = uint32_t(op);
  return i >= 1 && i <= kLastOp ? kNames[i - 1] : "unknown";
}

Writer& Writer::raw(const void* p, size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  data_.insert(data_.end(), b, b + n);
  return *this;
}

Writer& Writer::bytes(const void* p, uint64_t n) {
  u64(n);
  return raw(p, n);
}

Writer& Writer::u32s(std::span<const uint32_t> v) {
  u32(uint32_t(v.size()));
  for (uint32_t x : v) u32(x);
  return *this;
}

void Reader::raw(void* p, size_t n, const char* field) {
  if (n > data_.size() - pos_)
    throw ProtocolError(fmt::format("truncated message: field '{}' needs {} bytes, {} left", field, n,
                                    data_.size() - pos_));
  std::memcpy(p, data_.data() + pos_, n);
  pos_ += n;
}

template <class T>
T Reader::scalar(const char* field) {
  T v;
  raw(&v, sizeof v, field);
  return v;
}
uint32_t Reader::u32(const char* field) { return scalar<uint32_t>(field); }
int32_t Reader::i32(const char* field) { return scalar<int32_t>(field); }
uint64_t Reader::u64(const char* field) { return scalar<uint64_t>(field); }
double Reader::f64(const char* field) { return scalar<double>(field); }

std::vector<uint32_t> Reader::u32s(const char* field) {
  std::vector<uint32_t> v;
  for (uint32_t n = u32(field); v.size() < n;) v.push_back(u32(field));  // a short payload throws
  return v;
}

std::string Reader::str(const char* field) {
  uint64_t n = u64(field);
  if (n > data_.size() - pos_)
    throw ProtocolError(fmt::format("truncated message: field '{}' of {} bytes, {} left", field, n, data_.size() - pos_));
  std::string s(reinterpret_cast<const char*>(data_.data() + pos_), n);
  pos_ += n;
  return s;
}

void Reader::end(const char* what) const {
  if (pos_ != data_.size())
    throw ProtocolError(fmt::format("{}: {} unexpected trailing bytes", what, data_.size() - pos_));
}

namespace {

// An enumerator read from the wire, checked against its last value.
template <class E>
E enumerator(Reader& in, const char* field, E last) {
  uint32_t v = in.u32(field);
  if (v > uint32_t(last)) throw ProtocolError(fmt::format("{} {} is out of range", field, v));
  return E(v);
}

void put_format(Writer& w, const exec::ChannelFormat& f) { w.u32(f.channels).u32(f.bits).u32(uint32_t(f.kind)); }

exec::ChannelFormat get_format(Reader& in) {
  exec::ChannelFormat f;
  uint32_t channels = in.u32("channels"), bits = in.u32("bits");
  if (channels > 255 || bits > 255) throw ProtocolError(fmt::format("channel format {} x {} bits", channels, bits));
  f.channels = uint8_t(channels);
  f.bits = uint8_t(bits);
  f.kind = enumerator(in, "channel kind", exec::ChannelKind::Float);
  return f;  // the texture unit checks the combination (ApiError)
}

}  // namespace

void put(Writer& w, const exec::ArrayDesc& d) {
  put_format(w, d.format);
  w.u32(d.width).u32(d.height).u32(d.depth).u32(d.layered).u32(d.cubemap);
}

exec::ArrayDesc get_array_desc(Reader& in) {
  exec::ArrayDesc d;
  d.format = get_format(in);
  d.width = in.u32("width");
  d.height = in.u32("height");
  d.depth = in.u32("depth");
  d.layered = enumerator(in, "layered", 1u) != 0;
  d.cubemap = enumerator(in, "cubemap", 1u) != 0;
  return d;
}

void put(Writer& w, const exec::TextureResource& r) {
  w.u32(uint32_t(r.kind)).u64(r.array).u64(r.ptr);
  put_format(w, r.format);
  w.u64(r.size_bytes).u32(r.width).u32(r.height).u64(r.pitch);
}

exec::TextureResource get_texture_resource(Reader& in) {
  exec::TextureResource r;
  r.kind = enumerator(in, "resource kind", exec::ResourceKind::Pitch2D);
  r.array = in.u64("array");
  r.ptr = in.u64("pointer");
  r.format = get_format(in);
  r.size_bytes = in.u64("size");
  r.width = in.u32("width");
  r.height = in.u32("height");
  r.pitch = in.u64("pitch");
  return r;
}

void put(Writer& w, const exec::TextureDesc& d) {
  for (exec::AddressMode m : d.address) w.u32(uint32_t(m));
  w.u32(uint32_t(d.filter)).u32(uint32_t(d.read)).u32(d.normalized_coords);
  for (float b : d.border) w.f64(b);
}

exec::TextureDesc get_texture_desc(Reader& in) {
  exec::TextureDesc d;
  for (exec::AddressMode& m : d.address) m = enumerator(in, "address mode", exec::AddressMode::Border);
  d.filter = enumerator(in, "filter mode", exec::FilterMode::Linear);
  d.read = enumerator(in, "read mode", exec::ReadMode::NormalizedFloat);
  d.normalized_coords = enumerator(in, "normalized", 1u) != 0;
  for (float& b : d.border) b = float(in.f64("border"));
  return d;
}

namespace {

struct Header {
  uint32_t code, zero;
  uint64_t length;
};

// 0: end of stream before any byte; 1: all read; throws on a torn read.
int read_all(int fd, void* p, size_t n, bool eof_ok) {
  auto* b = static_cast<uint8_t*>(p);
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::read(fd, b + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && errno != ECONNRESET) throw ProtocolError(fmt::format("read failed: {}", std::strerror(errno)));
    if (r <= 0) {
      if (got == 0 && eof_ok) return 0;
      throw ProtocolError(fmt::format("connection closed in the middle of a message ({} of {} bytes)", got, n));
    }
    got += size_t(r);
  }
  return 1;
}

bool write_all(int fd, const void* p, size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  while (n) {
    ssize_t w = ::send(fd, b, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    b += w;
    n -= size_t(w);
  }
  return true;
}

sockaddr_un unix_address(const std::string& path) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof a.sun_path)
    throw ProtocolError(fmt::format("socket path '{}' is empty or longer than {} bytes", path, sizeof a.sun_path - 1));
  std::memcpy(a.sun_path, path.data(), path.size());
  return a;
}

}  // namespace

bool send_frame(int fd, uint32_t code, const std::vector<uint8_t>& payload) {
  Header h{code, 0, payload.size()};
  return write_all(fd, &h, sizeof h) && write_all(fd, payload.data(), payload.size());
}

bool recv_frame(int fd, uint32_t& code, std::vector<uint8_t>& payload) {
  Header h;
  if (!read_all(fd, &h, sizeof h, true)) return false;
  if (h.zero != 0 || h.length > kMaxPayload)
    throw ProtocolError(fmt::format("invalid frame header (code {}, reserved {}, length {}; at most {})", h.code,
                                    h.zero, h.length, kMaxPayload));
  code = h.code;
  payload.resize(h.length);
  if (h.length) read_all(fd, payload.data(), h.length, false);
  return true;
}

int connect_unix(const std::string& path) {
  sockaddr_un a = unix_address(path);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    int e = errno;
    ::close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

int listen_unix(const std::string& path) {
  sockaddr_un a = unix_address(path);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(fmt::format("socket: {}", std::strerror(errno)));
  ::unlink(path.c_str());
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 64) != 0) {
    int e = errno;
    ::close(fd);
    throw std::runtime_error(fmt::format("cannot listen on {}: {}", path, std::strerror(e)));
  }
  return fd;
}

}  // namespace gpumux::serve
