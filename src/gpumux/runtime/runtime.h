// The CUDA-like host API of gpumux. Host drivers of benchmarks and users'
// programs call it; it knows nothing about how kernels are executed. A Device
// owns the execution backend (functional today, the timing model later); each
// Context is one application with its own device address space.
//
//   gpumux::runtime::Device dev;                 // functional backend
//   auto& ctx = dev.create_context("app0");
//   auto& mod = ctx.load_module_file("vecadd.ptx");
//   DevPtr a = ctx.malloc(n * 4);
//   ctx.memcpy_h2d(a, host.data(), n * 4);
//   ctx.launch(mod.kernel("vecadd"), {n / 256}, {256}, a, b, c, n);
//   ctx.memcpy_d2h(out.data(), c, n * 4);
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "gpumux/core/error.h"
#include "gpumux/exec/texture.h"
#include "gpumux/runtime/events.h"

namespace gpumux::ptx {
struct Module;
struct Function;
struct Instruction;
}  // namespace gpumux::ptx

namespace gpumux::exec {
class AddressSpace;
class BuiltinServices;
class LoadedModule;
struct DeviceLaunchRequest;
struct GridLaunch;
class ThreadBlock;
class Warp;
struct MemAccess;
}  // namespace gpumux::exec

namespace gpumux::runtime {

using DevPtr = uint64_t;

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  Dim3() = default;
  Dim3(uint32_t x_, uint32_t y_ = 1, uint32_t z_ = 1) : x(x_), y(y_), z(z_) {}
  uint64_t count() const { return uint64_t(x) * y * z; }
};

class Context;
class Device;

// Simulated time of host code. The multi-application host scheduler is one:
// it blocks the calling host program for that long while the GPU and the
// other programs run on. A device without one (functional runs, a timing
// device used directly) spends host time instantly.
class HostClock {
 public:
  virtual ~HostClock() = default;
  // Blocks the calling host program for `ps` > 0 picoseconds of simulated time.
  virtual void spend(uint64_t ps) = 0;
};

// A kernel of a loaded module.
class Kernel {
 public:
  const std::string& name() const;
  const ptx::Function& function() const { return *fn_; }
  const exec::LoadedModule& module() const { return *mod_; }
  uint32_t index() const { return index_; }  // in the module's function list

 private:
  friend class Module;
  Kernel(const exec::LoadedModule* m, const ptx::Function* f, uint32_t i)
      : mod_(m), fn_(f), index_(i) {}
  const exec::LoadedModule* mod_;
  const ptx::Function* fn_;
  uint32_t index_;
};

// A PTX module loaded into a context: its globals live in the context's address space.
class Module {
 public:
  ~Module();
  Kernel kernel(const std::string& name) const;          // ApiError if absent
  DevPtr symbol(const std::string& name) const;          // address of a .global/.const variable
  uint64_t symbol_size(const std::string& name) const;
  const ptx::Module& ir() const;
  exec::LoadedModule& loaded() const { return *loaded_; }

 private:
  friend class Context;
  explicit Module(std::unique_ptr<exec::LoadedModule> m);
  std::unique_ptr<exec::LoadedModule> loaded_;
};

// Kernel arguments, packed by the parameter layout of the kernel at launch.
class KernelArgs {
 public:
  template <class T>
  KernelArgs& add(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>, "kernel arguments must be trivially copyable");
    Arg a;
    a.bytes.resize(sizeof(T));
    std::memcpy(a.bytes.data(), &v, sizeof(T));
    a.is_float = std::is_floating_point_v<T>;
    args_.push_back(std::move(a));
    return *this;
  }
  // An argument given as raw bytes (a CUDA runtime's void** argument array).
  KernelArgs& add_bytes(const void* p, size_t n) {
    Arg a;
    a.bytes.assign(static_cast<const uint8_t*>(p), static_cast<const uint8_t*>(p) + n);
    args_.push_back(std::move(a));
    return *this;
  }
  struct Arg {
    std::vector<uint8_t> bytes;
    bool is_float = false;
  };
  const std::vector<Arg>& args() const { return args_; }

 private:
  std::vector<Arg> args_;
};

