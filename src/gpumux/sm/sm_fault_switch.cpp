// TB switching on fault (Tanasic's thesis, sections 6.4.1 and 6.5.3;
// docs/virtual-memory.md). The MMU reports the requests whose walk found their
// page on the host (faulted()). A TB with such a request whose live warps are
// all at a barrier or blocked on memory is switched out when the front end has
// a ready TB for its place (wants_fault_switch: a TB switched out earlier whose
// faults are serviced, or a new one while fewer than
// sm.fault_pipeline.extra_tbs TBs of this SM wait off-chip). Its global memory
// instructions still before their last TLB check are squashed (the others
// cannot fault and complete): their MemOp entries are freed with what they
// hold (replay queue, operand log), the entries' generation moves on so that
// their requests' later answers are stale, and they are replayed (their lines
// sent again) when the TB resumes, which it may once every squashed line has
// been translated or answered: a line merged into another's L1D miss waits
// for a fault the SM never hears of, and is answered after it.
// The rest is the context switch of sm_preempt.cpp.
#include <algorithm>
#include <bit>

#include "gpumux/sm/sm.h"

namespace gpumux::sm {

namespace {

uint64_t line_bit(const mem::MemRequest& r) { return uint64_t(1) << ((r.token >> 8) & 0xff); }

}  // namespace

void Sm::faulted(const mem::MemRequest& r) {
  const uint16_t slot = uint16_t(r.token >> 16);
  if (!switching_on_fault() || slot >= p_.warp_slots) return;  // event warps (EDGE) are not TBs to switch
  WarpSlot& w = warps_[slot];
  MemOp& op = w.mem_ops[r.token & 0xff];
  if (uint16_t(r.token >> 32) != op.gen || (op.faulted & line_bit(r))) return;
  op.faulted |= line_bit(r);
  ++tbs_[w.tb].fault_lines;
  ++fault_lines_;
  wake();
}

bool Sm::tb_blocked(uint16_t ti, bool& faulted, bool& unchecked) const {
  const TbSlot& t = tbs_[ti];
  for (uint16_t slot : t.warps) {
    if (!owns(ti, slot)) continue;
    const WarpSlot& w = warps_[slot];
    for (uint32_t m = w.mem_ops_used; m; m &= m - 1) {
      const MemOp& op = w.mem_ops[unsigned(std::countr_zero(m))];
      if (op.unchecked && op.async_copy) return false;
      faulted |= (op.faulted & op.unchecked) != 0;  // not a replay faulting again (replays are not squashed)
      unchecked |= op.unchecked != 0;
    }
    // At a barrier, or blocked on memory; anything else (ready, waiting for
    // a result, exited and retiring, lent) keeps the TB here.
    if (w.block != Block::Barrier && w.block != Block::Fence && (w.block != Block::None || w.ready_at != kNever))
      return false;
  }
  return true;
}

bool Sm::fault_switchable(uint16_t ti) const {
  bool faulted = false, unchecked = false;
  return tb_blocked(ti, faulted, unchecked) && faulted;
}

// TBs leaving the SM do not count; one being restored will run. A TB whose
// requests merged into another TB's faulted L1D miss is not told of the
// fault (the MMU never sees them): here it counts as waiting for one while
// the SM has a reported fault and its loads are not translated yet.
bool Sm::fault_idle() const {
  if (fault_lines_ == 0) return false;
  for (size_t i = 0; i < tbs_.size(); ++i) {
    const TbSlot& t = tbs_[i];
    if (!t.used || t.marked) continue;
    bool faulted = false, unchecked = false;
    if (t.phase != Phase::Running || !tb_blocked(uint16_t(i), faulted, unchecked) || !unchecked) return false;
  }
  return true;
}

void Sm::vacate_on_fault(Cycle now) {
  for (size_t i = 0; i < tbs_.size(); ++i)
    if (tbs_[i].used && tbs_[i].phase == Phase::Running && !tbs_[i].marked) switch_on_fault(uint16_t(i), now);
}

void Sm::fault_switch_tick(Cycle now) {
  for (size_t i = 0; i < tbs_.size() && fault_lines_ > 0; ++i) {
    const TbSlot& t = tbs_[i];
    // The answer may have vacated the SM (fault-aware scheduling): t is then marked.
    if (t.used && t.phase == Phase::Running && !t.marked && t.fault_lines > 0 && fault_switchable(uint16_t(i)) &&
        listener_.wants_fault_switch(id_, *t.kernel) && !t.marked)
      switch_on_fault(uint16_t(i), now);
  }
}

void Sm::switch_on_fault(uint16_t ti, Cycle now) {
  TbSlot& t = tbs_[ti];
  const StatKey key = t.kernel->key;
  FaultWait wait{t.kernel->id, t.index, {}, false};
  const exec::Warp* first = t.tb->warps().data();
  for (uint16_t slot : t.warps) {
    if (!owns(ti, slot)) continue;
    WarpSlot& w = warps_[slot];
    for (uint32_t m = w.mem_ops_used; m; m &= m - 1) {
      const unsigned op_index = unsigned(std::countr_zero(m));
      MemOp& op = w.mem_ops[op_index];
      if (!op.unchecked) continue;  // past its last TLB check: it cannot fault, let it complete
      ReplayedAccess a = w.sent[op_index];
      a.warp = uint32_t(w.warp - first);
      a.regs = op.regs;
      a.num_regs = op.num_regs;
      a.is_store = op.is_store;
      a.extra_latency = op.extra_latency;
      t.replays.push_back(std::move(a));
      for (uint64_t f = op.unchecked; f; f &= f - 1)
        wait.tokens.push_back(mem_token(op.gen, slot, unsigned(std::countr_zero(f)), op_index));
      // Squashed: it gives back what it holds; its TB's log partition is saved with it.
      if (fault_.replay_queue && op.pipelined) {
        stats_.fault_replay_entry_cycles[key].add(now - op.issued_at);
        --replay_used_;
      }
      t.log_used -= op.log_entries;
      const auto lines = uint32_t(std::popcount(op.faulted));
      t.fault_lines -= lines;
      fault_lines_ -= lines;
      op.faulted = op.unchecked = 0;
      op.pipelined = false;
      op.log_entries = op.num_held = 0;
      if (op.is_store) --w.pending_stores;
      ++op.gen;
      w.mem_ops_used &= ~(1u << op_index);
    }
  }
  for (SubCore& sc : sub_cores_) sc.dirty = true;  // replay-queue entries freed
  fault_waits_.push_back(std::move(wait));
  stats_.tbs_switched_on_fault[key].add();
  t.fault_switch = true;
  ContextSaveOptions o;
  o.zero_cost = p_.fault_pipeline.ideal_switch;
  preempt_tb(ti, PreemptAction::Switch, o);
}

void Sm::squashed_line_done(uint64_t token) {
  for (auto it = fault_waits_.begin(); it != fault_waits_.end(); ++it) {
    auto tok = std::find(it->tokens.begin(), it->tokens.end(), token);
    if (tok == it->tokens.end()) continue;
    it->tokens.erase(tok);
    if (it->tokens.empty() && it->left) {
      const uint32_t kernel = it->kernel_id;
      const uint64_t tb = it->tb;
      fault_waits_.erase(it);
      listener_.faults_serviced(id_, kernel, tb);
    }
    return;
  }
}

bool Sm::fault_wait_left(uint32_t kernel_id, uint64_t tb) {
  auto it = std::find_if(fault_waits_.begin(), fault_waits_.end(),
                         [&](const FaultWait& f) { return f.kernel_id == kernel_id && f.tb == tb && !f.left; });
  if (it == fault_waits_.end()) return false;
  if (it->tokens.empty()) {
    fault_waits_.erase(it);
    return false;
  }
  it->left = true;
  return true;
}

void Sm::replay(uint16_t ti) {
  TbSlot& t = tbs_[ti];
  const exec::Warp* first = t.tb->warps().data();
  for (ReplayedAccess& a : t.replays) {
    auto slot = *std::find_if(t.warps.begin(), t.warps.end(),
                              [&](uint16_t s) { return owns(ti, s) && warps_[s].warp == first + a.warp; });
    WarpSlot& w = warps_[slot];
    // A fresh slot: the warp had these instructions in flight at once, so there is room.
    const unsigned op_index = unsigned(std::countr_one(w.mem_ops_used));
    w.mem_ops_used |= 1u << op_index;
    MemOp& op = w.mem_ops[op_index];
    op.lines_left = uint16_t(a.lines.size());
    op.num_regs = a.num_regs;
    op.regs = a.regs;
    op.is_store = a.is_store;
    op.extra_latency = a.extra_latency;
    // Not pipelined: a replay is past its squash (it can fault again only after an
    // eviction, and its TB then waits for it rather than switching again).
    op.async_copy = op.pipelined = op.disables = false;
    op.log_entries = op.num_held = 0;
    op.unchecked = op.faulted = 0;
    for (unsigned i = 0; i < op.num_regs; ++i) {
      const uint32_t x = op.regs[i];
      std::vector<Cycle>& v = (x & kPredBit) ? w.pred_ready : w.reg_ready;
      const size_t abs = x & ~kPredBit;
      if (abs >= v.size()) v.resize(abs + 1, 0);
      v[abs] = kNever;
    }
    if (op.is_store) ++w.pending_stores;
    stats_.fault_replays[t.kernel->key].add();
    replay_backlog_.push_back({slot, uint8_t(op_index), std::move(a)});
  }
  t.replays.clear();
  drain_replays();
}

void Sm::drain_replays() {
  size_t n = 0;
  for (; n < replay_backlog_.size() && lsu_count_ < p_.lsu_queue; ++n) {
    const BackloggedReplay& b = replay_backlog_[n];
    LsuEntry& e = lsu_push(b.slot, b.op_index, b.access.op, b.access.bytes, true);
    e.lines.count = unsigned(b.access.lines.size());
    std::copy(b.access.lines.begin(), b.access.lines.end(), e.lines.lines.begin());
  }
  replay_backlog_.erase(replay_backlog_.begin(), replay_backlog_.begin() + ptrdiff_t(n));
}

}  // namespace gpumux::sm
