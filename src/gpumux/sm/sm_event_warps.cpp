// Warp-level event kernels inside an SM (event_warps.h): the Pending Event
// Warp Table, victim selection, the victim's quiescing with the flush
// optimizations, the event warp's run and the victim's resumption.
//
// PEWT entry e places its event warp in TB slot tb_slots + e and warp slot
// warp_slots + e, beyond the slots background TBs use: an event warp in a
// free slot counts one warp slot and its threads as used; one that preempted
// a victim lends the victim's (the victim's WarpSlot keeps its scoreboard
// and in-flight memory operations while it is held).
#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/sm/event_warp_table.h"
#include "gpumux/sm/sm.h"

namespace gpumux::sm {

const char* preempt_wait_name(PreemptWait w) {
  static constexpr const char* kNames[kNumPreemptWaits] = {"barrier", "scoreboard", "loads", "pipeline", "save"};
  return kNames[unsigned(w)];
}


void Sm::enable_event_warps(const EdgeParams& p, EventWarpListener& listener) {
  // Event warps take registers from anywhere in the file (a victim's included).
  if (two_way_) throw LoadError("sm.two_way_pairs cannot be combined with warp-level events (an [edge] section)");
  events_ = std::make_unique<EventWarpTable>();
  events_->p = p;
  events_->listener = &listener;
  events_->entries.resize(p.pewt_entries);
  warps_.resize(size_t(p_.warp_slots) + p.pewt_entries);
  tbs_.resize(size_t(p_.tb_slots) + p.pewt_entries);
}

// Registered with the event engine, so that runs without event kernels have none of these statistics.
void Sm::register_event_stats(StatRegistry& stats) {
  std::string pre = fmt::format("sm{}.", id_);
  stats.add(pre + "events.warps_free", stats_.event_warps_free, "event warps started in a free warp slot");
  stats.add(pre + "events.warps_preempting", stats_.event_warps_preempting,
            "event warps started in the warp slot of a preempted victim warp");
  stats.add(pre + "events.victim_warps", stats_.victim_warps, "warps of the kernel preempted by event warps");
  stats.add(pre + "events.victim_register_saves", stats_.victim_register_saves,
            "victim warps of the kernel whose registers went through memory (no free registers for the event)");
}

bool Sm::event_table_has_room() const { return events_ && events_->busy < events_->entries.size(); }

bool Sm::event_fits_free(const KernelInstance& k) const {
  return warps_used_ < p_.warp_slots && threads_used_ + k.needs.threads <= p_.max_threads &&
         regs_.fits(k.needs.registers) && smem_.fits(k.needs.shared_bytes);
}

namespace {

// Of a warp of `k`: its share of the TB's register allocation.
uint32_t warp_registers(const KernelInstance& k) { return k.needs.warps ? k.needs.registers / k.needs.warps : 0; }

}  // namespace

// A warp that may be preempted for event kernel `k`: resident, issuing or at
// a barrier, of a running TB not being preempted, not an event warp, whose
// registers cover the event's (or, with free_registers_beyond_victim, the
// register file has free registers for it).
bool Sm::victim_candidate(const WarpSlot& w, const KernelInstance& k) const {
  if (!w.warp || (w.block != Block::None && w.block != Block::Barrier) || w.kernel->event) return false;
  const TbSlot& t = tbs_[w.tb];
  if (t.phase != Phase::Running || t.marked) return false;
  return warp_registers(*w.kernel) >= k.needs.registers ||
         (events_->p.free_registers_beyond_victim && regs_.fits(k.needs.registers));
}

bool Sm::event_can_preempt(const KernelInstance& k) const {
  if (k.needs.shared_bytes > 0) return false;
  for (uint16_t s = 0; s < p_.warp_slots; ++s)
    if (victim_candidate(warps_[s], k)) return true;
  return false;
}

void Sm::submit_event_warp(KernelInstance& k) {
  auto& es = events_->entries;
  auto it = std::find_if(es.begin(), es.end(), [](const auto& e) { return e.state == EventWarpTable::State::Free; });
  if (it == es.end()) throw std::logic_error(fmt::format("SM {}: event warp of {} submitted to a full PEWT", id_, k.label));
  *it = EventWarpTable::Entry{};
  it->state = EventWarpTable::State::Waiting;
  it->kernel = &k;
  it->rec.sm = id_;
  it->rec.submitted = engine().wake_cycle(domain());
  ++events_->busy;
  wake();
}

// The event warp of entry `e` gets its TB and warp slot and starts issuing.
void Sm::start_event_warp(size_t e, Cycle now) {
  auto& x = events_->entries[e];
  KernelInstance& k = *x.kernel;
  const uint16_t ti = uint16_t(p_.tb_slots + e), slot = uint16_t(p_.warp_slots + e);
  account_residency(now);
  TbSlot& t = tbs_[ti];
  t.used = true;
  t.kernel = &k;
  t.index = 0;
  t.regs = x.own_regs ? *regs_.allocate(k.needs.registers) : Range{};
  t.smem = *smem_.allocate(k.needs.shared_bytes);
  t.tb = std::make_unique<exec::ThreadBlock>(k.grid, k.grid.tb_coords(0), id_);
  t.phase = Phase::Running;
  t.marked = t.side_effects = t.live_only = t.flushed_before = false;
  t.started = now;
  t.run_cycles_before = t.insts = 0;
  t.log_capacity = log_partition(k);
  t.log_used = 0;
  t.warps.clear();
  t.at_barrier = 0;
  t.unretired = 1;
  uint8_t sc = 0;
  if (x.victim >= 0) {
    sc = warps_[size_t(x.victim)].sub_core;
  } else {
    for (uint8_t i = 1; i < sub_cores_.size(); ++i)
      if (sub_cores_[i].warps.size() < sub_cores_[sc].warps.size()) sc = i;
    threads_used_ += k.needs.threads;
  }
  if (resident_warps_by_key_.size() <= k.key) resident_warps_by_key_.resize(size_t(k.key) + 1, 0);
  init_warp_slot(slot, sc, t.tb->warps().front(), ti, now, false);
  if (x.victim >= 0) --warps_used_;  // the victim's slot is lent
  sub_cores_[sc].urgent.push_back(slot);
  (x.victim >= 0 ? stats_.event_warps_preempting : stats_.event_warps_free)[k.key].add();
  x.rec.started = now;
  x.state = EventWarpTable::State::Running;
  wake();
}

// Moves entry `e` to the next thing its victim must finish, charging the
// time since the phase began to it.
void Sm::advance_victim(size_t e, PreemptWait next, Cycle now) {
  auto& x = events_->entries[e];
  x.rec.waits[unsigned(x.phase)] += now - x.phase_since;
  x.phase = next;
  x.phase_since = now;
}

// The victim stops issuing; what it has in flight is waited for (or dropped).
void Sm::hold_victim(size_t e, Cycle now) {
  auto& x = events_->entries[e];
  const uint16_t v = uint16_t(x.victim);
  WarpSlot& w = warps_[v];
  if (w.block == Block::Barrier) --tbs_[w.tb].at_barrier;
  w.block = Block::Victim;
  SubCore& sc = sub_cores_[w.sub_core];
  std::erase(sc.warps, v);
  std::erase(sc.urgent, v);
  sc.dirty = true;
  compute_ready(w, now);
  x.pipeline_done = 0;
  for (Cycle c : w.reg_ready)
    if (c != kNever) x.pipeline_done = std::max(x.pipeline_done, c);
  for (Cycle c : w.pred_ready)
    if (c != kNever) x.pipeline_done = std::max(x.pipeline_done, c);
  advance_victim(e, PreemptWait::Loads, now);
}

bool Sm::victim_loads_pending(const WarpSlot& w) const {
  for (uint32_t used = w.mem_ops_used; used; used &= used - 1)
    if (!w.mem_ops[unsigned(std::countr_zero(used))].is_store) return true;
  return false;
}

void Sm::begin_preemption(size_t e, uint16_t v, Cycle now) {
  auto& x = events_->entries[e];
  const EdgeParams& p = events_->p;
  WarpSlot& w = warps_[v];
  x.victim = v;
  x.rec.preempted = true;
  auto c = tbs_[w.tb].tb->ctaid();
  x.rec.victim = fmt::format("{} TB ({},{},{}) warp {}", w.kernel->label, c[0], c[1], c[2], w.warp->index());
  stats_.victim_warps[w.kernel->key].add();
  x.state = EventWarpTable::State::Quiescing;
  x.phase_since = now;
  x.victim_fetch_seen = w.fetch_ready;
  x.ibuffer_left = p.flush_ibuffer ? 0 : p.ibuffer_entries;
  x.phase = w.block == Block::Barrier && !p.skip_barrier ? PreemptWait::Barrier : PreemptWait::Scoreboard;
  if (x.phase == PreemptWait::Scoreboard && x.ibuffer_left == 0) return hold_victim(e, now);
  if (p.raise_victim_priority) {
    SubCore& sc = sub_cores_[w.sub_core];
    sc.urgent.push_back(v);
    sc.dirty = true;
  }
}

void Sm::try_start_event(size_t e, Cycle now) {
  auto& x = events_->entries[e];
  const KernelInstance& k = *x.kernel;
  if (event_fits_free(k)) {
    x.own_regs = true;
    return start_event_warp(e, now);
  }
  if (k.needs.shared_bytes > 0) return;
  int32_t best = -1;
  for (uint16_t s = 0; s < p_.warp_slots; ++s) {
    const WarpSlot& w = warps_[s];
    if (!victim_candidate(w, k)) continue;
    // A warp already chosen by another entry is taken.
    bool taken = false;
    for (const auto& o : events_->entries) taken |= o.state != EventWarpTable::State::Free && o.victim == s;
    if (taken) continue;
    if (best < 0 || (events_->p.victim == VictimPolicy::Oldest ? w.age < warps_[size_t(best)].age
                                                                : w.age > warps_[size_t(best)].age))
      best = s;
  }
  if (best >= 0) begin_preemption(e, uint16_t(best), now);
}

void Sm::poll_victim(size_t e, Cycle now) {
  auto& x = events_->entries[e];
  const EdgeParams& p = events_->p;
  WarpSlot& w = warps_[size_t(x.victim)];
  if (!w.warp || w.block == Block::Exited || w.block == Block::Preempted) {
    // The victim exited (or its TB is being preempted) before it stopped: look again.
    std::erase(sub_cores_[w.sub_core].urgent, uint16_t(x.victim));
    x.rec.waits[unsigned(x.phase)] += now - x.phase_since;
    x.victim = -1;
    x.state = EventWarpTable::State::Waiting;
    return;
  }
  switch (x.phase) {
    case PreemptWait::Barrier:
      if (w.block == Block::Barrier) return;
      advance_victim(e, PreemptWait::Scoreboard, now);
      x.victim_fetch_seen = w.fetch_ready;
      if (x.ibuffer_left == 0) hold_victim(e, now);
      return;
    case PreemptWait::Scoreboard:
      if (w.fetch_ready != x.victim_fetch_seen) {  // it issued
        x.victim_fetch_seen = w.fetch_ready;
        --x.ibuffer_left;
      }
      if (w.block == Block::Barrier && !p.skip_barrier) {
        x.ibuffer_left = 0;
        return advance_victim(e, PreemptWait::Barrier, now);
      }
      if (x.ibuffer_left == 0 || w.block == Block::Barrier) hold_victim(e, now);
      return;
    case PreemptWait::Loads:
      if (p.replay_loads) {
        x.dropped_loads = victim_loads_pending(w);
      } else if (victim_loads_pending(w)) {
        return;
      }
      advance_victim(e, PreemptWait::Pipeline, now);
      [[fallthrough]];
    case PreemptWait::Pipeline:
      if (now < x.pipeline_done) return;
      advance_victim(e, PreemptWait::Save, now);
      [[fallthrough]];
    case PreemptWait::Save: take_event_registers(e, w, now); return;
  }
}

// The quiesced victim's event gets free registers, else the victim's own
// (saved through memory first); a victim with fewer registers than the event
// (free_registers_beyond_victim) waits in Save until free registers appear.
void Sm::take_event_registers(size_t e, WarpSlot& victim, Cycle now) {
  auto& x = events_->entries[e];
  const KernelInstance& k = *x.kernel;
  if (regs_.fits(k.needs.registers)) {
    x.own_regs = true;
    return start_event_warp(e, now);
  }
  if (warp_registers(*victim.kernel) < k.needs.registers) return;
  // The event overwrites registers of the victim: they go through memory.
  x.rec.saved_registers = true;
  stats_.victim_register_saves[victim.kernel->key].add();
  x.state = EventWarpTable::State::Saving;
  start_event_transfer(e, true, now);
}

void Sm::start_event_transfer(size_t e, bool write, Cycle now) {
  auto& x = events_->entries[e];
  const WarpSlot& w = warps_[size_t(x.victim)];
  const uint64_t bytes = uint64_t(x.kernel->needs.registers) * 4;
  x.lines_unacked = uint32_t((bytes + mem::kLineBytes - 1) / mem::kLineBytes);
  const KernelInstance& vk = *w.kernel;
  // Beyond the victim TB's own save area (sm_preempt.cpp), one register set per warp slot.
  uint64_t base = save_area(vk, tbs_[w.tb].index) + full_context_bytes(vk) +
                  uint64_t(x.victim) * x.lines_unacked * mem::kLineBytes;
  transfers_.push_back({kContextToken | kEventToken | e, write, base, 0, x.lines_unacked, now, uint16_t(vk.app),
                        uint16_t(vk.id), vk.key});
  wake();
}

void Sm::event_ack(uint64_t token) {
  const size_t e = size_t(token & 0xffff);
  auto& x = events_->entries[e];
  if (--x.lines_unacked > 0) return;
  Cycle now = engine().wake_cycle(domain());
  if (x.state == EventWarpTable::State::Saving) {
    advance_victim(e, PreemptWait::Save, now);
    x.own_regs = false;
    start_event_warp(e, now);
  } else {
    finish_event(e, now);
  }
  wake();
}

void Sm::event_warp_retired(uint16_t slot) {
  const size_t e = slot - p_.warp_slots;
  auto& x = events_->entries[e];
  KernelInstance& k = *x.kernel;
  Cycle now = engine().wake_cycle(domain());
  account_residency(now);
  WarpSlot& w = warps_[slot];
  --resident_warps_by_key_[k.key];
  w.warp = nullptr;
  std::erase(sub_cores_[w.sub_core].urgent, slot);
  if (x.victim < 0) {
    --warps_used_;
    threads_used_ -= k.needs.threads;
  }
  TbSlot& t = tbs_[p_.tb_slots + e];
  if (x.own_regs) regs_.release(t.regs);
  smem_.release(t.smem);
  t.tb.reset();
  t.used = false;
  t.kernel = nullptr;
  x.rec.finished = now;
  if (x.rec.saved_registers) {
    x.state = EventWarpTable::State::Restoring;
    return start_event_transfer(e, false, now);
  }
  finish_event(e, now);
}

void Sm::finish_event(size_t e, Cycle now) {
  auto& x = events_->entries[e];
  if (x.victim >= 0) {
    WarpSlot& w = warps_[size_t(x.victim)];
    if (w.warp && w.block == Block::Victim) {  // not aborted meanwhile
      TbSlot& t = tbs_[w.tb];
      const bool waits = w.warp->state() == exec::WarpState::AtBarrier;
      w.block = waits ? Block::Barrier : Block::None;
      t.at_barrier += waits;
      w.fetch_ready = now + p_.fetch_latency + (x.dropped_loads ? events_->p.replay_cycles : 0);
      sub_cores_[w.sub_core].warps.push_back(uint16_t(x.victim));
      compute_ready(w, now);
    }
  }
  EventWarpRecord rec = x.rec;
  KernelInstance& k = *x.kernel;
  x = EventWarpTable::Entry{};
  --events_->busy;
  wake();
  events_->listener->event_warp_done(k, rec);
}

int Sm::urgent_pick(SubCore& sc) {
  for (uint16_t u : sc.urgent)  // event warps and raised victims first
    for (size_t i = 0; i < sc.views.size(); ++i)
      if (sc.views[i].slot == u && sc.views[i].ready) return int(i);
  return sc.scheduler->pick(sc.views);
}

void Sm::event_warps_tick(Cycle now, Cycle& next) {
  if (events_->busy == 0) return;
  bool waiting = false;
  for (size_t e = 0; e < events_->entries.size(); ++e) {
    auto& x = events_->entries[e];
    if (x.state == EventWarpTable::State::Waiting) try_start_event(e, now);
    if (x.state == EventWarpTable::State::Quiescing) poll_victim(e, now);
    waiting |= x.state == EventWarpTable::State::Waiting || x.state == EventWarpTable::State::Quiescing;
  }
  if (waiting) next = std::min(next, now + 1);
}

}  // namespace gpumux::sm