// Packs `args` into `fn`'s parameter buffer; throws ApiError naming the
// parameter on a count or size mismatch.
std::vector<uint8_t> pack_arguments(const ptx::Function& fn, const KernelArgs& args);

struct Stream {
  uint32_t id = 0;  // 0: the default stream
  int priority = 0;
};
struct Event {
  uint32_t id = 0;
};
// How a host launch reaches the GPU, for its launch overhead: a kernel launch
// in a stream, or a kernel node of a CUDA graph launch after the graph's first
// kernel (frontend.graph_launch_latency).
enum class LaunchPath : uint8_t { Stream, GraphNode };

// Watches a run from outside the model: host-to-device copies and the
// dynamic instruction stream of every launch (the Accel-Sim trace exporter
// is one). Attached to a Device's backend; with none attached the backends
// record nothing and pay nothing.
class InstructionObserver {
 public:
  virtual ~InstructionObserver() = default;
  virtual void on_memcpy_h2d(const Context& ctx, DevPtr dst, uint64_t bytes) = 0;
  virtual void on_launch_begin(const Context& ctx, Stream s, const exec::GridLaunch& g) = 0;
  // TBs of a launch are reported in dispatch order, each from begin to end.
  virtual void on_tb_begin(const exec::ThreadBlock& tb) = 0;
  // After each warp instruction: `mask` holds the lanes that executed it
  // (active and guard true); `access` is what it touched (mask 0: nothing).
  virtual void on_instruction(const exec::Warp& w, const ptx::Instruction& in, uint32_t mask,
                              const exec::MemAccess& access) = 0;
  virtual void on_tb_end(const exec::ThreadBlock& tb) = 0;
  virtual void on_launch_end() = 0;
};

// What a program does to unified memory, for a backend that models demand
// paging (docs/virtual-memory.md); other backends ignore it. Ranges are the
// context's device addresses.
struct Paging {
  enum class Kind : uint8_t {
    ManagedOnly,       // from now on only the context's managed ranges are paged (a CUDA program)
    Managed,           // [base, base + bytes) is managed memory: it starts on the host
    HostWrote,         // the host's program stored into the range
    PrefetchToDevice,  // cudaMemPrefetchAsync to the device
    PrefetchToHost,    // cudaMemPrefetchAsync to the host
    ReadMostly,        // cudaMemAdviseSetReadMostly
    NotReadMostly,     // cudaMemAdviseUnsetReadMostly
    Copied,            // the runtime copied into the range (a host write, or a placement: vm.copies_resident)
    Set,               // the runtime set the range (cudaMemset: a host write, or device work: vm.copies_resident)
  };
  static constexpr uint32_t kLastKind = uint32_t(Kind::Set);
  Kind kind;
  DevPtr base = 0;
  uint64_t bytes = 0;
};

// One application: an address space, loaded modules, streams and events.
class Context {
 public:
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const std::string& name() const { return name_; }
  uint32_t id() const { return id_; }
  // The application the context belongs to (statistics are keyed by it): its
  // id unless created for an application, e.g. one restarted in a new context.
  uint32_t app() const { return app_; }
  Device& device() { return dev_; }
  // Scheduling priority of the application's work (added to each stream's
  // priority); higher is more urgent.
  int priority() const { return priority_; }
  void set_priority(int p) { priority_ = p; }
  // Warp budget of the application's kernels under the QAWS warp scheduler
  // (docs/warp-scheduling.md); 1 by default.
  uint32_t warp_budget() const { return warp_budget_; }
  void set_warp_budget(uint32_t b) { warp_budget_ = b; }

