// What an SM waits for, for the watchdog's deadlock report.
#include <fmt/format.h>

#include "gpumux/core/popcount.h"
#include "gpumux/sm/sm.h"

namespace gpumux::sm {

uint32_t Sm::active_warps() const {
  uint32_t n = 0;
  for (const WarpSlot& w : warps_) n += w.warp && w.block == Block::None && !w.waits_memory;
  return n;
}

std::string Sm::describe_wait() const {
  if (tbs_used_ == 0 && lsu_count_ == 0 && parked_.empty()) return "";
  std::string s = fmt::format("{} TBs, {} warps, LSU queue {}", tbs_used_, warps_used_, lsu_count_);
  for (const ParkedShared& p : parked_)
    s += fmt::format("\n    shared memory of {} TB {} parked ({} B{})", p.kernel->label, p.index, p.smem.size,
                     p.evicting ? fmt::format(", being written back: {} lines unacknowledged", p.lines_unacked) : "");
  for (size_t i = 0; i < warps_.size(); ++i) {
    const WarpSlot& w = warps_[i];
    if (!w.warp) continue;
    const char* what = "ready";
    switch (w.block) {
      case Block::Barrier: what = "at barrier"; break;
      case Block::Fence: what = "fence: waits for its stores"; break;
      case Block::Exited: what = "exited: waits for its memory accesses"; break;
      case Block::Preempted: what = "held by a preemption (quiescing, saving or restoring)"; break;
      case Block::Victim: what = "preempted by an event warp"; break;
      case Block::None:
        what = w.enabled_at == kNever ? "disabled until its global memory instruction passes (fault pipeline)"
               : w.ready_at == kNever ? "scoreboard: waits for a load (or a source held by the fault pipeline)"
                                      : "ready or waiting for a result";
        break;
    }
    auto c = tbs_[w.tb].tb->ctaid();
    s += fmt::format("\n    warp slot {} ({} TB ({},{},{}) warp {}): pc {} {}; {} memory ops, {} stores pending",
                     i, w.kernel->label, c[0], c[1], c[2], w.warp->index(), w.warp->pc(), what,
                     gpumux::popcount(w.mem_ops_used), w.pending_stores);
  }
  return s;
}

}  // namespace gpumux::sm
