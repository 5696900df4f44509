// Config keys that only decide how applications share the GPU. An
// application's isolated baseline is taken without them, so that every
// sharing configuration compared (EDGE's SM reservation, its preemption
// options, QoS epochs) divides by the same alone run: one baseline per
// benchmark, input, seed and GPU.
//
// Some of them change nothing when an application runs alone (QoS epochs
// without a quota scheme); others would distort the baseline: under
// edge.scheduling = reserve the event application alone would be confined to
// the reserved SMs. (The copy order is a workload's [policy] option, which
// isolated runs do not have either.)
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpumux::multitask {

// The sharing-only keys; an entry ending in '.' is a whole section.
std::span<const std::string_view> sharing_only_keys();

// True when the override "path.key=value" sets a sharing-only key.
bool is_sharing_only(std::string_view assignment);

// `overrides` without those that set sharing-only keys, in order.
std::vector<std::string> without_sharing_only(std::span<const std::string> overrides);

}  // namespace gpumux::multitask
