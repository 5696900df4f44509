// The wire protocol between `gpumux serve` and the programs attached to it
// (docs/cuda-programs.md, "Protocol"): one Unix stream socket per program,
// synchronous requests and replies. A frame is a 16-byte header (u32 op or
// status, u32 zero, u64 payload length) and the payload, fields packed in the
// host's byte order (both ends are on one machine): u32, i32, u64, f64,
// byte strings as a u64 length plus the bytes, and lists of u32 as a u32
// count plus the values. Every frame is validated as it
// is read: an unknown op, a short or overlong payload or a length beyond
// kMaxPayload is a ProtocolError, never undefined behavior.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpumux/exec/texture.h"

namespace gpumux::serve {

inline constexpr uint32_t kProtocolVersion = 4;  // 2: Launch carries flags; 3: Paging; 4: streams on SMs, DeviceSms
// Largest payload a frame may carry; clients split larger copies.
inline constexpr uint64_t kMaxPayload = uint64_t(64) << 20;
inline constexpr uint64_t kMaxChunk = uint64_t(16) << 20;  // bytes of memory per Write/Read

// Requests; the comment gives the request's fields -> the reply's.
enum class Op : uint32_t {
  Hello = 1,        // u32 version, str name, u32 argc, str argv..., str cwd, u32 envc, str env... -> str gpu, u32 n, str override...
  LoadModule,       // str ptx, str name -> u32 module
  Symbol,           // u32 module, str name -> u64 address
  Malloc,           // u64 bytes -> u64 address
  Free,             // u64 address
  IsDevice,         // u64 address -> u32 (1: inside a live allocation)
  BytesAllocated,   // -> u64
  Write,            // u64 address, str bytes
  Read,             // u64 address, u64 count -> str bytes
  Fill,             // u64 address, u32 byte value, u64 count
  Transfer,         // u32 kind (runtime::Transfer), u64 bytes: the copy's simulated time
  Launch,           // u32 module, str kernel, u32 grid[3], u32 block[3], u64 dynamic smem, u32 stream,
                    //   u32 flags (kLaunch*), u32 nargs, str arg... (each argument's bytes)
  CreateStream,     // i32 priority, u32 n, u32 sm... (a green context's SMs; none: every SM) -> u32 stream
  CreateEvent,      // -> u32 event
  Record,           // u32 event, u32 stream
  Synchronize,      // waits for all the program's work
  EventSynchronize, // u32 event
  EventElapsed,     // u32 start, u32 end -> f64 ms
  HeapLimit,        // -> u64
  SetHeapLimit,     // u64
  HostCompute,      // f64 ns: a declared CPU phase
  Reset,            // cudaDeviceReset: a fresh context
  Goodbye,          // i32 exit status: the program exits through exit() or main's return
  MallocArray,      // array desc -> u64 array
  FreeArray,        // u64 array
  ToArray,          // u64 array, u64 x bytes, u32 y, u32 z, u64 width bytes, u32 height, u32 depth, str rows (dense)
  FromArray,        // u64 array, u64 x bytes, u32 y, u32 z, u64 width bytes, u32 height, u32 depth -> str rows
  CreateTexture,    // texture resource, texture desc -> u64 texture
  DestroyTexture,   // u64 texture
  CreateSurface,    // u64 array -> u64 surface
  DestroySurface,   // u64 surface
  Paging,           // u32 kind (runtime::Paging::Kind), u64 address, u64 bytes
  DeviceSms,        // -> u32 n, u32 sm... (the program's device's SMs, runtime::Context::device_sms; none: every SM)
};
inline constexpr uint32_t kLastOp = uint32_t(Op::DeviceSms);
// Flags of a Launch; other bits are a ProtocolError.
inline constexpr uint32_t kLaunchCooperative = 1;  // runtime::Context::launch_cooperative
inline constexpr uint32_t kLaunchGraphNode = 2;    // runtime::LaunchPath::GraphNode
const char* op_name(Op op);

// Reply statuses: what the request raised on the server.
enum class Status : uint32_t { Ok = 0, ApiError, LoadError, DeviceFault, ProtocolError };

class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Builds a payload.
class Writer {
 public:
  Writer& u32(uint32_t v) { return raw(&v, sizeof v); }
  Writer& i32(int32_t v) { return raw(&v, sizeof v); }
  Writer& u64(uint64_t v) { return raw(&v, sizeof v); }
  Writer& f64(double v) { return raw(&v, sizeof v); }
  Writer& bytes(const void* p, uint64_t n);
  Writer& str(const std::string& s) { return bytes(s.data(), s.size()); }
  Writer& u32s(std::span<const uint32_t> v);  // u32 count, then each
  const std::vector<uint8_t>& data() const { return data_; }

 private:
  Writer& raw(const void* p, size_t n);
  std::vector<uint8_t> data_;
};

// Reads a payload; every read is bounds-checked (ProtocolError naming the field).
class Reader {
 public:
  explicit Reader(const std::vector<uint8_t>& d) : data_(d) {}
  uint32_t u32(const char* field);
  int32_t i32(const char* field);
  uint64_t u64(const char* field);
  double f64(const char* field);
  std::string str(const char* field);
  std::vector<uint32_t> u32s(const char* field);  // Writer::u32s's list
  // Throws unless the whole payload was read.
  void end(const char* what) const;

 private:
  void raw(void* p, size_t n, const char* field);
  template <class T>
  T scalar(const char* field);
  const std::vector<uint8_t>& data_;
  size_t pos_ = 0;
};

// The texture descriptors (exec/texture.h) on the wire; the readers check
// every enumerator and count (ProtocolError).
void put(Writer& w, const exec::ArrayDesc& d);
void put(Writer& w, const exec::TextureResource& r);
void put(Writer& w, const exec::TextureDesc& d);
exec::ArrayDesc get_array_desc(Reader& in);
exec::TextureResource get_texture_resource(Reader& in);
exec::TextureDesc get_texture_desc(Reader& in);

// Blocking frame I/O on a connected socket. send_frame returns false when the
// peer is gone; recv_frame returns false on a clean end of stream before a
// frame and throws ProtocolError on a torn or invalid one.
bool send_frame(int fd, uint32_t code, const std::vector<uint8_t>& payload);
bool recv_frame(int fd, uint32_t& code, std::vector<uint8_t>& payload);

// Unix stream sockets at `path`.
int connect_unix(const std::string& path);  // -1 with errno on failure
int listen_unix(const std::string& path);   // throws std::runtime_error

}  // namespace gpumux::serve
