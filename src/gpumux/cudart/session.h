// Where the runtime's device work goes. A LocalSession owns a simulated GPU
// inside the program (gpumux exec, or LD_LIBRARY_PATH alone); a
// RemoteSession forwards the work to the GPU of `gpumux serve`, shared with
// other programs, when GPUMUX_SERVER names its socket. Runtime (state.h)
// and the entry points see only this interface. Errors are thrown as the
// simulator throws them (ApiError, LoadError, DeviceFault, RemoteFault).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>

#include "gpumux/core/config.h"
#include "gpumux/runtime/runtime.h"

namespace gpumux::cudart {

// A device fault of a kernel run by the server: its reason, for the CUDA
// error code, and its full description.
struct RemoteFault : std::runtime_error {
  RemoteFault(std::string reason_, const std::string& what) : std::runtime_error(what), reason(std::move(reason_)) {}
  std::string reason;
};

class Session {
 public:
  virtual ~Session() = default;
  virtual const GpuConfig& config() const = 0;
  virtual const runtime::DeviceLimits& limits() const = 0;

  // A loaded module: `id` names it in launches and symbol lookups; `meta` is
  // the module parsed in this process, for kernel metadata (parameters, resources).
  struct Module {
    uint32_t id;
    const runtime::Module* meta;
  };
  virtual Module load_module(const std::string& ptx, const std::string& name) = 0;
  virtual runtime::DevPtr symbol(uint32_t module, const std::string& name) = 0;

  virtual runtime::DevPtr malloc(uint64_t bytes) = 0;
  virtual void free(runtime::DevPtr p) = 0;
  virtual bool is_device(runtime::DevPtr p) = 0;
  virtual uint64_t bytes_allocated() = 0;
  // Raw device memory access (no simulated time); transfer() then spends a copy's time.
  virtual void write(runtime::DevPtr dst, const void* src, uint64_t n) = 0;
  virtual void read(runtime::DevPtr src, void* dst, uint64_t n) = 0;
  virtual void fill(runtime::DevPtr dst, uint8_t value, uint64_t n) = 0;
  virtual void transfer(runtime::Transfer t, uint64_t bytes) = 0;
  // Unified memory: runtime::Context::paging.
  virtual void paging(const runtime::Paging& p) = 0;

  // `k` is a kernel of module `module`'s meta; `cooperative`: runtime::Context::launch_cooperative;
  // `path`: a stream launch or a graph's kernel node (runtime::LaunchPath, its launch overhead).
  virtual void launch(uint32_t module, const runtime::Kernel& k, runtime::Dim3 grid, runtime::Dim3 block,
                      uint64_t smem, runtime::Stream s, const runtime::KernelArgs& args, bool cooperative,
                      runtime::LaunchPath path) = 0;
  // `sms`: runtime::Context::create_stream's (a green context's SMs; empty: every SM).
  virtual runtime::Stream create_stream(int priority, std::span<const uint32_t> sms = {}) = 0;
  virtual runtime::Event create_event() = 0;
  virtual void record(runtime::Event e, runtime::Stream s) = 0;
  virtual void synchronize() = 0;
  virtual void event_synchronize(runtime::Event e) = 0;
  virtual double event_elapsed_ms(runtime::Event start, runtime::Event end) = 0;
  virtual uint64_t heap_limit() = 0;
  virtual void set_heap_limit(uint64_t bytes) = 0;
  // CUDA arrays, texture and surface objects (runtime::Context's functions of the same names).
  virtual uint64_t malloc_array(const exec::ArrayDesc& d) = 0;
  virtual void free_array(uint64_t array) = 0;
  virtual void memcpy_to_array(uint64_t array, uint64_t x_bytes, uint32_t y, uint32_t z, const void* src,
                               uint64_t pitch, uint64_t width_bytes, uint32_t height, uint32_t depth) = 0;
  virtual void memcpy_from_array(void* dst, uint64_t pitch, uint64_t array, uint64_t x_bytes, uint32_t y, uint32_t z,
                                 uint64_t width_bytes, uint32_t height, uint32_t depth) = 0;
  virtual uint64_t create_texture(const exec::TextureResource& r, const exec::TextureDesc& d) = 0;
  virtual void destroy_texture(uint64_t texture) = 0;
  virtual uint64_t create_surface(uint64_t array) = 0;
  virtual void destroy_surface(uint64_t surface) = 0;
  // runtime::Context::device_sms: the SMs the program sees as its device; empty: every SM.
  virtual std::vector<uint32_t> device_sms() = 0;
  // A declared CPU phase of `ns` simulated nanoseconds (gpumuxHostCompute).
  virtual void host_compute(double ns) = 0;
  // cudaDeviceReset: a fresh context without allocations, modules or faults.
  virtual void reset() = 0;
  // The program exits with `status`: the run's summary (local) or a Goodbye (remote).
  virtual void finish(int status) = 0;
};

// The simulated GPU of GPUMUX_CONFIG (default gtx980) in this process.
std::unique_ptr<Session> make_local_session();
// The GPU of the gpumux serve listening at `socket`; exits the program with a
// message when it cannot attach.
std::unique_ptr<Session> make_remote_session(const std::string& socket);

}  // namespace gpumux::cudart
