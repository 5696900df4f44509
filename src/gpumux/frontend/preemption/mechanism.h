// Preemption mechanisms (docs/preemption.md): how the TBs a sharing policy
// takes back from an SM leave it. The dispatcher asks a mechanism to pick, of
// one kernel's resident TBs on one SM, the ones that must go and, for each,
// the SM action (sm/preemption.h): drain, switch or flush.
//
// Mechanisms are registered by name (mechanisms.inc, one file each):
//   drain    TBs run to completion; no new TB of the kernel is placed there
//   switch   context switch: state saved to memory, resumed later on any SM
//   flush    idempotent TBs are discarded and re-run later; others drain
//   chimera  per TB, the cheapest of the three that meets a latency budget
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpumux/core/clock.h"
#include "gpumux/sm/kernel_instance.h"
#include "gpumux/sm/preemption.h"

namespace gpumux::frontend {

// From the workload's [policy] table.
struct PreemptionOptions {
  std::string mechanism = "drain";
  double latency_budget_us = 15;  // chimera: target request-to-SM-free latency
  // Hybrid: TBs still draining this long after the request are switched (0: never).
  double switch_after_us = 0;
  sm::ContextSaveOptions save;  // what a switch saves
};

// What a mechanism knows to predict costs, in core cycles.
struct PreemptionEstimates {
  double sm_bytes_per_cycle = 1;  // the SM's share of peak DRAM bandwidth
  Cycle latency_budget = 0;
  bool live_registers_only = false;
  bool lazy_shared = false;  // a switch leaves shared memory parked: it saves the rest only
};

struct PreemptChoice {
  uint16_t slot = 0;
  sm::PreemptAction action = sm::PreemptAction::Drain;
};

class PreemptionMechanism {
 public:
  virtual ~PreemptionMechanism() = default;
  virtual std::string_view name() const = 0;
  // Appends to `out` how `n` of `candidates` (resident TBs of `k` on one SM,
  // none already leaving; n <= candidates.size()) leave the SM.
  virtual void choose(std::span<const sm::ResidentTb> candidates, uint32_t n, const sm::KernelInstance& k,
                      const PreemptionEstimates& e, std::vector<PreemptChoice>& out) const = 0;
};

// LoadError listing the known names for an unknown one.
std::unique_ptr<PreemptionMechanism> make_preemption_mechanism(std::string_view name);
std::vector<std::string> preemption_mechanism_names();

// Shared by the mechanisms: the n candidates that come first under `before`.
template <class Before>
std::vector<sm::ResidentTb> first_n(std::span<const sm::ResidentTb> candidates, uint32_t n, Before before) {
  std::vector<sm::ResidentTb> v(candidates.begin(), candidates.end());
  std::stable_sort(v.begin(), v.end(), before);
  v.resize(std::min<size_t>(n, v.size()));
  return v;
}

}  // namespace gpumux::frontend
