// The SM's side of the preemptible-fault pipelines (fault_pipeline.h,
// docs/virtual-memory.md). Only global memory instructions are concerned, and
// only once their access is known to reach global memory: a generic access
// that resolves to shared or local memory cannot fault and holds nothing.
// A line's TLB check passes when the MMU says so (translated()), or when its
// response arrives first: an L1D hit needs no translation (the L1D is
// virtually tagged), and a miss merged into another's MSHR is answered with it.
#include <algorithm>
#include <bit>
#include <stdexcept>

#include "gpumux/sm/occupancy.h"
#include "gpumux/sm/sm.h"

namespace gpumux::sm {

namespace {

// Ends a warp disable at `now`. It stopped the warp's fetch (section 6.3.1,
// figure 6.4): its next instruction is fetched again.
template <class WarpSlot>
void enable_warp(WarpSlot& w, Cycle now, uint32_t fetch_latency, KeyedCounter& disabled_cycles) {
  w.enabled_at = now + fetch_latency;
  disabled_cycles[w.kernel->key].add(w.enabled_at - w.disabled_since);
}

}  // namespace

void Sm::register_fault_pipeline_stats(StatRegistry& stats, const std::string& pre) {
  if (!fault_.active()) return;
  const std::string fp = pre + "fault_pipeline.";
  if (fault_.disable != WarpDisable::None)
    stats.add(fp + "disabled_cycles", stats_.fault_disabled_cycles,
              "warp-cycles warps could not issue after a global memory instruction (warp disable)");
  if (fault_.holds_sources)
    stats.add(fp + "source_hold_cycles", stats_.fault_source_hold_cycles,
              "cycles from issue to last TLB check of global memory instructions, whose source registers "
              "no younger instruction may write meanwhile (summed over instructions)");
  if (fault_.replay_queue) {
    stats.add(fp + "replay_queue.entry_cycles", stats_.fault_replay_entry_cycles,
              "replay-queue entries x cycles (average occupancy = this / cycles)");
    stats.add(fp + "replay_queue.full_cycles", stats_.fault_replay_full_cycles,
              "warp-cycles a global memory instruction waited for a replay-queue entry");
  }
  if (switching_on_fault()) {
    stats.add(fp + "tbs_switched_on_fault", stats_.tbs_switched_on_fault,
              "TBs switched out because all their warps waited for page faults or at a barrier");
    stats.add(fp + "replays", stats_.fault_replays,
              "global memory instructions squashed by a switch on fault and sent again when their TB resumed");
  }
  if (fault_.operand_log) {
    stats.add(fp + "operand_log.entry_cycles", stats_.fault_log_entry_cycles,
              "operand-log entries x cycles (average occupancy = this / cycles)");
    stats.add(fp + "operand_log.full_cycles", stats_.fault_log_full_cycles,
              "warp-cycles a global memory instruction waited for space in its TB's log partition");
  }
}

uint32_t Sm::log_partition(const KernelInstance& k) const {
  if (!fault_.operand_log) return 0;
  const uint32_t entries = p_.fault_pipeline.operand_log_bytes / kOperandLogEntryBytes;
  return entries / std::max<uint32_t>(1, tbs_per_empty_sm(k.needs, p_));
}

uint64_t Sm::fault_context_bytes(const KernelInstance& k) const {
  return uint64_t(log_partition(k)) * kOperandLogEntryBytes;
}

bool Sm::fault_room(const WarpSlot& w, const InstTiming& t) const {
  if (fault_.replay_queue && replay_used_ == p_.fault_pipeline.replay_queue) return false;
  const TbSlot& tb = tbs_[w.tb];
  return !fault_.operand_log || tb.log_used + t.fault_log_entries <= tb.log_capacity;
}

void Sm::fault_stalled(WarpSlot& w, const InstTiming& t, Cycle now) {
  if (w.fault_stall_since != kNever) return;
  w.fault_stall_since = now;
  const TbSlot& tb = tbs_[w.tb];
  w.fault_stall_log = fault_.operand_log && tb.log_used + t.fault_log_entries > tb.log_capacity;
}

void Sm::fault_stall_end(WarpSlot& w, Cycle now) {
  (w.fault_stall_log ? stats_.fault_log_full_cycles : stats_.fault_replay_full_cycles)[w.kernel->key].add(
      now - w.fault_stall_since);
  w.fault_stall_since = kNever;
}

void Sm::fault_issue(WarpSlot& w, MemOp& op, const InstTiming& t, unsigned lines, Cycle now) {
  op.pipelined = true;
  op.issued_at = now;
  op.unchecked = lines == 64 ? ~uint64_t(0) : (uint64_t(1) << lines) - 1;
  op.disables = fault_.disable != WarpDisable::None;
  if (op.disables) {
    w.enabled_at = kNever;
    w.disabled_since = now;
  }
  if (fault_.replay_queue) ++replay_used_;
  if (fault_.operand_log) {
    op.log_entries = t.fault_log_entries;
    tbs_[w.tb].log_used += op.log_entries;
  }
  op.num_held = 0;
  if (fault_.holds_sources) {
    const exec::Frame& f = w.warp->frame();
    auto srcs = w.kernel->timing->sources(t);
    if (srcs.size() > op.held.size()) throw std::logic_error("a memory instruction with more sources than MemOp::held");
    for (RegRef r : srcs) {
      const size_t abs = size_t(r.pred ? f.pred_base : f.reg_base) + r.index;
      std::vector<Cycle>& v = r.pred ? w.held_pred : w.held_reg;
      if (abs >= v.size()) v.resize(abs + 1, 0);
      v[abs] = kNever;
      op.held[op.num_held++] = uint32_t(abs) | (r.pred ? kPredBit : 0);
    }
  }
}

void Sm::fault_line_checked(WarpSlot& w, MemOp& op, unsigned line, Cycle now) {
  const uint64_t bit = uint64_t(1) << line;
  if (op.faulted & bit) {  // its fault was serviced (TB switching on fault)
    op.faulted &= ~bit;
    --tbs_[w.tb].fault_lines;
    --fault_lines_;
  }
  if (!(op.unchecked & bit)) return;  // the other of its notice and its response came first
  op.unchecked &= ~bit;
  if (op.unchecked != 0) return;
  // The last TLB check passed: the instruction can no longer fault.
  const StatKey key = w.kernel->key;
  if (op.disables && fault_.disable == WarpDisable::UntilLastCheck) {
    op.disables = false;
    enable_warp(w, now, p_.fetch_latency, stats_.fault_disabled_cycles);
  }
  if (op.log_entries) {
    tbs_[w.tb].log_used -= op.log_entries;
    stats_.fault_log_entry_cycles[key].add(uint64_t(op.log_entries) * (now - op.issued_at));
    op.log_entries = 0;
    for (SubCore& sc : sub_cores_) sc.dirty = true;  // warps may wait for log space
  }
  if (op.num_held) {
    stats_.fault_source_hold_cycles[key].add(now - op.issued_at);
    const uint32_t mine = uint32_t(&op - w.mem_ops.data());
    for (unsigned i = 0; i < op.num_held; ++i) {
      const uint32_t x = op.held[i];
      bool other = false;  // an older or younger instruction of the warp still holds it
      for (uint32_t m = w.mem_ops_used & ~(1u << mine); m && !other; m &= m - 1) {
        const MemOp& o = w.mem_ops[unsigned(std::countr_zero(m))];
        other = o.unchecked && std::find(o.held.begin(), o.held.begin() + o.num_held, x) != o.held.begin() + o.num_held;
      }
      if (!other) ((x & kPredBit) ? w.held_pred : w.held_reg)[x & ~kPredBit] = now;
    }
    op.num_held = 0;
  }
  if (w.block == Block::None) compute_ready(w, now);
  wake();
}

void Sm::fault_commit(WarpSlot& w, MemOp& op, Cycle now) {
  op.pipelined = false;
  const StatKey key = w.kernel->key;
  if (op.disables) {  // WD-commit
    op.disables = false;
    enable_warp(w, now, p_.fetch_latency, stats_.fault_disabled_cycles);
  }
  if (fault_.replay_queue) {
    stats_.fault_replay_entry_cycles[key].add(now - op.issued_at);
    if (replay_used_-- == p_.fault_pipeline.replay_queue)
      for (SubCore& sc : sub_cores_) sc.dirty = true;  // memory instructions may issue again
  }
}

void Sm::translated(const mem::MemRequest& r) {
  WarpSlot& w = warps_[uint16_t(r.token >> 16)];
  MemOp& op = w.mem_ops[r.token & 0xff];
  if (uint16_t(r.token >> 32) != op.gen) return squashed_line_done(r.token);
  fault_line_checked(w, op, unsigned((r.token >> 8) & 0xff), engine().wake_cycle(domain()));
}

}  // namespace gpumux::sm
