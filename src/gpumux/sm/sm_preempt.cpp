// The SM's preemption protocol (preemption.h): holding a TB's warps, waiting
// for its in-flight work, moving its context through the memory path, and
// placing it back.
#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "gpumux/sm/device_addresses.h"
#include "gpumux/sm/sm.h"

namespace gpumux::sm {

namespace {

// The save area of an application: a window of its own range
// (device_addresses.h) above any allocation the runtime makes, 256 MB per kernel launch (modulo 256 launches,
// TB areas modulo 256 MB): aliasing there only changes which lines hit in
// the caches, never the functional state, which the SM keeps exactly.
constexpr unsigned kKernelAreaShift = 28;

uint32_t lines_of(uint64_t bytes) { return uint32_t((bytes + mem::kLineBytes - 1) / mem::kLineBytes); }

}  // namespace

const char* action_name(PreemptAction a) {
  switch (a) {
    case PreemptAction::Drain: return "drain";
    case PreemptAction::Switch: return "switch";
    case PreemptAction::Flush: return "flush";
  }
  return "?";
}

uint64_t Sm::full_context_bytes(const KernelInstance& k) const {
  return uint64_t(k.needs.registers) * 4 + k.needs.shared_bytes + uint64_t(k.needs.warps) * p_.warp_context_bytes +
         fault_context_bytes(k);
}

uint64_t Sm::context_bytes(uint16_t ti, bool live_only) const {
  const TbSlot& t = tbs_[ti];
  const KernelInstance& k = *t.kernel;
  const uint64_t warp_regs = k.needs.warps ? uint64_t(k.needs.registers) * 4 / k.needs.warps : 0;
  uint64_t warps = 0, regs = 0;
  for (uint16_t slot : t.warps) {
    const WarpSlot& w = warps_[slot];
    if (!owns(ti, slot) || w.warp->state() == exec::WarpState::Exited) continue;
    ++warps;
    // Inside a device function the caller's registers are live too: save the whole allocation.
    if (live_only && w.warp->in_kernel_frame())
      regs += std::min<uint64_t>(warp_regs, uint64_t(k.timing->live_units(w.warp->function(), w.warp->pc())) * 4 *
                                                exec::kWarpSize);
    else
      regs += warp_regs;
  }
  return regs + t.smem.size + warps * p_.warp_context_bytes + fault_context_bytes(k);
}

uint64_t Sm::save_area(const KernelInstance& k, uint64_t index) const {
  const uint32_t smem = k.needs.shared_bytes;
  uint64_t stride = uint64_t(lines_of(smem) + lines_of(full_context_bytes(k) - smem)) * mem::kLineBytes;
  uint64_t area = uint64_t(1) << kKernelAreaShift;
  uint64_t offset = (uint64_t(k.id % 256) << kKernelAreaShift) + (index * stride) % area;
  return application_base(k.app) + kSaveAreaBase + offset;
}

void Sm::resident_tbs(uint32_t kernel_id, std::vector<ResidentTb>& out) const {
  out.clear();
  Cycle now = engine().wake_cycle(domain());
  for (size_t i = 0; i < tbs_.size(); ++i) {
    const TbSlot& t = tbs_[i];
    if (!t.used || t.kernel->id != kernel_id) continue;
    ResidentTb r;
    r.slot = uint16_t(i);
    r.index = t.index;
    r.run_cycles = t.run_cycles_before + (now - std::min(now, t.started));
    r.warp_insts = t.insts;
    r.context_bytes = context_bytes(uint16_t(i), false);
    r.live_context_bytes = context_bytes(uint16_t(i), true);
    r.shared_bytes = t.smem.size;
    r.idempotent = !t.side_effects && !t.flushed_before;
    // A TB still restoring counts as busy: it cannot be taken off yet.
    r.preempting = t.marked || t.phase != Phase::Running;
    r.draining = t.marked && t.action == PreemptAction::Drain;
    out.push_back(r);
  }
  // 2-way allocation: boundary TBs first, against the allocation direction.
  if (two_way_) {
    const bool top = two_way_->from_top(regs_, smem_, kernel_id);
    std::sort(out.begin(), out.end(), [&](const ResidentTb& a, const ResidentTb& b) {
      return TwoWayAllocation::preempted_before(top, tbs_[a.slot].regs, tbs_[b.slot].regs);
    });
  }
}

bool Sm::fixed_preemption_order() const { return two_way_ != nullptr; }

void Sm::preempt_tb(uint16_t ti, PreemptAction a, const ContextSaveOptions& o) {
  TbSlot& t = tbs_[ti];
  // A draining TB may still be switched or flushed (hybrid preemption).
  if (!t.used || t.phase != Phase::Running || (t.marked && (t.action != PreemptAction::Drain || a == PreemptAction::Drain)))
    return;
  // A TB with a warp lent to an event warp (a held EDGE victim, docs/edge.md)
  // is drained instead: the warp's slot (and maybe registers) are the event's
  // until it ends, and the victim resumes only then.
  if (o.zero_cost) a = PreemptAction::Switch;
  bool live = false, lent = false;
  for (uint16_t slot : t.warps) {
    if (!owns(ti, slot)) continue;
    live |= warps_[slot].block != Block::Exited;
    lent |= warps_[slot].block == Block::Victim;
  }
  if (!live || lent || (a == PreemptAction::Flush && (t.side_effects || t.flushed_before))) a = PreemptAction::Drain;
  t.marked = true;
  t.action = a;
  t.live_only = o.live_registers_only;
  t.lazy_shared = o.lazy_shared && t.smem.size > 0;
  t.zero_cost = o.zero_cost;
  if (a == PreemptAction::Drain) return;
  // Stop issuing; the pipeline drains: results already in flight land by pipeline_done.
  t.pipeline_done = 0;
  for (uint16_t slot : t.warps) {
    if (!owns(ti, slot)) continue;
    WarpSlot& w = warps_[slot];
    if (w.block == Block::Exited) continue;
    for (Cycle c : w.reg_ready)
      if (c != kNever) t.pipeline_done = std::max(t.pipeline_done, c);
    w.block = Block::Preempted;
    SubCore& sc = sub_cores_[w.sub_core];
    std::erase(sc.warps, slot);
    sc.dirty = true;
  }
  t.at_barrier = 0;  // the barrier state travels in the exec::ThreadBlock
  t.phase = Phase::Quiescing;
  check_quiesced(ti);
  wake();
}

void Sm::check_quiesced(uint16_t ti) {
  TbSlot& t = tbs_[ti];
  if (t.phase != Phase::Quiescing) return;
  for (uint16_t slot : t.warps) {
    const WarpSlot& w = warps_[slot];
    if (!owns(ti, slot)) continue;
    // In-flight loads, unacknowledged stores, or exited warps still retiring.
    if (w.mem_ops_used != 0 || w.pending_stores != 0 || w.block == Block::Exited) return;
  }
  if (t.action == PreemptAction::Flush) {
    stats_.tbs_flushed[t.kernel->key].add();
    stats_.insts_discarded[t.kernel->key].add(t.insts);
    return release_preempted(ti);
  }
  Cycle now = engine().wake_cycle(domain());
  t.phase = Phase::Saving;
  // A lazy save leaves the shared memory (the first lines of the save area) parked.
  const uint32_t parked = t.lazy_shared ? t.smem.size : 0;
  t.context_bytes = t.zero_cost ? 0 : context_bytes(ti, t.live_only) - parked;
  stats_.tbs_switched[t.kernel->key].add();
  stats_.context_bytes_saved[t.kernel->key].add(t.context_bytes);
  t.lines_unacked = lines_of(t.context_bytes);
  if (t.lines_unacked == 0) return release_preempted(ti);
  start_transfer(ti, true, uint64_t(lines_of(parked)) * mem::kLineBytes, t.lines_unacked,
                 std::max(now, t.pipeline_done));
}

void Sm::start_transfer(uint16_t ti, bool write, uint64_t offset, uint32_t lines, Cycle not_before) {
  const TbSlot& t = tbs_[ti];
  const KernelInstance& k = *t.kernel;
  transfers_.push_back({kContextToken | ti, write, save_area(k, t.index) + offset, 0, lines, not_before,
                        uint16_t(k.app), uint16_t(k.id), k.key});
  wake();
}

void Sm::context_send(Cycle now) {
  ContextTransfer& x = transfers_.front();
  if (x.not_before > now || !memory_.can_accept(id_)) return;
  mem::MemRequest r;
  r.addr = x.base + uint64_t(x.next_line) * mem::kLineBytes;
  r.sectors = mem::kAllSectors;
  r.op = x.write ? mem::MemOp::Write : mem::MemOp::Read;
  r.size = uint16_t(mem::kLineBytes);
  r.sm = uint16_t(id_);
  r.app = x.app;
  r.kernel = x.kernel;
  r.key = x.key;
  r.token = x.token;
  memory_.send(r);
  if (++x.next_line == x.lines) transfers_.erase(transfers_.begin());
}

void Sm::context_ack(uint64_t token) {
  engine().note_progress();
  if (token & kParkedToken) return parked_ack(uint32_t(token));
  if (token & kEventToken) return event_ack(token);
  const uint16_t ti = uint16_t(token);
  TbSlot& t = tbs_[ti];
  if (--t.lines_unacked > 0) return;
  if (t.phase == Phase::Saving)
    release_preempted(ti);
  else
    finish_restore(ti);
  wake();
}

void Sm::release_preempted(uint16_t ti) {
  TbSlot& t = tbs_[ti];
  KernelInstance& k = *t.kernel;
  Cycle now = engine().wake_cycle(domain());
  account_residency(now);
  for (uint16_t slot : t.warps) {
    WarpSlot& w = warps_[slot];
    if (!owns(ti, slot)) continue;
    --resident_warps_by_key_[k.key];
    --warps_used_;
    w.warp = nullptr;
    w.block = Block::None;
    free_warps_.push_back(slot);
  }
  regs_.release(t.regs);
  const bool park = t.action == PreemptAction::Switch && t.lazy_shared;
  if (park)
    park_shared(ti);
  else
    smem_.release(t.smem);
  --tbs_used_;
  threads_used_ -= k.needs.threads;
  PreemptedTb p;
  p.index = t.index;
  p.warp_insts = t.insts;
  p.flushed = t.action == PreemptAction::Flush;
  if (t.action == PreemptAction::Switch) {
    p.state = std::move(t.tb);
    p.context_bytes = t.context_bytes;
    p.run_cycles = t.run_cycles_before + (now - t.started);
    p.live_registers_only = t.live_only;
    p.side_effects = t.side_effects;
    p.lazy_shared = park;
    p.shared_parked_on = park ? int32_t(id_) : -1;
    if (t.fault_switch) {
      p.fault_sm = int32_t(id_);
      p.faults_pending = fault_wait_left(k.id, t.index);
      p.replays = std::move(t.replays);
    }
  }
  t.tb.reset();
  t.used = t.marked = false;
  t.phase = Phase::Running;
  t.kernel = nullptr;
  listener_.tb_preempted(id_, k, std::move(p));
}

void Sm::resume_tb(KernelInstance& k, PreemptedTb p) {
  stats_.tbs_resumed[k.key].add();
  if (!p.state) {
    tbs_[start_tb(k, p.index)].flushed_before = p.flushed;
    return;
  }
  p.state->set_smid(id_);
  // Lazy save: in place, the shared memory is still here; elsewhere it was
  // written back and is read with the rest (the first lines of the save area).
  const bool in_place = p.shared_parked_on == int32_t(id_);
  if (p.shared_parked_on >= 0 && !in_place)
    throw std::logic_error(fmt::format("SM {}: TB {} of {} resumed while its shared memory is parked on SM {}", id_,
                                       p.index, k.label, p.shared_parked_on));
  uint16_t ti;
  if (in_place) {
    auto parked = find_parked(k.id, p.index);
    ti = occupy_tb_slot(k, p.index, std::move(p.state), Phase::Restoring, &parked->smem);
    parked_.erase(parked);
    stats_.shared_resumed_in_place[k.key].add();
  } else {
    ti = occupy_tb_slot(k, p.index, std::move(p.state), Phase::Restoring);
  }
  TbSlot& t = tbs_[ti];
  t.side_effects = p.side_effects;
  t.live_only = p.live_registers_only;
  t.replays = std::move(p.replays);
  t.run_cycles_before = p.run_cycles;
  t.insts = p.warp_insts;
  const uint32_t shared_lines = p.lazy_shared ? lines_of(k.needs.shared_bytes) : 0;
  const bool shared_too = p.lazy_shared && !in_place;
  t.context_bytes = p.context_bytes + (shared_too ? k.needs.shared_bytes : 0);
  stats_.context_bytes_restored[k.key].add(t.context_bytes);
  t.lines_unacked = lines_of(p.context_bytes) + (shared_too ? shared_lines : 0);
  if (t.lines_unacked == 0) return finish_restore(ti);
  start_transfer(ti, false, uint64_t(shared_too ? 0 : shared_lines) * mem::kLineBytes, t.lines_unacked, t.started);
}

void Sm::finish_restore(uint16_t ti) {
  TbSlot& t = tbs_[ti];
  Cycle now = engine().wake_cycle(domain());
  t.phase = Phase::Running;
  t.at_barrier = 0;
  if (!t.replays.empty()) replay(ti);  // before readiness: its loads' destinations wait again
  for (uint16_t slot : t.warps) {
    WarpSlot& w = warps_[slot];
    if (!owns(ti, slot)) continue;
    bool waits = w.warp->state() == exec::WarpState::AtBarrier;
    w.block = waits ? Block::Barrier : Block::None;
    t.at_barrier += waits;
    w.fetch_ready = now + p_.fetch_latency;
    sub_cores_[w.sub_core].warps.push_back(slot);
    compute_ready(w, now);
  }
}

}  // namespace gpumux::sm
