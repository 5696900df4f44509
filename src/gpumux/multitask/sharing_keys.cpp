#include "gpumux/multitask/sharing_keys.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace gpumux::multitask {

namespace {

constexpr std::array<std::string_view, 14> kSharingOnly = {
    // How event kernels get room beside background kernels (docs/edge.md);
    // edge.launch_path is not here: it sets the event kernels' own latency.
    "edge.scheduling", "edge.reserved_fraction", "edge.reserve_window_us", "edge.events_per_reserved_sm",
    "edge.tb_preemption", "edge.victim", "edge.raise_victim_priority", "edge.flush_ibuffer", "edge.skip_barrier",
    "edge.replay_loads", "edge.ibuffer_entries", "edge.replay_cycles", "edge.free_registers_beyond_victim",
    // QoS quota epochs and TB adjustment: only with a quota scheme, which isolated runs have not.
    "qos."};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

std::span<const std::string_view> sharing_only_keys() { return kSharingOnly; }

bool is_sharing_only(std::string_view assignment) {
  std::string_view key = trim(assignment.substr(0, assignment.find('=')));
  return std::any_of(kSharingOnly.begin(), kSharingOnly.end(), [&](std::string_view k) {
    return k.back() == '.' ? key.starts_with(k) : key == k;
  });
}

std::vector<std::string> without_sharing_only(std::span<const std::string> overrides) {
  std::vector<std::string> kept;
  for (const std::string& o : overrides)
    if (!is_sharing_only(o)) kept.push_back(o);
  return kept;
}

}  // namespace gpumux::multitask