  // Host CPU time (the full-system model: an application is a sequence of
  // API calls with host code between them). host_compute() spends `ns` of
  // simulated time in this application's host program (Device::host_clock).
  // The CPU gap is spent before every call that enqueues or waits for GPU
  // work: launch, memcpy_*, memset, memcpy_to/from_symbol, record and the
  // synchronizations; 0 (the default) adds nothing. ApiError unless
  // 0 <= ns <= 1e12 (1000 s).
  void host_compute(double ns);
  void set_cpu_gap_ns(double ns);

  // Memory. Errors (bad pointer, out of range) throw ApiError.
  DevPtr malloc(uint64_t bytes);
  void free(DevPtr p);  // after the context's earlier work, as cudaFree (no CPU gap)
  void memcpy_h2d(DevPtr dst, const void* src, uint64_t bytes, Stream s = {});
  void memcpy_d2h(void* dst, DevPtr src, uint64_t bytes, Stream s = {});
  void memcpy_d2d(DevPtr dst, DevPtr src, uint64_t bytes, Stream s = {});
  void memset(DevPtr dst, int value, uint64_t bytes, Stream s = {});
  // Unified memory (Paging). A range must lie inside one allocation
  // (ApiError). Prefetches are ordered like copies (after the context's
  // earlier work) and take the transfer time of what they move. The
  // context's own copies and memsets report Copied and Set themselves, and free()
  // forgets the residency of what it frees.
  void paging(const Paging& p);
  // Device malloc/free and printf: the heap limit (cudaLimitMallocHeapSize,
  // default 8 MB; device malloc returns 0 beyond it) and where device printf
  // output goes (default: standard output), one call per thread's printf.
  void set_device_heap_limit(uint64_t bytes);
  void set_printf_sink(std::function<void(std::string_view)> sink);
  exec::BuiltinServices& builtin_services() { return *builtins_; }
  template <class T>
  DevPtr malloc_copy(const std::vector<T>& v) {
    DevPtr p = malloc(v.size() * sizeof(T));
    if (!v.empty()) memcpy_h2d(p, v.data(), v.size() * sizeof(T));
    return p;
  }
  template <class T>
  std::vector<T> read(DevPtr p, size_t n) {
    std::vector<T> v(n);
    if (n) memcpy_d2h(v.data(), p, n * sizeof(T));
    return v;
  }

  // Textures and surfaces: CUDA arrays, texture objects and surface objects
  // (exec/texture.h: descriptors, array layout, fetch arithmetic). A texture
  // or surface handle is the 64-bit value a kernel receives as its
  // cudaTextureObject_t / cudaSurfaceObject_t parameter; pass it as a launch
  // argument. A CUDA runtime maps its calls onto these:
  //   cudaMallocArray/cudaMalloc3DArray -> malloc_array (extent and flags as in ArrayDesc)
  //   cudaFreeArray -> free_array
  //   cudaMemcpy2DToArray/3D/ToArray -> memcpy_to_array; ...FromArray -> memcpy_from_array
  //   cudaCreateTextureObject -> create_texture (cudaResourceDesc -> TextureResource,
  //     cudaTextureDesc -> TextureDesc; sRGB, mipmaps and anisotropy are not modeled)
  //   cudaCreateSurfaceObject -> create_surface; cudaDestroy*Object -> destroy_*
  // Errors (bad extent or format, unknown handle, a box outside the array) throw ApiError.
  uint64_t malloc_array(const exec::ArrayDesc& d);
  void free_array(uint64_t array);
  const exec::TexelLayout& array_layout(uint64_t array) const;
  // Copies a box of width_bytes x height x depth between the array, at byte x,
  // row y and slice z (the layer of layered arrays, layer * 6 + face of
  // cubemaps), and host memory whose rows are `pitch` bytes apart (slices
  // pitch x height). One transfer of the box's bytes in simulated time.
  void memcpy_to_array(uint64_t array, uint64_t x_bytes, uint32_t y, uint32_t z, const void* src, uint64_t pitch,
                       uint64_t width_bytes, uint32_t height, uint32_t depth = 1);
  void memcpy_from_array(void* dst, uint64_t pitch, uint64_t array, uint64_t x_bytes, uint32_t y, uint32_t z,
                         uint64_t width_bytes, uint32_t height, uint32_t depth = 1);
  uint64_t create_texture(const exec::TextureResource& r, const exec::TextureDesc& d);
  void destroy_texture(uint64_t texture);
  uint64_t create_surface(uint64_t array);
  void destroy_surface(uint64_t surface);

