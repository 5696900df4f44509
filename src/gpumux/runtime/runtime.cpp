#include "gpumux/runtime/runtime.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "gpumux/exec/address_space.h"
#include "gpumux/exec/builtins/services.h"
#include "gpumux/exec/loaded_module.h"
#include "gpumux/runtime/device_launches.h"
#include "gpumux/runtime/functional_backend.h"

namespace gpumux::runtime {

// ---- Kernel / Module ----

const std::string& Kernel::name() const { return fn_->name; }

Module::Module(std::unique_ptr<exec::LoadedModule> m) : loaded_(std::move(m)) {}
Module::~Module() = default;

const ptx::Module& Module::ir() const { return loaded_->ir(); }

Kernel Module::kernel(const std::string& name) const {
  int i = loaded_->find_kernel(name);
  if (i < 0) {
    std::string have;
    for (const ptx::Function& f : loaded_->ir().functions)
      if (f.is_entry) have += " " + f.name;
    throw ApiError(fmt::format("module {} has no kernel named {} (kernels:{})",
                               loaded_->ir().file, name, have));
  }
  return Kernel(loaded_.get(), &loaded_->function(uint32_t(i)), uint32_t(i));
}

namespace {
const ptx::Variable& device_variable(const exec::LoadedModule& m, const std::string& name,
                                     uint32_t& index) {
  auto it = m.ir().global_index.find(name);
  if (it == m.ir().global_index.end())
    throw ApiError(fmt::format("module {} has no variable named {}", m.ir().file, name));
  const ptx::Variable& v = m.ir().globals[it->second];
  if (v.space != ptx::Space::Global && v.space != ptx::Space::Const)
    throw ApiError(fmt::format("variable {} is .{}, not a .global or .const variable", name,
                               ptx::space_name(v.space)));
  index = it->second;
  return v;
}
}  // namespace

DevPtr Module::symbol(const std::string& name) const {
  uint32_t i;
  device_variable(*loaded_, name, i);
  return loaded_->global_address(i);
}

uint64_t Module::symbol_size(const std::string& name) const {
  uint32_t i;
  return device_variable(*loaded_, name, i).size;
}

std::vector<uint8_t> pack_arguments(const ptx::Function& fn, const KernelArgs& args) {
  const auto& a = args.args();
  if (a.size() != fn.params.size())
    throw ApiError(
        fmt::format("{} arguments given, the kernel takes {}", a.size(), fn.params.size()));
  std::vector<uint8_t> buf(fn.param_bytes, 0);
  for (size_t i = 0; i < a.size(); ++i) {
    const ptx::Param& p = fn.params[i];
    if (a[i].bytes.size() != p.size)
      throw ApiError(fmt::format("argument {} ({}) has {} bytes, the parameter is {} bytes", i,
                                 p.name, a[i].bytes.size(), p.size));
    std::memcpy(buf.data() + p.offset, a[i].bytes.data(), p.size);
  }
  return buf;
}

// ---- Context ----

Context::Context(Device& dev, uint32_t id, uint32_t app, std::string name)
    : dev_(dev),
      id_(id),
      app_(app),
      name_(std::move(name)),
      mem_(std::make_unique<exec::AddressSpace>()),
      builtins_(std::make_unique<exec::BuiltinServices>()) {
  event_times_.push_back(0.0);  // event 0 is unused
  device_launches_ = std::make_unique<DeviceLaunches>(*this);
  builtins_->launcher = device_launches_.get();
}
Context::~Context() = default;

DevPtr Context::malloc(uint64_t bytes) { return mem_->allocate(bytes); }
// Like cudaFree, freeing waits for the context's earlier work: a kernel still
// queued may use the allocation (CUB frees its temporary storage right after
// enqueueing the sort's kernels). It spends no CPU gap: a free is not GPU work.
void Context::free(DevPtr p) {
  drain();
  const exec::AddressSpace::Allocation* a = mem_->find(p);
  const uint64_t bytes = a && a->base == p ? a->size : 0;
  mem_->release(p);
  dev_.backend().released(*this, p, bytes);
}

void Context::paging(const Paging& p) {
  if (p.kind != Paging::Kind::ManagedOnly && p.bytes && !mem_->translate(p.base, p.bytes))
    throw ApiError(fmt::format("unified memory range 0x{:x} + {} bytes: {}", p.base, p.bytes,
                               mem_->explain(p.base, p.bytes)));
  if (p.kind == Paging::Kind::PrefetchToDevice || p.kind == Paging::Kind::PrefetchToHost) call_in_order();
  dev_.backend().paging(*this, p);
}

// Copies are synchronous, ordered after the context's earlier work (default
// stream semantics). Their functional effect happens at once; the host then
// waits for the modeled transfer time. Nothing else can observe the gap: the
// context's own kernels are done and other contexts cannot read its memory.
void Context::memcpy_h2d(DevPtr dst, const void* src, uint64_t bytes, Stream) {
  call_in_order();
  mem_->write(dst, src, bytes);
  if (InstructionObserver* o = dev_.backend().observer()) o->on_memcpy_h2d(*this, dst, bytes);
  dev_.backend().paging(*this, {Paging::Kind::Copied, dst, bytes});
  dev_.backend().transfer(*this, Transfer::HostToDevice, bytes);
}
void Context::memcpy_d2h(void* dst, DevPtr src, uint64_t bytes, Stream) {
  call_in_order();
  mem_->read(src, dst, bytes);
  dev_.backend().transfer(*this, Transfer::DeviceToHost, bytes);
}
void Context::memcpy_d2d(DevPtr dst, DevPtr src, uint64_t bytes, Stream) {
  call_in_order();
  std::vector<uint8_t> tmp(bytes);
  mem_->read(src, tmp.data(), bytes);
  mem_->write(dst, tmp.data(), bytes);
  dev_.backend().transfer(*this, Transfer::DeviceToDevice, bytes);
}
void Context::memset(DevPtr dst, int value, uint64_t bytes, Stream) {
  call_in_order();
  mem_->fill(dst, uint8_t(value), bytes);
  dev_.backend().paging(*this, {Paging::Kind::Set, dst, bytes});
  dev_.backend().transfer(*this, Transfer::Memset, bytes);
}

namespace {
uint64_t host_picoseconds(double ns) {
  if (!(ns >= 0 && ns <= 1e12))
    throw ApiError(fmt::format("host CPU time of {} ns: expected 0 to 1e12 ns", ns));
  return uint64_t(std::llround(ns * 1000.0));
}
}  // namespace

void Context::host_compute(double ns) { spend_host_ps(host_picoseconds(ns)); }
void Context::set_cpu_gap_ns(double ns) { cpu_gap_ps_ = host_picoseconds(ns); }
void Context::spend_host_ps(uint64_t ps) {
  if (HostClock* c = dev_.host_clock(); c && ps) c->spend(ps);
}
void Context::drain() {
  // The backend returns, or throws a launch's fault, once every launch of the
  // context is over: no cooperative grid uses its workspace any more.
  auto release = [this] {
    for (DevPtr p : grid_syncs_) mem_->release(p);
    grid_syncs_.clear();
  };
  try {
    dev_.backend().synchronize(*this);
  } catch (...) {
    release();
    throw;
  }
  release();
}
void Context::call_in_order() {
  cpu_gap();
  drain();
}

void Context::set_device_heap_limit(uint64_t bytes) { builtins_->heap_limit = bytes; }
void Context::set_printf_sink(std::function<void(std::string_view)> sink) {
  builtins_->printf_sink = std::move(sink);
}

Module& Context::load_module_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw LoadError(fmt::format("cannot open PTX file {}", path));
  std::stringstream ss;
  ss << f.rdbuf();
  return load_module_string(ss.str(), path);
}

