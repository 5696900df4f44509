#include "gpumux/cudart/state.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/cudart/capture.h"
#include "gpumux/cudart/fatbin.h"
#include "gpumux/exec/loaded_module.h"
#include "gpumux/ptx/ir.h"
#include "gpumux/sm/occupancy.h"

namespace gpumux::cudart {

namespace {

// The CUDA error a real GPU reports for a device fault for this reason.
cudaError_t fault_code(const std::string& r) {
  auto has = [&](const char* s) { return r.find(s) != std::string::npos; };
  if (has("misaligned")) return cudaErrorMisalignedAddress;
  if (has("assertion failed")) return cudaErrorAssert;
  if (has("call stack overflow") || has("overflow: a thread needs")) return cudaErrorHardwareStackError;
  if (has("out of bounds") || has("not accessible") || has("invalid ") || has("not a live block"))
    return cudaErrorIllegalAddress;
  return cudaErrorLaunchFailure;  // trap, barrier misuse or deadlock
}

thread_local std::vector<Runtime::LaunchConfig> launch_configs;
thread_local cudaError_t last_error = cudaSuccess;  // of this host thread (Runtime::take_last_error)

}  // namespace

Runtime& Runtime::get() {
  static Runtime* rt = new Runtime();  // never destroyed: programs call us from atexit handlers
  return *rt;
}

thread_local Runtime::CurrentContext Runtime::current_;

Runtime::Runtime() {
  const char* server = std::getenv("GPUMUX_SERVER");
  session_ = server && *server ? make_remote_session(server) : make_local_session();
  // A program's cudaMalloc memory is the device's: only managed memory is paged.
  session_->paging({runtime::Paging::Kind::ManagedOnly});
  // on_exit (glibc) rather than atexit: the exit status goes to gpumux serve with the Goodbye.
  on_exit(
      [](int status, void*) {
        Runtime& rt = get();
        std::lock_guard lock(rt.mutex_);
        rt.session_->finish(status);
      },
      nullptr);
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
    e = sticky_ = fault_code(f.reason());
    detail = f.what();
  } catch (const RemoteFault& f) {
    e = sticky_ = fault_code(f.reason);
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
    last_error = e;
    if (!detail.empty()) fmt::print(stderr, "gpumux: {}: {}\n", api, detail);
  }
  return e;
}

cudaError_t Runtime::device_call(const char* api, const std::function<void()>& body) {
  return call(api, [&] {
    managed_.push(*session_);
    try {
      body();
    } catch (...) {
      managed_.pull(*session_);
      throw;
    }
    managed_.pull(*session_);
  });
}

cudaError_t Runtime::unimplemented(const char* api) {
  std::lock_guard lock(mutex_);
  if (std::find(unimplemented_seen_.begin(), unimplemented_seen_.end(), api) == unimplemented_seen_.end()) {
    unimplemented_seen_.push_back(api);
    fmt::print(stderr, "gpumux: {} is not implemented (returns cudaErrorNotSupported)\n", api);
  }
  return last_error = cudaErrorNotSupported;
}

cudaError_t Runtime::peek_last_error() const { return sticky_ ? sticky_ : last_error; }

cudaError_t Runtime::take_last_error() {
  std::lock_guard lock(mutex_);
  cudaError_t e = peek_last_error();
  last_error = cudaSuccess;
  return e;
}

void** Runtime::register_fatbin(const void* wrapper) {
  std::lock_guard lock(mutex_);
  modules_.push_back(std::make_unique<RegisteredModule>(RegisteredModule{wrapper, 0, nullptr, {}}));
  return reinterpret_cast<void**>(modules_.back().get());
}

void Runtime::register_function(void** handle, const void* host_fn, const char* name) {
  std::lock_guard lock(mutex_);
  kernels_[host_fn] =
      std::make_unique<KernelEntry>(KernelEntry{reinterpret_cast<RegisteredModule*>(handle), host_fn, name, -1});
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
    Session::Module loaded =
        session_->load_module(ptx, fmt::format("{}.module{}.ptx", program_invocation_short_name, index));
    m.id = loaded.id;
    m.module = loaded.meta;
    for (auto& [host, v] : variables_) {
      if (v.module != &m || !v.managed_host_ptr) continue;
      runtime::DevPtr addr = session_->symbol(m.id, v.name);
      managed_.add(*session_, addr, v.size, true);  // its initializer is the host's
      *v.managed_host_ptr = reinterpret_cast<void*>(addr);
    }
    managed_.pull(*session_);
  } catch (const std::exception& e) {
    m.module = nullptr;
    m.error = e.what();
    fmt::print(stderr, "gpumux: cannot load the device code of {}: {}\n", program_invocation_short_name, m.error);
  }
}

