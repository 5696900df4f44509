// The simulated GPU as the CUDA runtime describes it: cudaGetDeviceProperties
// and cudaDeviceGetAttribute give one view, derived from the GPU config where
// the config has the resource (SMs, clocks, registers, shared memory, L2,
// memory bus, copy engines) and otherwise the value a compute-capability-8.0
// GPU (an A100) reports, or what gpumux supports (docs/cuda-programs.md).
#pragma once

#include <optional>

#include "gpumux/core/config.h"
#include "gpumux/cudart/cuda_abi.h"
#include "gpumux/runtime/runtime.h"

namespace gpumux::cudart {

// `sms`: the SMs of the device as the program sees it (Runtime::device_sm_count:
// a MIG instance's under gpumux serve with mig).
cudaDeviceProp device_properties(const GpuConfig& c, const runtime::DeviceLimits& lim, uint32_t sms);

// The value of cudaDeviceAttr `attr`; nullopt if CUDA 13 has no such attribute.
std::optional<int> device_attribute(const GpuConfig& c, const runtime::DeviceLimits& lim, uint32_t sms, int attr);

}  // namespace gpumux::cudart
