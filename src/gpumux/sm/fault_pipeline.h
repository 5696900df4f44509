// The issue rules of the SM pipelines that make page faults preemptible
// (Tanasic's thesis, section 6.3; docs/virtual-memory.md). Each pipeline is a
// set of rules the SM applies to global memory instructions (the only ones
// that can fault), registered by name in fault_pipelines.inc:
//   stall-on-fault  the baseline: no rule (a fault is a long TLB miss).
//   wd-commit       the warp cannot issue until the instruction commits.
//   wd-lastcheck    ... until the TLB check of its last request has passed.
//   replay-queue    in flight in a per-SM replay queue from issue to commit;
//                   its source registers are released only at its last TLB
//                   check (no younger write to them before: RAW on replay).
//   operand-log     the replay queue, with sources copied into a per-TB log
//                   partition instead of held: log entries are taken at issue
//                   and freed at the last TLB check.
#pragma once

#include <cstdint>
#include <string>

namespace gpumux::sm {

enum class WarpDisable : uint8_t { None, UntilCommit, UntilLastCheck };

struct FaultPipelineRules {
  const char* name;
  WarpDisable disable;
  bool holds_sources;
  bool replay_queue;
  bool operand_log;

  // Whether the SM must hear when a request's translation is done.
  bool needs_checks() const { return disable == WarpDisable::UntilLastCheck || holds_sources || operand_log; }
  // Whether issue may wait for replay-queue or log space.
  bool limits_issue() const { return replay_queue || operand_log; }
  bool active() const { return disable != WarpDisable::None || holds_sources || limits_issue(); }
};

// Section 6.5.2: 8 B of address or data per thread, times 32 threads. A load
// logs its address (1 entry), a store its address and data (2 entries).
inline constexpr uint32_t kOperandLogEntryBytes = 256;

// The rules of a registered pipeline; throws LoadError for an unknown name.
const FaultPipelineRules& fault_pipeline_rules(const std::string& name);

}  // namespace gpumux::sm