void Runtime::reset() {
  std::lock_guard lock(mutex_);
  session_->reset();
  session_->paging({runtime::Paging::Kind::ManagedOnly});
  managed_.clear();
  pools_.clear();
  for (auto& m : modules_) load(*m);
  last_error = sticky_ = cudaSuccess;
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
  return {session_->symbol(v.module->id, v.name), v.size};
}

uint32_t Runtime::device_sm_count() {
  std::call_once(sm_count_once_, [&] {
    const size_t n = session().device_sms().size();
    sm_count_ = n ? uint32_t(n) : config().gpu.num_sms;
  });
  return sm_count_;
}

int Runtime::blocks_per_sm(const runtime::Kernel& k, int block_threads, size_t dyn_smem) const {
  const SmParams& sp = config().sm;
  const exec::KernelLayout& kl = k.module().kernel(k.index());
  if (block_threads <= 0) throw CudaError{cudaErrorInvalidValue, "block size must be positive"};
  // The timing model's own placement rule, so that what the API promises holds.
  return int(sm::tbs_per_empty_sm(sm::tb_needs(kl, uint32_t(block_threads), dyn_smem, sp), sp));
}

void Runtime::push_config(const LaunchConfig& c) { launch_configs.push_back(c); }

std::optional<Runtime::LaunchConfig> Runtime::pop_config() {
  if (launch_configs.empty()) return std::nullopt;
  LaunchConfig c = launch_configs.back();
  launch_configs.pop_back();
  return c;
}

KernelParams Runtime::kernel_params(KernelEntry& ke, dim3 grid, dim3 block, void** args, size_t smem,
                                    bool cooperative) {
  runtime::Kernel k = loaded_kernel(ke);
  const runtime::DeviceLimits& lim = limits();
  uint64_t threads = uint64_t(block.x) * block.y * block.z;
  auto shape = [&] {
    return fmt::format("launch of {} with grid ({},{},{}) block ({},{},{})", ke.name, grid.x, grid.y, grid.z, block.x,
                       block.y, block.z);
  };
  if (!grid.x || !grid.y || !grid.z || !threads || block.x > 1024 || block.y > 1024 || block.z > 64 ||
      threads > lim.max_threads_per_block || grid.x > 0x7fffffffu || grid.y > 65535 || grid.z > 65535)
    throw CudaError{cudaErrorInvalidConfiguration, shape()};
  if (cooperative) {
    const uint32_t sms = device_sm_count();
    uint64_t per_sm = uint64_t(blocks_per_sm(k, int(threads), smem)), fit = per_sm * sms;
    if (uint64_t(grid.x) * grid.y * grid.z > fit)
      throw CudaError{cudaErrorCooperativeLaunchTooLarge,
                      fmt::format("cooperative {}: at most {} blocks ({} per SM x {} SMs) are resident at once",
                                  shape(), fit, per_sm, sms)};
  }
  KernelParams p{&ke, ke.host_fn, ke.name, grid, block, unsigned(smem), cooperative, {}, {}};
  const ptx::Function& fn = k.function();
  for (size_t i = 0; i < fn.params.size(); ++i) {
    if (!args || !args[i])
      throw CudaError{cudaErrorInvalidValue, fmt::format("{}: argument {} is null", shape(), i)};
    const auto* bytes = static_cast<const uint8_t*>(args[i]);
    p.args.emplace_back(bytes, bytes + fn.params[i].size);
  }
  return p;
}

void Runtime::launch(KernelEntry& ke, dim3 grid, dim3 block, void** args, size_t smem, cudaStream_t s,
                     bool cooperative) {
  KernelParams p = kernel_params(ke, grid, block, args, smem, cooperative);
  if (!Captures::get().capture(s, cudaGraphNodeTypeKernel, p)) launch(p, s, runtime::LaunchPath::Stream);
}

void Runtime::launch(const KernelParams& p, cudaStream_t s, runtime::LaunchPath path) {
  runtime::Kernel k = loaded_kernel(*p.kernel);
  runtime::KernelArgs a;
  for (const auto& arg : p.args) a.add_bytes(arg.data(), arg.size());
  try {
    session_->launch(p.kernel->module->id, k, {p.grid.x, p.grid.y, p.grid.z}, {p.block.x, p.block.y, p.block.z},
                     p.smem, stream_of(s), a, p.cooperative, path);
  } catch (const ApiError& e) {
    throw CudaError{cudaErrorLaunchOutOfResources, e.what()};
  }
}

void check_device(int device) {
  if (device != 0) throw CudaError{cudaErrorInvalidDevice, fmt::format("device {} (gpumux has device 0 only)", device)};
}

}  // namespace gpumux::cudart
