#include "gpumux/cudart/state.h"

#include <cxxabi.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpumux/core/error.h"
#include "gpumux/cudart/fatbin.h"
#include "gpumux/frontend/copy_engine.h"
#include "gpumux/gpu/gpu.h"
#include "gpumux/stats/timeline.h"

namespace gpumux::cudart {

namespace {

constexpr char kDefaultConfig[] = "gtx980";

// The CUDA error a real GPU reports for a device fault of this kind.
cudaError_t fault_code(const DeviceFault& f) {
  const std::string& r = f.reason();
  auto has = [&](const char* s) { return r.find(s) != std::string::npos; };
  if (has("misaligned")) return cudaErrorMisalignedAddress;
  if (has("assertion failed")) return cudaErrorAssert;
  if (has("call stack overflow") || has("overflow: a thread needs")) return cudaErrorHardwareStackError;
  if (has("out of bounds") || has("not accessible") || has("invalid ") || has("not a live block"))
    return cudaErrorIllegalAddress;
  return cudaErrorLaunchFailure;  // trap, barrier misuse or deadlock
}

thread_local std::vector<Runtime::LaunchConfig> launch_configs;

// "vadd(float const*, float*, int)" for "_Z4vaddPKfPfi"; other names as they are.
std::string demangled(const std::string& name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : name;
  std::free(d);
  return out;
}

}  // namespace

Runtime& Runtime::get() {
  static Runtime* rt = new Runtime();  // never destroyed: programs call us from atexit handlers
  return *rt;
}

Runtime::Runtime() {
  const char* name = std::getenv("GPUMUX_CONFIG");
  try {
    config_ = gpu::load_config(name && *name ? name : kDefaultConfig).values();
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpumux: error: GPUMUX_CONFIG: {}\n", e.what());
    std::exit(2);
  }
  device_ = timing::make_device(config_);
  ctx_ = &device_->create_context(program_invocation_short_name);
  std::atexit([] { get().write_summary(); });
}

cudaError_t Runtime::call(const char* api, const std::function<void()>& body) {
  std::lock_guard lock(mutex_);
  cudaError_t e = cudaSuccess;
  std::string detail;
  try {
    body();
  } catch (const CudaError& c) {
    e = c.code;
    detail = c.detail;
  } catch (const DeviceFault& f) {
    e = sticky_ = fault_code(f);
    detail = f.what();
  } catch (const LoadError& l) {
    e = cudaErrorInvalidPtx;
    detail = l.what();
  } catch (const ApiError& a) {
    e = cudaErrorInvalidValue;
    detail = a.what();
  } catch (const std::exception& x) {
    e = cudaErrorUnknown;
    detail = x.what();
  }
  if (e != cudaSuccess) {
    last_ = e;
    if (!detail.empty()) fmt::print(stderr, "gpumux: {}: {}\n", api, detail);
  }
  return e;
}

cudaError_t Runtime::device_call(const char* api, const std::function<void()>& body) {
  return call(api, [&] {
    managed_.push(ctx_->memory());
    try {
      body();
    } catch (...) {
      managed_.pull(ctx_->memory());
      throw;
    }
    managed_.pull(ctx_->memory());
  });
}

cudaError_t Runtime::unimplemented(const char* api) {
  std::lock_guard lock(mutex_);
  if (std::find(unimplemented_seen_.begin(), unimplemented_seen_.end(), api) == unimplemented_seen_.end()) {
    unimplemented_seen_.push_back(api);
    fmt::print(stderr, "gpumux: {} is not implemented (returns cudaErrorNotSupported)\n", api);
  }
  return last_ = cudaErrorNotSupported;
}

cudaError_t Runtime::take_last_error() {
  std::lock_guard lock(mutex_);
  cudaError_t e = peek_last_error();
  last_ = cudaSuccess;
  return e;
}

void** Runtime::register_fatbin(const void* wrapper) {
  std::lock_guard lock(mutex_);
  modules_.push_back(std::make_unique<RegisteredModule>(RegisteredModule{wrapper, nullptr, {}}));
  return reinterpret_cast<void**>(modules_.back().get());
}

void Runtime::register_function(void** handle, const void* host_fn, const char* name) {
  std::lock_guard lock(mutex_);
  kernels_[host_fn] = std::make_unique<KernelEntry>(KernelEntry{reinterpret_cast<RegisteredModule*>(handle), name, -1});
}

void Runtime::register_variable(void** handle, const void* host_var, const char* name, uint64_t size,
                                void** managed_host_ptr) {
  std::lock_guard lock(mutex_);
  variables_[host_var] = {reinterpret_cast<RegisteredModule*>(handle), name, size, managed_host_ptr};
}

void Runtime::finish_registration(void** handle) {
  std::lock_guard lock(mutex_);
  load(*reinterpret_cast<RegisteredModule*>(handle));
}

void Runtime::load(RegisteredModule& m) {
  size_t index = 0;
  while (modules_[index].get() != &m) ++index;
  try {
    std::string ptx = ptx_from_fatbin(m.wrapper);
    m.module = &ctx_->load_module_string(ptx, fmt::format("{}.module{}.ptx", program_invocation_short_name, index));
    for (auto& [host, v] : variables_) {
      if (v.module != &m || !v.managed_host_ptr) continue;
      runtime::DevPtr addr = m.module->symbol(v.name);
      managed_.add(addr, v.size);
      *v.managed_host_ptr = reinterpret_cast<void*>(addr);
    }
    managed_.pull(ctx_->memory());
  } catch (const std::exception& e) {
    m.module = nullptr;
    m.error = e.what();
    fmt::print(stderr, "gpumux: cannot load the device code of {}: {}\n", program_invocation_short_name, m.error);
  }
}

void Runtime::reset() {
  std::lock_guard lock(mutex_);
  try {
    ctx_->synchronize();
  } catch (const std::exception&) {
    // A faulted context is what a reset recovers from.
  }
  std::string name = ctx_->name();
  device_->destroy_context(*ctx_);
  ctx_ = &device_->create_context(name);
  managed_.clear();
  for (auto& m : modules_) load(*m);
  last_ = sticky_ = cudaSuccess;
}

KernelEntry& Runtime::kernel(const void* host_fn) {
  auto it = kernels_.find(host_fn);
  if (it == kernels_.end())
    throw CudaError{cudaErrorInvalidDeviceFunction, fmt::format("{} is not a registered kernel", host_fn)};
  return *it->second;
}

runtime::Kernel Runtime::loaded_kernel(const KernelEntry& k) {
  if (!k.module->module)
    throw CudaError{cudaErrorNoKernelImageForDevice, fmt::format("kernel {}: {}", k.name, k.module->error)};
  return k.module->module->kernel(k.name);
}

std::pair<runtime::DevPtr, uint64_t> Runtime::symbol(const void* host_var) {
  auto it = variables_.find(host_var);
  if (it == variables_.end())
    throw CudaError{cudaErrorInvalidSymbol, fmt::format("{} is not a registered device variable", host_var)};
  const VariableEntry& v = it->second;
  if (!v.module->module)
    throw CudaError{cudaErrorNoKernelImageForDevice, fmt::format("variable {}: {}", v.name, v.module->error)};
  return {v.module->module->symbol(v.name), v.size};
}

void Runtime::push_config(const LaunchConfig& c) { launch_configs.push_back(c); }

std::optional<Runtime::LaunchConfig> Runtime::pop_config() {
  if (launch_configs.empty()) return std::nullopt;
  LaunchConfig c = launch_configs.back();
  launch_configs.pop_back();
  return c;
}

void Runtime::launch(KernelEntry& ke, dim3 grid, dim3 block, void** args, size_t smem, cudaStream_t s) {
  runtime::Kernel k = loaded_kernel(ke);
  const runtime::DeviceLimits& lim = limits();
  uint64_t threads = uint64_t(block.x) * block.y * block.z;
  if (!grid.x || !grid.y || !grid.z || !threads || block.x > 1024 || block.y > 1024 || block.z > 64 ||
      threads > lim.max_threads_per_block || grid.x > 0x7fffffffu || grid.y > 65535 || grid.z > 65535)
    throw CudaError{cudaErrorInvalidConfiguration,
                    fmt::format("launch of {} with grid ({},{},{}) block ({},{},{})", ke.name, grid.x, grid.y,
                                grid.z, block.x, block.y, block.z)};
  runtime::KernelArgs a;
  const ptx::Function& fn = k.function();
  for (size_t i = 0; i < fn.params.size(); ++i) a.add_bytes(args[i], fn.params[i].size);
  try {
    ctx_->launch(k, {grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, smem, stream_of(s), a);
  } catch (const ApiError& e) {
    throw CudaError{cudaErrorLaunchOutOfResources, e.what()};
  }
}

// Template-heavy names (Thrust, CUB) run to kilobytes: the text summary keeps their start.
std::string shortened(std::string name) {
  constexpr size_t kMax = 100;
  if (name.size() > kMax) name = name.substr(0, kMax - 3) + "...";
  return name;
}

// Kernels on one track per stream, copies on their own track (core cycles and
// ticks to the trace's microseconds).
void write_timeline(timing::TimingBackend& tb, const char* path) {
  stats::Timeline t;
  const double mhz = tb.gpu().config().clock.core_mhz;
  std::string process = program_invocation_short_name;
  for (const auto& k : tb.kernels()) {
    if (!k.done) continue;
    t.span(t.track(process, frontend::queue_label(k)), demangled(k.name), double(k.activated) / mhz,
           double(k.cycles()) / mhz,
           {{"launch", k.id}, {"tbs", k.tbs}, {"warp_insts", k.warp_insts}, {"fault", bool(k.fault)}});
  }
  for (const frontend::CopyRecord& c : tb.gpu().copy_engine().records()) {
    if (!c.done) continue;
    t.span(t.track(process, "copies"), fmt::format("memcpy {}", frontend::to_string(c.dir)),
           stats::Timeline::us(c.started), stats::Timeline::us(c.finished - c.started), {{"bytes", c.bytes}});
  }
  t.write(path);
}

void Runtime::write_summary() const {
  if (const char* path = std::getenv("GPUMUX_TIMELINE"); path && *path) {
    try {
      write_timeline(const_cast<Runtime*>(this)->backend(), path);
    } catch (const std::exception& e) {
      fmt::print(stderr, "gpumux: {}\n", e.what());
    }
  }
  const char* summary = std::getenv("GPUMUX_SUMMARY");
  const char* json_path = std::getenv("GPUMUX_JSON");
  if (!(summary && *summary) && !(json_path && *json_path)) return;
  auto& tb = const_cast<Runtime*>(this)->backend();
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : tb.kernels())
    kernels.push_back({{"name", demangled(k.name)}, {"stream", k.stream}, {"tbs", k.tbs}, {"cycles", k.done ? k.cycles() : 0},
                       {"warp_instructions", k.warp_insts}, {"done", k.done}, {"fault", bool(k.fault)}});
  if (summary && *summary) {
    fmt::print(stderr, "gpumux: {} on {} ({} SMs): {} kernel launches, {} busy core cycles, {:.6f} ms simulated, "
               "{} warp instructions\n",
               program_invocation_short_name, config_.gpu.name, config_.gpu.num_sms, tb.kernels().size(),
               tb.busy_cycles(), tb.now_ms(), tb.warp_instructions());
    for (const auto& k : tb.kernels())
      fmt::print(stderr, "gpumux:   {:<10} {:>6} TBs {:>10} cycles  {}{}\n", frontend::queue_label(k), k.tbs,
                 k.done ? k.cycles() : 0, shortened(demangled(k.name)),
                 k.fault ? "  (device fault)" : k.done ? "" : "  (not finished)");
  }
  if (json_path && *json_path) {
    nlohmann::json j = {{"program", program_invocation_short_name}, {"gpu", config_.gpu.name},
                        {"busy_cycles", tb.busy_cycles()}, {"simulated_ms", tb.now_ms()},
                        {"warp_instructions", tb.warp_instructions()}, {"kernels", kernels}};
    std::ofstream f(json_path);
    f << j.dump(2) << "\n";
    if (!f) fmt::print(stderr, "gpumux: cannot write {}\n", json_path);
  }
}

}  // namespace gpumux::cudart