  // Modules. Bad or unsupported PTX throws LoadError naming file:line.
  Module& load_module_file(const std::string& path);
  Module& load_module_string(const std::string& ptx_text, const std::string& name);
  // A module built outside the PTX path (a trace kernel, trace/replay_module.h).
  Module& add_module(std::unique_ptr<exec::LoadedModule> m);
  void memcpy_to_symbol(const Module& m, const std::string& sym, const void* src, uint64_t bytes,
                        uint64_t offset = 0);
  void memcpy_from_symbol(void* dst, const Module& m, const std::string& sym, uint64_t bytes,
                          uint64_t offset = 0);

  // Streams and events. `sms` (a green context's stream): the SMs its
  // kernels' TBs may use, by SM id (ApiError for an id beyond the device's
  // SMs); empty: every SM. The functional backend has no SMs and ignores it.
  Stream create_stream(int priority = 0, std::span<const uint32_t> sms = {});
  // The SMs of a stream created with some, as a mask by SM id; null: every SM.
  const std::vector<bool>* stream_sms(Stream s) const;
  // The SMs the application sees as its device (LaunchBackend::device_sms); empty: every SM.
  std::vector<uint32_t> device_sms();
  Event create_event();
  void record(Event e, Stream s = {});
  void synchronize();                 // waits for all work of this context
  void stream_synchronize(Stream s);
  void event_synchronize(Event e);
  double event_elapsed_ms(Event start, Event end);  // simulated time between two events

  // Launch. Illegal launches (zero grid, >1024 threads, too much shared memory,
  // argument count/size mismatch) throw ApiError. Device faults throw DeviceFault.
  void launch(const Kernel& k, Dim3 grid, Dim3 block, uint64_t dyn_smem, Stream s,
              const KernelArgs& args, LaunchPath path = LaunchPath::Stream);
  template <class... A>
    requires(std::is_trivially_copyable_v<A> && ...)
  void launch(const Kernel& k, Dim3 grid, Dim3 block, const A&... a) {
    KernelArgs args;
    (args.add(a), ...);
    launch(k, grid, block, uint64_t{0}, Stream{}, args);
  }
  // A launch whose TBs must all be resident at once (cudaLaunchCooperativeKernel),
  // so that they can wait for each other at grid-wide barriers: it gets a
  // zeroed grid-barrier workspace in the context's memory (exec::GridLaunch::grid_sync),
  // freed when the context's work has drained. ApiError as launch(), and when
  // the grid cannot be co-resident or the backend cannot run its TBs concurrently.
  void launch_cooperative(const Kernel& k, Dim3 grid, Dim3 block, uint64_t dyn_smem, Stream s,
                          const KernelArgs& args, LaunchPath path = LaunchPath::Stream);

  // Event kernels (events.h, docs/edge.md). register_event checks the launch
  // shape as launch() does and allocates the submission and completion
  // queues (max_in_flight slots); ApiError when the Event Kernel Table is full.
  Doorbell register_event(const Kernel& k, Dim3 grid, Dim3 block, uint64_t dyn_smem, uint32_t max_in_flight);
  void unregister_event(const Doorbell& d);
  // The device (a NIC) delivers one event per parameter block at the arrival
  // times of `p`, counted from now, without the host on the path; with
  // `payloads` (none, or one per block) it first writes each event's request
  // data into GPU memory itself.
  void deliver_events(const Doorbell& d, const std::vector<KernelArgs>& blocks, const ArrivalProcess& p,
                      std::vector<EventPayload> payloads = {});
  // Waits until every event delivered on `d` has completed.
  void wait_events(const Doorbell& d);
  // The event source of the application's workload entry (none: its driver
  // launches in bulk from the host).
  const std::optional<ArrivalProcess>& event_source() const { return event_source_; }
  void set_event_source(std::optional<ArrivalProcess> p) { event_source_ = std::move(p); }

