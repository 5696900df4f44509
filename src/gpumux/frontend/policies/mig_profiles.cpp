#include "gpumux/frontend/policies/mig_profiles.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <utility>

#include "gpumux/core/error.h"

namespace gpumux::frontend {
namespace {

// (compute slices, memory slices) of the profiles NVIDIA ships on A100-40GB
// (1g.5gb, 1g.10gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb) and H100-80GB (1g.10gb,
// 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb): NVIDIA MIG User Guide,
// "Supported MIG Profiles" (fractions of SMs and of memory per profile).
constexpr std::array<std::pair<uint32_t, uint32_t>, 6> kShapes{{{1, 1}, {1, 2}, {2, 2}, {3, 4}, {4, 4}, {7, 8}}};

bool read_number(std::string_view& s, uint32_t& out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc() || end == s.data()) return false;
  s.remove_prefix(size_t(end - s.data()));
  return true;
}

}  // namespace

MigProfile parse_mig_profile(std::string_view name, const GpuParams& gpu, std::string& error) {
  MigProfile p{std::string(name), 0, 0};
  error.clear();
  if (gpu.mig_slice_sms == 0) {
    error = fmt::format("the GPU '{}' has no MIG (gpu.mig_slice_sms = 0; presets a100 and h100 have it)", gpu.name);
    return p;
  }
  std::string_view s = name;
  uint32_t gb = 0;
  const uint32_t slice_gb = gpu.mig_memory_gb / kMigMemorySlices;
  if (!read_number(s, p.compute_slices) || !s.starts_with("g.") || (s.remove_prefix(2), !read_number(s, gb)) ||
      s != "gb" || gb % slice_gb != 0) {
    error = fmt::format("'{}' is not a MIG profile of the {} GB '{}' (<N>g.<M>gb with M a multiple of {} GB: {})",
                        name, gpu.mig_memory_gb, gpu.name, slice_gb, [&] {
                          std::string names;
                          for (auto [c, m] : kShapes) names += fmt::format("{}{}g.{}gb", names.empty() ? "" : ", ", c, m * slice_gb);
                          return names;
                        }());
    return p;
  }
  p.memory_slices = gb / slice_gb;
  for (auto [c, m] : kShapes)
    if (c == p.compute_slices && m == p.memory_slices) return p;
  error = fmt::format("no MIG profile has {} compute slices and {} of 8 memory slices ('{}')", p.compute_slices,
                      p.memory_slices, name);
  return p;
}

std::vector<MigInstance> place_mig_instances(const std::map<uint32_t, std::string>& names, const GpuParams& gpu) {
  std::vector<MigProfile> profiles;
  for (const auto& [app, name] : names) {
    std::string error;
    profiles.push_back(parse_mig_profile(name, gpu, error));
    if (!error.empty()) throw LoadError(error);
  }
  std::vector<MigInstance> out;
  uint32_t compute = 0, memory = 0;
  const uint32_t parts_per_slice = gpu.num_partitions / kMigMemorySlices;
  for (const MigProfile& p : profiles) {
    out.push_back({compute * gpu.mig_slice_sms, p.compute_slices * gpu.mig_slice_sms, memory * parts_per_slice,
                   p.memory_slices * parts_per_slice});
    compute += p.compute_slices;
    memory += p.memory_slices;
  }
  if (compute > kMigComputeSlices || memory > kMigMemorySlices) {
    std::string names;
    for (const MigProfile& p : profiles) names += (names.empty() ? "" : " + ") + p.name;
    throw LoadError(fmt::format("MIG instances {} need {} compute and {} memory slices; the GPU has {} and {}", names,
                                  compute, memory, kMigComputeSlices, kMigMemorySlices));
  }
  return out;
}

}  // namespace gpumux::frontend
