// Green contexts (CUDA driver API, docs/sharing-modes.md "Green contexts"):
// SM resources, their split into groups (sm_split.h), descriptors, green
// contexts and their streams. A green context's stream is a runtime stream
// whose kernels place TBs on the context's SMs only
// (gpumuxStreamCreateOnSms; the TB dispatcher enforces it, under any sharing
// policy). Which SMs a group gets: the input's in SM-id order (sm_split.h).
#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "gpumux/cudart/driver/driver_state.h"
#include "gpumux/cudart/driver/sm_split.h"

using gpumux::cudart::driver::check_initialized;
using gpumux::cudart::driver::device_attribute;
using gpumux::cudart::driver::Driver;
using gpumux::cudart::driver::fail;

namespace {

constexpr int kMultiProcessorCount = 16;     // cudaDevAttrMultiProcessorCount
constexpr int kComputeCapabilityMajor = 75;  // cudaDevAttrComputeCapabilityMajor

gpumux::cudart::driver::SmGranularity granularity(bool ignore_coscheduling = false) {
  return gpumux::cudart::driver::sm_granularity(device_attribute(kComputeCapabilityMajor), ignore_coscheduling);
}

CUresult check_sm_type(const char* api, CUdevResourceType type) {
  if (type == CU_DEV_RESOURCE_TYPE_SM) return CUDA_SUCCESS;
  return fail(api, CUDA_ERROR_INVALID_RESOURCE_TYPE, fmt::format("resource type {}: only SMs are modeled", type));
}

}  // namespace

