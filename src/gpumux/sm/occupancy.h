// What one TB of a kernel needs on an SM, and how many such TBs an empty SM
// holds: the one rule behind TB placement, the cooperative-launch limit and
// the CUDA occupancy API.
#pragma once

#include <cstdint>

#include "gpumux/core/sm_params.h"

namespace gpumux::exec {
struct KernelLayout;
}

namespace gpumux::sm {

struct TbNeeds {
  uint32_t warps = 0, threads = 0;
  uint32_t registers = 0;    // rounded to the allocation granularity
  uint32_t shared_bytes = 0;  // rounded to the allocation granularity
};

// A TB of `threads` threads with `dyn_smem` bytes of dynamic shared memory.
// Register counts are estimates (ptx/resources.h): capped at the register
// file, so that they alone never keep a TB off an empty SM.
TbNeeds tb_needs(const exec::KernelLayout& kl, uint32_t threads, uint64_t dyn_smem, const SmParams& sp);

// TBs of these needs that fit an empty SM (0 if one does not).
uint32_t tbs_per_empty_sm(const TbNeeds& n, const SmParams& sp);

}  // namespace gpumux::sm