Module& Context::load_module_string(const std::string& text, const std::string& name) {
  return add_module(std::make_unique<exec::LoadedModule>(text, name, *mem_));
}

Module& Context::add_module(std::unique_ptr<exec::LoadedModule> m) {
  modules_.push_back(std::unique_ptr<Module>(new Module(std::move(m))));
  return *modules_.back();
}

namespace {
void check_symbol_range(const Module& m, const std::string& sym, uint64_t bytes, uint64_t offset) {
  if (offset + bytes > m.symbol_size(sym))
    throw ApiError(fmt::format("copy of {} bytes at offset {} overruns symbol {} ({} bytes)", bytes,
                               offset, sym, m.symbol_size(sym)));
}
}  // namespace

void Context::memcpy_to_symbol(const Module& m, const std::string& sym, const void* src,
                               uint64_t bytes, uint64_t offset) {
  check_symbol_range(m, sym, bytes, offset);
  call_in_order();  // like cudaMemcpyToSymbol: ordered after earlier launches
  mem_->write(m.symbol(sym) + offset, src, bytes);
  if (InstructionObserver* o = dev_.backend().observer())
    o->on_memcpy_h2d(*this, m.symbol(sym) + offset, bytes);
  dev_.backend().paging(*this, {Paging::Kind::Copied, m.symbol(sym) + offset, bytes});
  dev_.backend().transfer(*this, Transfer::HostToDevice, bytes);
}

