// The process-wide state behind gpumux's libcudart: the session holding the
// program's context on a simulated GPU (session.h: in this process, or the
// GPU of gpumux serve when GPUMUX_SERVER is set), the modules nvcc's
// generated code registers, and the CUDA error state. Every entry point (api_*.cpp)
// runs through Runtime::call(), which serializes host threads, maps gpumux
// errors to cudaError_t and keeps CUDA's last-error and sticky-error rules.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpumux/cudart/cuda_abi.h"
#include "gpumux/cudart/graph.h"
#include "gpumux/cudart/managed.h"
#include "gpumux/cudart/mem_pool.h"
#include "gpumux/cudart/session.h"
#include "gpumux/runtime/runtime.h"

struct CUstream_st {
  gpumux::runtime::Stream stream;
  std::map<int, cudaLaunchAttributeValue> attributes;  // cudaStreamSetAttribute's, by cudaStreamAttrID
  unsigned flags = 0;                                   // cudaStreamCreateWithFlags's
};
struct CUevent_st {
  gpumux::runtime::Event event;
};

namespace gpumux::cudart {

struct RegisteredModule;

// Device memory reported by cudaGetDeviceProperties and cudaMemGetInfo. The
// simulated address space has no capacity limit; programs size their data by
// this value, so it is that of the GPUs gpumux models.
inline constexpr uint64_t kReportedGlobalMemory = uint64_t(4) << 30;

// A __global__ function registered by its host stub (the cudaKernel_t handle).
struct KernelEntry {
  RegisteredModule* module;
  const void* host_fn;                // the host stub (cudaKernelNodeParams::func)
  std::string name;                   // mangled device name
  int max_dynamic_smem = -1;          // cudaFuncAttributeMaxDynamicSharedMemorySize; -1: unset
};

// A __device__/__constant__/__managed__ variable registered by its host shadow.
struct VariableEntry {
  RegisteredModule* module;
  std::string name;
  uint64_t size;
  void** managed_host_ptr;  // __managed__: where host code finds the variable; else null
};

// One fat binary: its PTX is loaded when registration ends.
struct RegisteredModule {
  const void* wrapper;
  uint32_t id = 0;                        // in the session
  const runtime::Module* module = nullptr;  // its metadata; null if it did not load
  std::string error;  // why the module could not be loaded
};

// Thrown inside entry points to return a specific CUDA error.
struct CudaError {
  cudaError_t code;
  std::string detail;
};

class Runtime {
 public:
  static Runtime& get();

  // Runs an entry point: returns its error (recorded as the last error).
  cudaError_t call(const char* api, const std::function<void()>& body);
  // Like call() for entry points that wait for or enqueue device work: the
  // managed-memory mirrors are copied in before and out after.
  cudaError_t device_call(const char* api, const std::function<void()>& body);
  // Prints "gpumux: <name> is not implemented" once.
  cudaError_t unimplemented(const char* api);
  // CUDA's last error is per host thread; a sticky error (a device fault)
  // belongs to the context and is every thread's until cudaDeviceReset.
  cudaError_t take_last_error();
  cudaError_t peek_last_error() const;

  Session& session() { return *session_; }
  const GpuConfig& config() const { return session_->config(); }
  const runtime::DeviceLimits& limits() const { return session_->limits(); }
  // The SMs of the device as the program sees it: under gpumux serve with mig
  // its instance's, else the GPU's (asked of the session once: it is fixed).
  uint32_t device_sm_count();
  ManagedMemory& managed() { return managed_; }
  MemPools& pools() { return pools_; }

  // Registration.
  void** register_fatbin(const void* wrapper);
  void register_function(void** handle, const void* host_fn, const char* name);
  void register_variable(void** handle, const void* host_var, const char* name, uint64_t size,
                         void** managed_host_ptr);
  void finish_registration(void** handle);
  // cudaDeviceReset: waits for the work, then replaces the context by a new
  // one with the modules reloaded; device memory and the error state are gone.
  void reset();

  KernelEntry& kernel(const void* host_fn);         // CudaError InvalidDeviceFunction if unknown
  runtime::Kernel loaded_kernel(const KernelEntry& k);  // CudaError if its module did not load
  // Device address and size of a registered variable (CudaError InvalidSymbol if unknown).
  std::pair<runtime::DevPtr, uint64_t> symbol(const void* host_var);

