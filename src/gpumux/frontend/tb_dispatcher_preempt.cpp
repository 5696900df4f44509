// The dispatcher's side of preemption (docs/preemption.md): deciding which
// TBs must leave an SM, asking the mechanism how, tracking each request until
// the SM is free, and queueing the TBs that left for placement.
#include <algorithm>
#include <array>
#include <cmath>

#include "gpumux/frontend/tb_dispatcher.h"

namespace gpumux::frontend {

namespace {

// Per resource (TB slots, warps, threads, registers, shared memory), what one
// more TB of `k` lacks on `s`. Holes in the register file and shared memory
// are ignored, and parked shared memory counts as free (make_room writes it
// back); should the room freed not fit, a later request frees more.
using Resources = std::array<int64_t, 5>;
Resources shortfall(const sm::Sm& s, const sm::KernelInstance& k) {
  const SmParams& p = s.params();
  const sm::TbNeeds& n = k.needs;
  return {int64_t(s.resident_tbs()) + 1 - p.tb_slots, int64_t(s.warps_used()) + n.warps - p.warp_slots,
          int64_t(s.threads_used()) + n.threads - p.max_threads,
          int64_t(s.register_file().used()) + n.registers - int64_t(s.register_file().capacity()),
          int64_t(s.shared_memory().used()) - s.parked_shared_bytes() + n.shared_bytes -
              int64_t(s.shared_memory().capacity())};
}

// How many TBs of `victim`, at most `staying`, must leave to cover `deficit`;
// takes what they free off it.
uint32_t tbs_to_cover(Resources& deficit, const sm::KernelInstance& victim, uint32_t staying) {
  const sm::TbNeeds& n = victim.needs;
  const Resources per_tb = {1, n.warps, n.threads, n.registers, n.shared_bytes};
  int64_t tbs = 0;
  for (size_t i = 0; i < deficit.size(); ++i)
    if (deficit[i] > 0 && per_tb[i] > 0) tbs = std::max(tbs, (deficit[i] + per_tb[i] - 1) / per_tb[i]);
  tbs = std::min<int64_t>(tbs, staying);
  for (size_t i = 0; i < deficit.size(); ++i) deficit[i] -= tbs * per_tb[i];
  return uint32_t(tbs);
}

bool covered(const Resources& deficit) {
  return std::all_of(deficit.begin(), deficit.end(), [](int64_t d) { return d <= 0; });
}

}  // namespace

const char* sm_state_name(SmState s) {
  switch (s) {
    case SmState::Idle: return "idle";
    case SmState::Running: return "running";
    case SmState::Reserved: return "reserved";
  }
  return "?";
}

void TbDispatcher::set_preemption_clock(double core_mhz, double sm_bytes_per_cycle) {
  const PreemptionOptions& o = policy_->preemption();
  estimates_.sm_bytes_per_cycle = sm_bytes_per_cycle;
  estimates_.latency_budget = Cycle(std::llround(o.latency_budget_us * core_mhz));
  estimates_.live_registers_only = o.save.live_registers_only;
  estimates_.lazy_shared = o.save.lazy_shared;
  switch_after_ = Cycle(std::llround(o.switch_after_us * core_mhz));
  policy_->set_core_clock(core_mhz);
}

void TbDispatcher::reclaim(Cycle now) {
  std::vector<ActiveKernel> active = active_kernels();
  for (sm::Sm* s : sms_) {
    // Only for a kernel that may place TBs here now.
    bool wanted = false;
    for (const ActiveKernel& a : active)
      wanted |= a.tbs_left > 0 && quota(*a.kernel, s->id()) > s->resident_tbs(a.kernel->id);
    if (!wanted) continue;
    for (size_t i = 0; i < active.size(); ++i) {
      uint32_t keep = this->keep(active[i], s->id());
      if (keep == SharingPolicy::kUnlimited) continue;
      uint32_t staying = staying_tbs(*s, active[i].kernel->id);
      if (staying > keep) request_preemption(*s, *active_[i], staying - keep, now);
    }
  }
}

std::optional<size_t> TbDispatcher::preempt(uint32_t sm, uint32_t kernel_id, uint32_t n, const PreemptionMechanism& m,
                                            Cycle now) {
  auto r = std::find_if(active_.begin(), active_.end(), [&](const Running* a) { return a->kernel->id == kernel_id; });
  if (r == active_.end()) return std::nullopt;
  sm::Sm& s = *sms_.at(sm);
  n = std::min(n, staying_tbs(s, kernel_id));
  if (n == 0) return std::nullopt;
  size_t before = preemptions_.size();
  request_preemption(s, **r, n, now, &m);
  if (preemptions_.size() == before) return std::nullopt;
  return before;
}

uint32_t TbDispatcher::staying_tbs(const sm::Sm& s, uint32_t kernel_id) {
  s.resident_tbs(kernel_id, resident_scratch_);
  std::erase_if(resident_scratch_, [](const sm::ResidentTb& t) { return t.preempting; });
  return uint32_t(resident_scratch_.size());
}

void TbDispatcher::request_preemption(sm::Sm& s, Running& victim, uint32_t n, Cycle now,
                                      const PreemptionMechanism* m) {
  const sm::KernelInstance& k = *victim.kernel;
  if (!m) m = mechanism_.get();
  // 2-way allocation: the mechanism only chooses how the boundary TBs leave.
  if (s.fixed_preemption_order() && resident_scratch_.size() > n) resident_scratch_.resize(n);
  choice_scratch_.clear();
  m->choose(resident_scratch_, n, k, estimates_, choice_scratch_);
  if (choice_scratch_.empty()) return;
  PreemptionRecord rec;
  rec.sm = s.id();
  rec.kernel = k.id;
  rec.app = k.app;
  rec.label = k.label;
  rec.mechanism = std::string(m->name());
  rec.requested = now;
  size_t id = preemptions_.size();
  for (const PreemptChoice& c : choice_scratch_) {
    auto t = std::find_if(resident_scratch_.begin(), resident_scratch_.end(),
                          [&](const sm::ResidentTb& r) { return r.slot == c.slot; });
    leaving_[{s.id(), k.id, t->index}] = id;
  }
  rec.tbs = rec.left = uint32_t(choice_scratch_.size());
  preemptions_.push_back(std::move(rec));
  preempt_requests_[k.key].add();
  // The SM may free a TB at once (flush of a TB without loads in flight):
  // tb_preempted then finds the request already recorded.
  for (const PreemptChoice& c : choice_scratch_) s.preempt_tb(c.slot, c.action, policy_->preemption().save);
  if (switch_after_) wake_at(engine().clock(domain()).tick_of(now + switch_after_));
}

void TbDispatcher::tb_left(uint32_t sm, const sm::KernelInstance& k, uint64_t tb, Cycle now,
                           const sm::PreemptedTb* p) {
  auto it = leaving_.find({sm, k.id, tb});
  if (it == leaving_.end()) return;
  PreemptionRecord& rec = preemptions_[it->second];
  leaving_.erase(it);
  if (!p) {
    ++rec.drained;
  } else if (p->state) {
    ++rec.switched;
    rec.bytes_saved += p->context_bytes;
  } else {
    ++rec.flushed;
    rec.insts_discarded += p->warp_insts;
  }
  if (--rec.left > 0) return;
  rec.freed = now;
  preempt_latency_[k.key].add(rec.latency());
  if (sink_) sink_->preemption_done(rec);
}

void TbDispatcher::tb_preempted(uint32_t sm, sm::KernelInstance& k, sm::PreemptedTb tb) {
  Running& r = running(k);
  Cycle now = engine().wake_cycle(domain());
  wake();
  if (sink_) sink_->tb_preempted(sm, k, tb.index, engine().cycle(domain()));
  tb_left(sm, k, tb.index, now, &tb);
  ++records_[r.record].tbs_preempted;
  // A kernel that had nothing left to place takes part in partitions again:
  // repartition at the next tick (this may run inside reclaim(), through a
  // flush that completes at once).
  repartition_pending_ |= !r.tbs_left();
  if (tb.fault_sm >= 0) {
    ++off_chip_[size_t(tb.fault_sm)];
    if (tb.ready()) vacated_tb_ready(uint32_t(tb.fault_sm), k.id, tb.index, now);  // serviced before it left
  }
  r.preempted.push_back(std::move(tb));
  k.all_placed = false;
}

void TbDispatcher::shared_evicted(uint32_t, sm::KernelInstance& k, uint64_t tb_index) {
  Running& r = running(k);
  for (sm::PreemptedTb& p : r.preempted)
    if (p.index == tb_index) p.shared_parked_on = -1;  // now it may resume on any SM
  wake();
}

Cycle TbDispatcher::escalate(Cycle now) {
  Cycle next = kNever;
  // Requests are in request order, so their deadlines are too: skip the settled prefix.
  while (escalate_from_ < preemptions_.size() &&
         (preemptions_[escalate_from_].done() || preemptions_[escalate_from_].escalated))
    ++escalate_from_;
  for (size_t i = escalate_from_; i < preemptions_.size(); ++i) {
    PreemptionRecord& rec = preemptions_[i];
    if (rec.done() || rec.escalated) continue;
    Cycle deadline = rec.requested + switch_after_;
    if (deadline > now) {
      next = deadline;
      break;
    }
    rec.escalated = true;
    sm::Sm& s = *sms_[rec.sm];
    s.resident_tbs(rec.kernel, resident_scratch_);
    for (const sm::ResidentTb& t : resident_scratch_)
      if (t.draining && leaving_.count({rec.sm, rec.kernel, t.index}))
        s.preempt_tb(t.slot, sm::PreemptAction::Switch, policy_->preemption().save);
  }
  return next;
}

Cycle TbDispatcher::stress(Cycle now) {
  if (next_stress_ == 0) next_stress_ = now + p_.preempt_every;
  if (now < next_stress_ || sms_.empty()) return next_stress_;
  next_stress_ = now + p_.preempt_every;
  sm::Sm& s = *sms_[stress_sm_];
  stress_sm_ = (stress_sm_ + 1) % sms_.size();
  for (Running* r : std::vector<Running*>(active_))
    if (uint32_t staying = staying_tbs(s, r->kernel->id)) request_preemption(s, *r, staying, now);
  return next_stress_;
}

std::vector<SmStatus> TbDispatcher::sm_status_table() const {
  std::vector<SmStatus> table(sms_.size());
  for (const PreemptionRecord& rec : preemptions_)
    if (!rec.done()) table[rec.sm].state = SmState::Reserved;
  std::vector<ActiveKernel> active = active_kernels();
  for (size_t i = 0; i < sms_.size(); ++i) {
    const sm::Sm& s = *sms_[i];
    SmStatus& st = table[i];
    st.running_tbs = s.resident_tbs();
    for (const ActiveKernel& a : active) {
      uint32_t mine = s.resident_tbs(a.kernel->id);
      if (mine) st.kernels.push_back(a.kernel->id);
      if (st.next < 0 && a.tbs_left > 0 && quota(*a.kernel, s.id()) > mine) st.next = a.kernel->id;
    }
    if (st.state != SmState::Reserved) {
      st.state = st.running_tbs ? SmState::Running : SmState::Idle;
      st.next = -1;
    }
  }
  return table;
}

void TbDispatcher::preempt_for_events(Cycle now) {
  // Events come first in dispatch order: most ticks end here.
  bool waiting = false;
  for (auto it = active_.begin(); it != active_.end() && (*it)->kernel->event && !waiting; ++it)
    waiting = (*it)->tbs_left();
  if (!waiting) return;
  std::erase_if(event_requests_, [&](size_t i) { return preemptions_[i].done(); });
  std::vector<bool> freeing(sms_.size(), false);
  for (size_t i : event_requests_) freeing[preemptions_[i].sm] = true;
  size_t covering = size_t(std::count(freeing.begin(), freeing.end(), true));
  // Background TBs to take off SM s so that one TB of `k` fits: (kernel, TBs)
  // from the lowest dispatch priority up; false if they cannot make room.
  std::vector<std::pair<Running*, uint32_t>> plan, best;
  auto make_plan = [&](const sm::Sm& s, const sm::KernelInstance& k) {
    plan.clear();
    Resources deficit = shortfall(s, k);
    if (policy_->exclusive_sms()) deficit[0] = std::max<int64_t>(deficit[0], s.resident_tbs());
    for (auto it = active_.rbegin(); it != active_.rend() && !covered(deficit); ++it)
      if (!(*it)->kernel->event)
        if (uint32_t n = tbs_to_cover(deficit, *(*it)->kernel, staying_tbs(s, (*it)->kernel->id)))
          plan.emplace_back(*it, n);
    return covered(deficit);
  };
  // Each event TB still to place needs one SM being freed: the one where the fewest TBs leave.
  for (Running* r : active_) {
    if (!r->kernel->event) break;
    const sm::KernelInstance& k = *r->kernel;
    for (uint64_t left = r->tbs_to_run() - r->next_tb + r->preempted.size(); left > 0; --left) {
      if (covering > 0) {
        --covering;
        continue;
      }
      sm::Sm* chosen = nullptr;
      uint32_t fewest = ~0u;
      for (sm::Sm* s : sms_) {
        if (freeing[s->id()] || quota(k, s->id()) <= s->resident_tbs(k.id)) continue;
        if (s->fits(k)) return;  // placed next cycle
        if (!make_plan(*s, k)) continue;
        uint32_t tbs = 0;
        for (const auto& [victim, n] : plan) tbs += n;
        if (tbs < fewest) {
          fewest = tbs;
          chosen = s;
          best = plan;
        }
      }
      if (!chosen) return;  // every SM is being freed or cannot be: wait for TBs to leave
      freeing[chosen->id()] = true;
      for (const auto& [victim, n] : best) {
        const size_t before = preemptions_.size();
        staying_tbs(*chosen, victim->kernel->id);
        request_preemption(*chosen, *victim, n, now, event_mechanism_.get());
        for (size_t i = before; i < preemptions_.size(); ++i) event_requests_.push_back(i);
      }
    }
  }
}

}  // namespace gpumux::frontend