extern "C" {

CUresult cuDeviceGetDevResource(CUdevice device, CUdevResource* resource, CUdevResourceType type) {
  const char* api = "cuDeviceGetDevResource";
  if (CUresult e = check_initialized(api)) return e;
  if (device != 0) return fail(api, CUDA_ERROR_INVALID_DEVICE, fmt::format("device {}: gpumux has device 0", device));
  if (!resource) return fail(api, CUDA_ERROR_INVALID_VALUE, "null resource");
  if (CUresult e = check_sm_type(api, type)) return e;
  // The device's SMs: the config's, or those of the program's MIG instance.
  std::vector<uint32_t> sms(uint32_t(device_attribute(kMultiProcessorCount)));
  unsigned n = 0;
  if (cudaError_t e = gpumuxDeviceSms(sms.data(), unsigned(sms.size()), &n)) return e;
  if (n)
    sms.resize(n);
  else
    std::iota(sms.begin(), sms.end(), 0u);
  auto g = granularity();
  Driver& d = Driver::get();
  std::lock_guard lock(d.mutex);
  d.make_resource(*resource, {std::move(sms), Driver::Origin::Device, 0}, g.min_sms, g.multiple);
  return CUDA_SUCCESS;
}

CUresult cuDevSmResourceSplitByCount(CUdevResource* result, unsigned int* nbGroups, const CUdevResource* input,
                                     CUdevResource* remaining, unsigned int useFlags, unsigned int minCount) {
  const char* api = "cuDevSmResourceSplitByCount";
  if (CUresult e = check_initialized(api)) return e;
  if (!nbGroups || !input) return fail(api, CUDA_ERROR_INVALID_VALUE, "null nbGroups or input");
  if (result && *nbGroups == 0) return fail(api, CUDA_ERROR_INVALID_VALUE, "nbGroups is 0 with a result array");
  if (useFlags & ~unsigned(CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING))
    return fail(api, CUDA_ERROR_INVALID_VALUE,
                fmt::format("flags {:#x}: CU_DEV_SM_RESOURCE_SPLIT_MAX_POTENTIAL_CLUSTER_SIZE is for compute "
                            "capability 9.0+ (gpumux reports 8.0), other bits are no flag",
                            useFlags));
  Driver& d = Driver::get();
  std::lock_guard lock(d.mutex);
  const Driver::SmSet* in = d.sm_set(*input);
  if (!in) return fail(api, CUDA_ERROR_INVALID_RESOURCE_TYPE, "input is not an SM resource made by the driver");
  if (in->origin == Driver::Origin::Split)
    return fail(api, CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION,
                "the output of a split cannot be split again before a green context is created from it");
  auto g = granularity(useFlags & CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING);
  using gpumux::cudart::driver::SplitStatus;
  auto split = gpumux::cudart::driver::split_sms_by_count(in->sms, result ? *nbGroups : 0, minCount, g);
  if (split.status != SplitStatus::Ok)
    return fail(api, split.status == SplitStatus::InvalidValue ? CUDA_ERROR_INVALID_VALUE
                                                               : CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION,
                split.error);
  *nbGroups = unsigned(split.groups.size());
  if (!result) return CUDA_SUCCESS;  // a query of the group count
  const uint32_t id = d.next_split++;
  for (size_t i = 0; i < split.groups.size(); ++i)
    d.make_resource(result[i], {std::move(split.groups[i]), Driver::Origin::Split, id}, g.min_sms, g.multiple);
  if (remaining)
    d.make_resource(*remaining, {std::move(split.remaining), Driver::Origin::Split, id}, g.min_sms, g.multiple);
  return CUDA_SUCCESS;
}

CUresult cuDevResourceGenerateDesc(CUdevResourceDesc* phDesc, CUdevResource* resources, unsigned int nbResources) {
  const char* api = "cuDevResourceGenerateDesc";
  if (CUresult e = check_initialized(api)) return e;
  if (!phDesc || !resources || nbResources == 0) return fail(api, CUDA_ERROR_INVALID_VALUE, "no resources");
  Driver& d = Driver::get();
  std::lock_guard lock(d.mutex);
  std::vector<uint32_t> sms;
  const Driver::SmSet* first = nullptr;
  for (unsigned i = 0; i < nbResources; ++i) {
    const Driver::SmSet* s = d.sm_set(resources[i]);
    if (!s) return fail(api, CUDA_ERROR_INVALID_RESOURCE_TYPE, fmt::format("resource {} is no SM resource", i));
    if (first && (s->origin != Driver::Origin::Split || first->origin != Driver::Origin::Split || s->split != first->split))
      return fail(api, CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION,
                  "several SM resources in one descriptor must come from the same split");
    first = first ? first : s;
    sms.insert(sms.end(), s->sms.begin(), s->sms.end());
  }
  std::sort(sms.begin(), sms.end());
  sms.erase(std::unique(sms.begin(), sms.end()), sms.end());
  if (sms.empty()) return fail(api, CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, "the resources hold no SM");
  *phDesc = new CUdevResourceDesc_st{std::move(sms)};
  return CUDA_SUCCESS;
}

CUresult cuGreenCtxCreate(CUgreenCtx* phCtx, CUdevResourceDesc desc, CUdevice dev, unsigned int flags) {
  const char* api = "cuGreenCtxCreate";
  if (CUresult e = check_initialized(api)) return e;
  if (!phCtx || !desc) return fail(api, CUDA_ERROR_INVALID_VALUE, "null context pointer or descriptor");
  if (dev != 0) return fail(api, CUDA_ERROR_INVALID_DEVICE, fmt::format("device {}: gpumux has device 0", dev));
  if (flags != CU_GREEN_CTX_DEFAULT_STREAM)
    return fail(api, CUDA_ERROR_INVALID_VALUE, fmt::format("flags {:#x}: CU_GREEN_CTX_DEFAULT_STREAM is required", flags));
  Driver& d = Driver::get();
  std::lock_guard lock(d.mutex);
  *phCtx = new CUgreenCtx_st{desc->sms, d.next_green_id++};
  return CUDA_SUCCESS;
}

CUresult cuGreenCtxDestroy(CUgreenCtx hCtx) {
  const char* api = "cuGreenCtxDestroy";
  if (CUresult e = check_initialized(api)) return e;
  if (!hCtx) return fail(api, CUDA_ERROR_INVALID_HANDLE, "null green context");
  Driver& d = Driver::get();
  std::lock_guard lock(d.mutex);
  if (hCtx->ctx) {  // the context made from it, and its default stream
    for (const auto& [thread, stack] : d.current)
      if (std::find(stack.begin(), stack.end(), hCtx->ctx) != stack.end())
        return fail(api, CUDA_ERROR_INVALID_CONTEXT,
                    "its context is current (or pushed) on a thread: make another context current first");
    if (cudaError_t e = cudaStreamDestroy(hCtx->ctx->default_stream)) return e;
    d.contexts.erase(hCtx->ctx);
    delete hCtx->ctx;
  }
  // Its streams are the program's to destroy first; those it leaves keep the SMs.
  std::erase_if(d.green_streams, [&](const auto& e) { return e.second == hCtx; });
  delete hCtx;
  return CUDA_SUCCESS;
}

CUresult cuGreenCtxGetDevResource(CUgreenCtx hCtx, CUdevResource* resource, CUdevResourceType type) {
  const char* api = "cuGreenCtxGetDevResource";
  if (CUresult e = check_initialized(api)) return e;
  if (!hCtx || !resource) return fail(api, CUDA_ERROR_INVALID_VALUE, "null green context or resource");
  if (CUresult e = check_sm_type(api, type)) return e;
  auto g = granularity();
  Driver& d = Driver::get();
  std::lock_guard lock(d.mutex);
  d.make_resource(*resource, {hCtx->sms, Driver::Origin::GreenContext, 0}, g.min_sms, g.multiple);
  return CUDA_SUCCESS;
}

CUresult cuGreenCtxGetId(CUgreenCtx hCtx, unsigned long long* id) {
  if (CUresult e = check_initialized("cuGreenCtxGetId")) return e;
  if (!hCtx || !id) return fail("cuGreenCtxGetId", CUDA_ERROR_INVALID_VALUE, "null green context or id");
  *id = hCtx->id;
  return CUDA_SUCCESS;
}

CUresult cuGreenCtxStreamCreate(CUstream* phStream, CUgreenCtx greenCtx, unsigned int flags, int priority) {
  const char* api = "cuGreenCtxStreamCreate";
  if (CUresult e = check_initialized(api)) return e;
  if (!phStream || !greenCtx) return fail(api, CUDA_ERROR_INVALID_VALUE, "null stream pointer or green context");
  if (flags != CU_STREAM_NON_BLOCKING)
    return fail(api, CUDA_ERROR_INVALID_VALUE, fmt::format("flags {:#x}: CU_STREAM_NON_BLOCKING is required", flags));
  Driver& d = Driver::get();
  std::lock_guard lock(d.mutex);
  if (cudaError_t e = gpumuxStreamCreateOnSms(phStream, flags, priority, greenCtx->sms.data(),
                                              unsigned(greenCtx->sms.size())))
    return e;
  d.green_streams[*phStream] = greenCtx;
  return CUDA_SUCCESS;
}

CUresult cuStreamGetGreenCtx(CUstream hStream, CUgreenCtx* phCtx) {
  if (CUresult e = check_initialized("cuStreamGetGreenCtx")) return e;
  if (!phCtx) return fail("cuStreamGetGreenCtx", CUDA_ERROR_INVALID_VALUE, "null green context pointer");
  Driver& d = Driver::get();
  std::lock_guard lock(d.mutex);
  auto it = d.green_streams.find(hStream);
  *phCtx = it == d.green_streams.end() ? nullptr : it->second;
  return CUDA_SUCCESS;
}

}  // extern "C"
