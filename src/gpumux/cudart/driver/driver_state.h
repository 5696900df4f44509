// The state of gpumux's libcuda.so.1 (docs/cuda-programs.md, "Driver API"):
// whether cuInit was called, the SM sets that CUdevResource values stand for,
// green contexts and descriptors, and which stream belongs to which green
// context. Everything else (the session, streams, device work, errors of
// device work) is libcudart.so.13's: the driver library calls the runtime's
// exported entry points, so a process has one state whichever API it uses.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gpumux/cudart/cuda_abi.h"
#include "gpumux/cudart/driver/driver_abi.h"

// A green context: the SMs its streams' kernels may use.
struct CUgreenCtx_st {
  std::vector<uint32_t> sms;
  unsigned long long id;
  struct CUctx_st* ctx = nullptr;  // cuCtxFromGreenCtx's, made once
};
// A context: the primary context (no green context), or one made from a green
// context, whose default stream is a stream on the green context's SMs.
struct CUctx_st {
  CUgreenCtx green = nullptr;
  CUstream default_stream = nullptr;
};
// A resource descriptor: the union of the SM sets it was generated from.
struct CUdevResourceDesc_st {
  std::vector<uint32_t> sms;
};

// libcudart.so.13's entry points the driver library calls.
extern "C" {
cudaError_t cudaDeviceGetAttribute(int* value, int attr, int device);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t gpumuxStreamCreateOnSms(cudaStream_t* stream, unsigned int flags, int priority, const unsigned int* sms,
                                    unsigned int count);
const char* cudaGetErrorString(cudaError_t e);
cudaError_t gpumuxDeviceSms(unsigned int* sms, unsigned int capacity, unsigned int* count);
cudaError_t gpumuxSetCurrentContext(cudaStream_t default_stream, const unsigned int* sms, unsigned int count);
}

namespace gpumux::cudart::driver {

class Driver {
 public:
  static Driver& get();

  // Serializes the driver library's calls (the runtime serializes its own).
  std::recursive_mutex mutex;
  std::atomic<bool> initialized = false;  // read without the mutex by every call

  // A resource's SM set: where it came from decides whether it may be split
  // (a split's outputs may not: "cannot be split again without first creating
  // a descriptor and a green context").
  enum class Origin : uint8_t { Device, GreenContext, Split };
  struct SmSet {
    std::vector<uint32_t> sms;
    Origin origin;
    uint32_t split;  // Split: which cuDevSmResourceSplitByCount call made it
  };
  // Fills `r` as an SM resource standing for a new set.
  void make_resource(CUdevResource& r, SmSet set, uint32_t min_sms, uint32_t multiple);
  // The set `r` stands for; null unless `r` is an SM resource this library made.
  const SmSet* sm_set(const CUdevResource& r) const;
  uint32_t next_split = 0;
  unsigned long long next_green_id = 1;
  std::map<CUstream, CUgreenCtx> green_streams;  // cuGreenCtxStreamCreate's, and green contexts' default streams

  // Contexts (api_context.cpp): the primary one, those made from green
  // contexts, and each host thread's stack of current contexts (its top is
  // current; empty: the primary context).
  CUctx_st primary;
  std::map<CUcontext, CUgreenCtx> contexts;  // made by cuCtxFromGreenCtx
  std::map<std::thread::id, std::vector<CUcontext>> current;
  // The calling thread's current context, and making the top of its `stack`
  // current (the runtime's default stream and new streams launch on its SMs).
  CUcontext current_context();
  CUresult make_current(std::vector<CUcontext>& stack);

 private:
  std::vector<SmSet> sets_;
};

// CUDA_ERROR_NOT_INITIALIZED before cuInit, else CUDA_SUCCESS.
CUresult check_initialized(const char* api);
// Prints "gpumux: <api>: <detail>" on stderr (as the runtime does) and returns `code`.
CUresult fail(const char* api, CUresult code, const std::string& detail);
// The runtime's number of SMs and compute capability major.
int device_attribute(int attr);

}  // namespace gpumux::cudart::driver