  // The <<<>>> configuration stack (per host thread).
  struct LaunchConfig {
    dim3 grid, block;
    size_t smem;
    cudaStream_t stream;
  };
  void push_config(const LaunchConfig& c);
  std::optional<LaunchConfig> pop_config();

  // A launch checked (CudaError for a bad shape) with a copy of its arguments.
  // `cooperative` (cudaLaunchCooperativeKernel): CudaError CooperativeLaunchTooLarge
  // unless the grid fits the GPU at once, by blocks_per_sm().
  KernelParams kernel_params(KernelEntry& k, dim3 grid, dim3 block, void** args, size_t smem, bool cooperative);
  // A launch in `stream`, or a kernel node if the stream captures (capture.h).
  void launch(KernelEntry& k, dim3 grid, dim3 block, void** args, size_t smem, cudaStream_t stream,
              bool cooperative);
  void launch(const KernelParams& p, cudaStream_t stream, runtime::LaunchPath path);
  // TBs of `k` with `block_threads` threads and `dyn_smem` bytes that fit one
  // SM at once (the occupancy calculator); CudaError InvalidValue unless block_threads > 0.
  int blocks_per_sm(const runtime::Kernel& k, int block_threads, size_t dyn_smem) const;
  // The runtime stream of a handle: null and the special handles cudaStreamLegacy (1)
  // and cudaStreamPerThread (2) are the default stream: the primary context's,
  // or that of the green context current on the calling thread.
  static runtime::Stream stream_of(cudaStream_t s) {
    if (reinterpret_cast<uintptr_t>(s) > 2) return s->stream;
    return current_.default_stream ? current_.default_stream->stream : runtime::Stream{};
  }
  // The context current on the calling host thread, as gpumux's libcuda.so.1
  // sets it (cuCtxSetCurrent): a green context's default stream and SMs, on
  // which the runtime's default stream and new streams launch; none: the
  // primary context (every SM the program's device has).
  static void set_current_context(cudaStream_t default_stream, std::span<const unsigned> sms) {
    current_.default_stream = default_stream;
    current_.sms.assign(sms.begin(), sms.end());
  }
  static std::span<const unsigned> current_sms() { return current_.sms; }

 private:
  Runtime();
  void load(RegisteredModule& m);  // into the current context

  struct CurrentContext {
    cudaStream_t default_stream = nullptr;
    std::vector<unsigned> sms;
  };
  static thread_local CurrentContext current_;

  std::unique_ptr<Session> session_;
  ManagedMemory managed_;
  MemPools pools_;
  std::recursive_mutex mutex_;
  std::once_flag sm_count_once_;
  uint32_t sm_count_ = 0;
  cudaError_t sticky_ = cudaSuccess;
  std::vector<std::unique_ptr<RegisteredModule>> modules_;
  std::map<const void*, std::unique_ptr<KernelEntry>> kernels_;  // by host stub
  std::map<const void*, VariableEntry> variables_;               // by host shadow
  std::vector<std::string> unimplemented_seen_;
};

// CudaError InvalidDevice unless `device` is 0, gpumux's only device.
void check_device(int device);

// cudaMemcpy3D with a CUDA array on one side (api_texture.cpp).
void copy_3d_array(const cudaMemcpy3DParms& p);
// The copy and memset of the Async entry points and of graph nodes (api_memory.cpp).
void copy_3d(const cudaMemcpy3DParms& p);
// A copy of `height` rows of `width` bytes between pitched linear memory.
cudaMemcpy3DParms linear_copy(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                              int kind);
void memset_2d(const cudaMemsetParams& p);
// A copy to or from `count` bytes at `offset` of a registered device variable
// (CudaError for a bad direction or range).
cudaMemcpy3DParms to_symbol(const void* symbol, const void* src, size_t count, size_t offset, int kind);
cudaMemcpy3DParms from_symbol(void* dst, const void* symbol, size_t count, size_t offset, int kind);
// Returns `p` to its memory pool if a pool handed it out, after the device's
// earlier work (api_mempool.cpp); false if `p` is not pool memory.
bool free_to_pool(runtime::DevPtr p);

}  // namespace gpumux::cudart