void Context::memcpy_from_symbol(void* dst, const Module& m, const std::string& sym,
                                 uint64_t bytes, uint64_t offset) {
  check_symbol_range(m, sym, bytes, offset);
  call_in_order();
  mem_->read(m.symbol(sym) + offset, dst, bytes);
  dev_.backend().transfer(*this, Transfer::DeviceToHost, bytes);
}

Stream Context::create_stream(int priority, std::span<const uint32_t> sms) {
  Stream s{next_stream_++, priority};
  if (sms.empty()) return s;
  std::vector<bool> mask(dev_.limits().num_sms, false);
  for (uint32_t sm : sms) {
    if (sm >= mask.size())
      throw ApiError(fmt::format("stream on SM {}: the device has {} SMs", sm, mask.size()));
    mask[sm] = true;
  }
  stream_sms_.emplace(s.id, std::move(mask));
  return s;
}

std::vector<uint32_t> Context::device_sms() { return dev_.backend().device_sms(*this); }

const std::vector<bool>* Context::stream_sms(Stream s) const {
  auto it = stream_sms_.find(s.id);
  return it == stream_sms_.end() ? nullptr : &it->second;
}

Event Context::create_event() {
  event_times_.push_back(0.0);
  return Event{uint32_t(event_times_.size() - 1)};
}

namespace {
void check_event(const std::vector<double>& times, Event e) {
  if (e.id == 0 || e.id >= times.size()) throw ApiError(fmt::format("invalid event {}", e.id));
}
}  // namespace

// Every stream is ordered after the context's earlier work (default-stream
// semantics), so stream waits are context waits.
void Context::record(Event e, Stream) {
  check_event(event_times_, e);
  call_in_order();
  event_times_[e.id] = dev_.backend().now_ms();
}
void Context::synchronize() { call_in_order(); }
void Context::stream_synchronize(Stream) { synchronize(); }
void Context::event_synchronize(Event e) {
  check_event(event_times_, e);
  synchronize();
}
double Context::event_elapsed_ms(Event start, Event end) {
  check_event(event_times_, start);
  check_event(event_times_, end);
  return event_times_[end.id] - event_times_[start.id];
}

void Context::launch(const Kernel& k, Dim3 grid, Dim3 block, uint64_t dyn_smem, Stream s,
                     const KernelArgs& args, LaunchPath path) {
  launch_grid(k, grid, block, dyn_smem, s, args, false, path);
}

void Context::launch_cooperative(const Kernel& k, Dim3 grid, Dim3 block, uint64_t dyn_smem, Stream s,
                                 const KernelArgs& args, LaunchPath path) {
  launch_grid(k, grid, block, dyn_smem, s, args, true, path);
}

