// Contexts of the CUDA driver API as far as green contexts need them
// (docs/sharing-modes.md, "Green contexts"): cuCtxFromGreenCtx turns a green
// context into a CUcontext, and making that context current (cuCtxSetCurrent,
// cuCtxPushCurrent) sends the runtime's default-stream launches to the green
// context's default stream and gives cudaStreamCreate's streams its SMs, as
// a runtime program running in a green context expects. The primary context
// (every SM of the device) is current on a thread that made none current.
// Contexts of their own (cuCtxCreate) are not modeled: a program has one
// address space and its green contexts.
#include <fmt/format.h>

#include "gpumux/cudart/driver/driver_state.h"

using gpumux::cudart::driver::check_initialized;
using gpumux::cudart::driver::Driver;
using gpumux::cudart::driver::fail;

namespace gpumux::cudart::driver {

CUcontext Driver::current_context() {
  auto it = current.find(std::this_thread::get_id());
  return it == current.end() || it->second.empty() ? &primary : it->second.back();
}

CUresult Driver::make_current(std::vector<CUcontext>& stack) {
  CUcontext c = stack.empty() ? &primary : stack.back();
  const std::vector<uint32_t> none;
  const std::vector<uint32_t>& sms = c->green ? c->green->sms : none;
  return gpumuxSetCurrentContext(c->default_stream, sms.data(), unsigned(sms.size()));
}

}  // namespace gpumux::cudart::driver

namespace {

// CUDA_SUCCESS when `c` is the primary context or one cuCtxFromGreenCtx made.
CUresult check_context(const char* api, Driver& d, CUcontext c) {
  if (c == &d.primary || d.contexts.count(c)) return CUDA_SUCCESS;
  return fail(api, CUDA_ERROR_INVALID_CONTEXT, "not a context of this process (the primary or one from cuCtxFromGreenCtx)");
}

}  // namespace

extern "C" {

CUresult cuCtxFromGreenCtx(CUcontext* pContext, CUgreenCtx hCtx) {
  const char* api = "cuCtxFromGreenCtx";
  if (CUresult e = check_initialized(api)) return e;
  if (!pContext || !hCtx) return fail(api, CUDA_ERROR_INVALID_VALUE, "null context pointer or green context");
  Driver& d = Driver::get();
  std::lock_guard lock(d.mutex);
  if (!hCtx->ctx) {  // its default stream (CU_GREEN_CTX_DEFAULT_STREAM): blocking, on its SMs
    CUstream s = nullptr;
    if (cudaError_t e = gpumuxStreamCreateOnSms(&s, 0, 0, hCtx->sms.data(), unsigned(hCtx->sms.size()))) return e;
    hCtx->ctx = new CUctx_st{hCtx, s};
    d.contexts[hCtx->ctx] = hCtx;
    d.green_streams[s] = hCtx;
  }
  *pContext = hCtx->ctx;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext* pctx) {
  if (CUresult e = check_initialized("cuCtxGetCurrent")) return e;
  if (!pctx) return fail("cuCtxGetCurrent", CUDA_ERROR_INVALID_VALUE, "null context pointer");
  Driver& d = Driver::get();
  std::lock_guard lock(d.mutex);
  *pctx = d.current_context();
  return CUDA_SUCCESS;
}

// A null context makes the primary one current (the runtime would bind it
// again at its next call).
CUresult cuCtxSetCurrent(CUcontext ctx) {
  const char* api = "cuCtxSetCurrent";
  if (CUresult e = check_initialized(api)) return e;
  Driver& d = Driver::get();
  std::lock_guard lock(d.mutex);
  if (ctx && check_context(api, d, ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  std::vector<CUcontext>& stack = d.current[std::this_thread::get_id()];
  if (stack.empty()) stack.push_back(nullptr);
  stack.back() = ctx ? ctx : &d.primary;
  return d.make_current(stack);
}

CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
  const char* api = "cuCtxPushCurrent";
  if (CUresult e = check_initialized(api)) return e;
  Driver& d = Driver::get();
  std::lock_guard lock(d.mutex);
  if (check_context(api, d, ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  std::vector<CUcontext>& stack = d.current[std::this_thread::get_id()];
  stack.push_back(ctx);
  return d.make_current(stack);
}

CUresult cuCtxPopCurrent_v2(CUcontext* pctx) {
  const char* api = "cuCtxPopCurrent";
  if (CUresult e = check_initialized(api)) return e;
  Driver& d = Driver::get();
  std::lock_guard lock(d.mutex);
  std::vector<CUcontext>& stack = d.current[std::this_thread::get_id()];
  if (stack.empty()) return fail(api, CUDA_ERROR_INVALID_CONTEXT, "no context was pushed or set on this thread");
  if (pctx) *pctx = stack.back();
  stack.pop_back();
  return d.make_current(stack);
}

CUresult cuCtxPushCurrent(CUcontext ctx) { return cuCtxPushCurrent_v2(ctx); }
CUresult cuCtxPopCurrent(CUcontext* pctx) { return cuCtxPopCurrent_v2(pctx); }

CUresult cuCtxGetDevice(CUdevice* device) {
  if (CUresult e = check_initialized("cuCtxGetDevice")) return e;
  if (!device) return fail("cuCtxGetDevice", CUDA_ERROR_INVALID_VALUE, "null device pointer");
  *device = 0;
  return CUDA_SUCCESS;
}

}  // extern "C"
