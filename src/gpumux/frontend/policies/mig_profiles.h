// MIG profiles (policy mig, docs/sharing-modes.md): what a GPU instance owns.
//
// NVIDIA's MIG splits an A100/H100 into 7 compute slices (a GPC's SMs each)
// and 8 memory slices (an eighth of the L2 and of the DRAM channels each). A
// profile "<N>g.<M>gb" takes N compute slices and M GB of memory, that is
// M / (memory / 8) memory slices. The model places instances in the order
// given, from SM 0 and partition 0 upward; NVIDIA's fixed placement slots are
// not modeled (any combination whose slices fit is accepted).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "gpumux/core/config.h"

namespace gpumux::frontend {

inline constexpr uint32_t kMigComputeSlices = 7, kMigMemorySlices = 8;

struct MigProfile {
  std::string name;
  uint32_t compute_slices = 0, memory_slices = 0;
};

// The profile called `name` on `gpu`; an empty error when it is valid, else
// why not (unknown shape, GPU without MIG).
MigProfile parse_mig_profile(std::string_view name, const GpuParams& gpu, std::string& error);

struct MigInstance {
  uint32_t first_sm = 0, sms = 0;
  uint32_t first_partition = 0, partitions = 0;
};

// The instances of the profiles named by application id, in id order;
// throws LoadError for an invalid name or when they need more slices than
// the GPU has.
std::vector<MigInstance> place_mig_instances(const std::map<uint32_t, std::string>& names, const GpuParams& gpu);

}  // namespace gpumux::frontend