  exec::AddressSpace& memory() { return *mem_; }

 private:
  friend class Device;
  Context(Device& dev, uint32_t id, uint32_t app, std::string name);
  void spend_host_ps(uint64_t ps);
  void cpu_gap() { spend_host_ps(cpu_gap_ps_); }
  // Waits for the context's work without a CPU gap.
  void drain();
  // The start of a call ordered after the context's earlier work: the CPU
  // gap, then the wait.
  void call_in_order();
  // Byte offsets of the rows of a box of an array (memcpy_to/from_array), checked.
  template <class F>
  void for_each_array_row(uint64_t array, uint64_t x_bytes, uint32_t y, uint32_t z, uint64_t width_bytes,
                          uint32_t height, uint32_t depth, F&& row);
  Device& dev_;
  uint32_t id_, app_;
  int priority_ = 0;
  uint32_t warp_budget_ = 1;
  uint64_t cpu_gap_ps_ = 0;
  std::string name_;
  std::unique_ptr<exec::AddressSpace> mem_;
  std::unique_ptr<exec::BuiltinServices> builtins_;
  std::vector<std::unique_ptr<Module>> modules_;
  uint32_t next_stream_ = 1, next_event_ = 1;
  std::map<uint32_t, std::vector<bool>> stream_sms_;  // create_stream's SM sets, by stream id
  std::vector<double> event_times_;
  std::optional<ArrivalProcess> event_source_;
  struct EventKernel;
  std::vector<std::shared_ptr<EventKernel>> event_kernels_;  // shared: EventKernel is private to events.cpp
  const EventKernel& event_kernel(const Doorbell& d) const;
  // Device-side launch (device_launch.cpp): the context is its kernels' DeviceLauncher.
  class DeviceLaunches;
  friend class DeviceLaunches;
  std::unique_ptr<DeviceLaunches> device_launches_;
  // Checks a launch's shape and arguments (ApiError); `what` names the call in messages.
  void check_launch(const Kernel& k, Dim3 grid, Dim3 block, uint64_t dyn_smem, const char* what);
  void launch_grid(const Kernel& k, Dim3 grid, Dim3 block, uint64_t dyn_smem, Stream s, const KernelArgs& args,
                   bool cooperative, LaunchPath path);
  std::vector<DevPtr> grid_syncs_;  // workspaces of the cooperative launches since the last drain
};

// What a memory copy or memset moves, for backends that model its time.
enum class Transfer : uint8_t { HostToDevice, DeviceToHost, DeviceToDevice, Memset };