void Context::launch_grid(const Kernel& k, Dim3 grid, Dim3 block, uint64_t dyn_smem, Stream s,
                          const KernelArgs& args, bool cooperative, LaunchPath path) {
  cpu_gap();
  check_launch(k, grid, block, dyn_smem, "launch");
  LaunchBackend::Launch l{this, &k, grid, block, dyn_smem, s, {}, 0, path};
  try {
    l.params = pack_arguments(k.function(), args);
  } catch (const ApiError& e) {
    throw ApiError(fmt::format("illegal launch of {} with grid ({},{},{}) block ({},{},{}): {}", k.function().name,
                               grid.x, grid.y, grid.z, block.x, block.y, block.z, e.what()));
  }
  if (!cooperative) {
    dev_.backend().launch(l);
    return;
  }
  // One workspace per launch: cooperative grids in flight on several streams
  // must not share a barrier. cooperative_groups' grid barrier is a counter at
  // byte 4 that starts at 0; 16 bytes keep the layout's neighbours zero too.
  constexpr uint64_t kGridSyncBytes = 16;
  l.grid_sync = malloc(kGridSyncBytes);
  mem_->fill(l.grid_sync, 0, kGridSyncBytes);
  try {
    dev_.backend().launch(l);
  } catch (...) {
    free(l.grid_sync);
    throw;
  }
  grid_syncs_.push_back(l.grid_sync);
}

void Context::check_launch(const Kernel& k, Dim3 grid, Dim3 block, uint64_t dyn_smem, const char* what) {
  const ptx::Function& fn = k.function();
  const DeviceLimits& lim = dev_.limits();
  auto fail = [&](const std::string& why) {
    throw ApiError(fmt::format("illegal {} of {} with grid ({},{},{}) block ({},{},{}): {}",
                               what, fn.name, grid.x, grid.y, grid.z, block.x, block.y, block.z, why));
  };
  if (grid.count() == 0) fail("the grid is empty");
  if (block.count() == 0) fail("the block is empty");
  if (grid.y > 65535 || grid.z > 65535) fail("grid y and z are limited to 65535");
  if (block.z > 64) fail("block z is limited to 64");
  if (block.count() > lim.max_threads_per_block)
    fail(fmt::format("{} threads per block, the limit is {}", block.count(),
                     lim.max_threads_per_block));
  for (int d = 0; d < 3; ++d) {
    uint32_t b = d == 0 ? block.x : d == 1 ? block.y : block.z;
    if (fn.reqntid[0] && fn.reqntid[d] && b != fn.reqntid[d])
      fail(fmt::format(".reqntid requires block dimension {} = {}", d, fn.reqntid[d]));
  }
  if (fn.maxntid[0]) {
    uint64_t maxt = uint64_t(fn.maxntid[0]) * std::max(1u, fn.maxntid[1]) *
                    std::max(1u, fn.maxntid[2]);
    if (block.count() > maxt) fail(fmt::format(".maxntid allows at most {} threads", maxt));
  }
  const exec::KernelLayout& kl = k.module().kernel(k.index());
  if (kl.shared.dynamic_offset + dyn_smem > lim.max_smem_per_block)
    fail(fmt::format("{} bytes of shared memory ({} static + {} dynamic), the limit is {}",
                     kl.shared.dynamic_offset + dyn_smem, kl.shared.static_bytes, dyn_smem,
                     lim.max_smem_per_block));
}

// ---- Device ----

Device::Device(DeviceLimits limits)
    : Device(limits, std::make_unique<FunctionalBackend>(limits.num_sms)) {}

Device::Device(DeviceLimits limits, std::unique_ptr<LaunchBackend> backend)
    : limits_(limits), backend_(std::move(backend)) {}

Device::~Device() = default;

Context& Device::create_context(const std::string& name) { return create_context(name, next_context_); }

Context& Device::create_context(const std::string& name, uint32_t app) {
  contexts_.push_back(std::unique_ptr<Context>(new Context(*this, next_context_++, app, name)));
  backend_->created(*contexts_.back());
  return *contexts_.back();
}

void Device::destroy_context(Context& ctx) {
  auto it = std::find_if(contexts_.begin(), contexts_.end(), [&](const auto& c) { return c.get() == &ctx; });
  if (it == contexts_.end()) throw ApiError(fmt::format("context {} is not a context of this device", ctx.name()));
  try {
    ctx.drain();
  } catch (const DeviceFault&) {
    // A broken context (its launch faulted) is destroyed all the same.
  }
  backend_->release(ctx);
  contexts_.erase(it);
}

}  // namespace gpumux::runtime