// Executes launches. The functional backend runs each kernel to completion
// when launched; the timing backend simulates them on the modeled GPU.
class LaunchBackend {
 public:
  virtual ~LaunchBackend() = default;
  struct Launch {
    Context* ctx;
    const Kernel* kernel;
    Dim3 grid, block;
    uint64_t dyn_smem;
    Stream stream;
    std::vector<uint8_t> params;  // packed parameter buffer
    DevPtr grid_sync = 0;         // a cooperative launch's grid-barrier workspace; 0 otherwise
    LaunchPath path = LaunchPath::Stream;
  };
  // A cooperative launch (grid_sync set) must have all its TBs resident at
  // once: a backend that cannot give it that throws ApiError.
  virtual void launch(Launch& l) = 0;
  // A child grid launched by a running kernel (dynamic parallelism,
  // exec/device_launch.h), already checked like a host launch. Returns an
  // empty string, or why the backend cannot launch it (the launching thread
  // faults). Default: device-side launch is not supported.
  virtual std::string launch_from_device(Launch& l, const exec::DeviceLaunchRequest& r);
  // An event kernel as registered (runtime/events.h).
  struct RegisteredEvent {
    Context* ctx;
    const Kernel* kernel;
    Dim3 grid, block;
    uint64_t dyn_smem;
    Doorbell bell;
  };
  // Enters `e` into the device's Event Kernel Table; returns its doorbell id
  // (> 0). ApiError when the table is full. Default: no table limit.
  virtual uint32_t register_event(const RegisteredEvent& e);
  virtual void unregister_event(Context&, uint32_t /*id*/) {}
  // The device delivers one event per block (payload, packed parameters) at
  // the given arrival times (ps from now). Default, for backends without
  // time: each payload and block written, launched in order, its completion
  // flag set after it.
  virtual void deliver_events(const RegisteredEvent& e, std::vector<EventBlock> blocks,
                              std::vector<uint64_t> arrivals_ps);
  virtual void wait_events(Context& ctx, uint32_t /*id*/) { synchronize(ctx); }
  virtual void synchronize(Context& ctx) = 0;
  // Called after the functional effect of a copy or memset of `bytes`:
  // returns once the transfer has taken its simulated time (default: none).
  virtual void transfer(Context&, Transfer, uint64_t /*bytes*/) {}
  // Unified memory (Paging, checked by the context); returns once the
  // migrations it causes have taken their simulated time.
  virtual void paging(Context&, const Paging&) {}
  // The SMs the context's application sees as its device (a hardware
  // partition's, SharingPolicy::device_sms), by SM id; empty: every SM.
  virtual std::vector<uint32_t> device_sms(const Context&) { return {}; }
  // The context freed [base, base + bytes).
  virtual void released(Context&, DevPtr /*base*/, uint64_t /*bytes*/) {}
  // A context was made (a client of the device), and is being destroyed:
  // forget what refers to it.
  virtual void created(Context&) {}
  virtual void release(Context&) {}
  virtual double now_ms() const = 0;  // simulated time
  virtual uint64_t warp_instructions() const = 0;  // executed so far, all contexts
  // Attaches (or with nullptr detaches) an observer of the following launches and copies.
  void set_observer(InstructionObserver* o) { observer_ = o; }
  InstructionObserver* observer() const { return observer_; }

 protected:
  InstructionObserver* observer_ = nullptr;
  uint32_t next_event_id_ = 1;
};

struct DeviceLimits {
  uint32_t max_threads_per_block = 1024;
  uint64_t max_smem_per_block = 48 * 1024;   // static + dynamic (opt-in up to this)
  uint32_t num_sms = 16;                     // %nsmid
  uint64_t max_local_bytes_per_thread = 512 * 1024;
};

class Device {
 public:
  explicit Device(DeviceLimits limits = {});                       // functional backend
  Device(DeviceLimits limits, std::unique_ptr<LaunchBackend> backend);
  ~Device();
  Context& create_context(const std::string& name);
  // A context of application `app` (see Context::app()).
  Context& create_context(const std::string& name, uint32_t app);
  // Destroys a context whose work is done (e.g. an application's finished run).
  void destroy_context(Context& ctx);
  const DeviceLimits& limits() const { return limits_; }
  LaunchBackend& backend() { return *backend_; }
  // Where contexts spend host CPU time (null: nowhere, it takes no time).
  void set_host_clock(HostClock* c) { host_clock_ = c; }
  HostClock* host_clock() const { return host_clock_; }

 private:
  DeviceLimits limits_;
  std::unique_ptr<LaunchBackend> backend_;
  HostClock* host_clock_ = nullptr;
  std::vector<std::unique_ptr<Context>> contexts_;
  uint32_t next_context_ = 0;
};

}  // namespace gpumux::runtime
