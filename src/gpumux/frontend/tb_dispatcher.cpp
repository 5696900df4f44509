#include "gpumux/frontend/tb_dispatcher.h"

#include <algorithm>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/exec/builtins/services.h"
#include "gpumux/frontend/invariants.h"
#include "gpumux/frontend/policies/common.h"

namespace gpumux::frontend {

TbDispatcher::TbDispatcher(Engine& engine, DomainId core, const FrontendParams& p,
                           std::unique_ptr<SharingPolicy> policy)
    : Component(engine, core, "frontend"), p_(p), policy_(std::move(policy)) {
  if (!policy_) policy_ = make_sharing_policy("fcfs");
  epochs_ = policy_->has_epochs();
  mechanism_ = make_preemption_mechanism(policy_->preemption().mechanism);
}

TbDispatcher::~TbDispatcher() = default;

void TbDispatcher::register_stats(StatRegistry& reg) {
  reg.add("frontend.tbs_dispatched", tbs_dispatched_, "thread blocks placed on SMs");
  reg.add("frontend.fragmented_placements", fragmented_,
          "TB placements refused although enough registers and shared memory were free in total (fragmentation)");
  reg.add("frontend.preempt.requests", preempt_requests_,
          "preemptions of the kernel's TBs on one SM requested by the policy (any mechanism, drain included)");
  reg.add("frontend.preempt.latency_cycles", preempt_latency_,
          "sum over the kernel's preemptions of the cycles from request to its TBs having left the SM");
  reg.add("frontend.preempt.tbs_resumed", tbs_resumed_, "switched or flushed TBs of the kernel placed again");
  if (policy_->fault_aware()) {
    reg.add("frontend.fault_loans", fault_loans_,
            "SMs lent to the kernel because every TB on them waited for page faults (fault-aware scheduling)");
    reg.add("frontend.fault_loan_cycles", fault_loan_cycles_, "cycles SMs were lent to the kernel, summed over its loans");
  }
  policy_->register_stats(reg);
}

void TbDispatcher::set_event_rules(bool drain, std::vector<bool> reserved, std::string_view tb_preemption) {
  drain_for_events_ = drain;
  reserved_for_events_ = std::move(reserved);
  // Draining needs no request: the rule above already keeps the room free.
  event_mechanism_ = drain && tb_preemption != "drain" ? make_preemption_mechanism(tb_preemption) : nullptr;
}

size_t TbDispatcher::add_record(const sm::KernelInstance& k, uint32_t stream, std::string name, Cycle now) {
  KernelRecord rec;
  rec.id = k.id;
  rec.app = k.app;
  rec.stream = stream;
  rec.priority = k.priority;
  rec.name = std::move(name);
  rec.label = k.label;
  rec.key = k.key;
  rec.tbs = k.grid.num_tbs();
  rec.enqueued = now;
  rec.depth = k.grid.depth;
  records_.push_back(std::move(rec));
  if (pending_per_app_.size() <= k.app) pending_per_app_.resize(size_t(k.app) + 1, 0);
  ++pending_per_app_[k.app];
  return records_.size() - 1;
}

void TbDispatcher::push(Running r, StreamId s, Cycle now) {
  std::deque<Running>& q = streams_[s];
  q.push_back(std::move(r));
  if (q.size() == 1) make_head(s, now);
}

size_t TbDispatcher::enqueue(std::unique_ptr<sm::KernelInstance> k, uint32_t stream, std::string name,
                             std::optional<Cycle> launch_latency) {
  Cycle now = engine().wake_cycle(domain());
  Running r;
  r.record = add_record(*k, stream, std::move(name), now);
  r.launch_latency = launch_latency.value_or(p_.launch_latency);
  if (spread_fault_ && k->app != fault_source_app_) k->fault = spread_fault_;
  StreamId s{k->app, stream};
  r.kernel = std::move(k);
  push(std::move(r), s, now);
  return records_.size() - 1;
}

void TbDispatcher::make_head(StreamId s, Cycle now) {
  Running& r = streams_[s].front();
  r.ready_at = now + r.launch_latency;
  wake_at(engine().clock(domain()).tick_of(r.ready_at));
}

bool TbDispatcher::app_idle(uint32_t app) const {
  return app >= pending_per_app_.size() || pending_per_app_[app] == 0;
}

std::vector<ActiveKernel> TbDispatcher::active_kernels() const {
  std::vector<ActiveKernel> v;
  v.reserve(active_.size());
  for (const Running* r : active_) {
    uint64_t queued = r->preempted.size();
    v.push_back(ActiveKernel{r->kernel.get(), r->tbs_to_run() - r->next_tb + queued, r->next_tb - r->tbs_done - queued});
  }
  return v;
}

void TbDispatcher::repartition() {
  std::vector<ActiveKernel> a = active_kernels();
  policy_->set_cycle(engine().cycle(domain()));
  policy_->repartition(a, std::span<sm::Sm* const>(sms_));
}

// Activates stream heads whose launch latency has passed, by priority then
// readiness while the active-kernel table has room. True if any was.
bool TbDispatcher::activate(Cycle now, Cycle& next) {
  std::vector<Running*> ready;
  for (auto& [sid, q] : streams_) {
    if (q.empty() || q.front().active) continue;
    Running& r = q.front();
    if (r.ready_at > now)
      next = std::min(next, r.ready_at);
    else
      ready.push_back(&r);
  }
  const size_t max_active = p_.max_active_kernels ? p_.max_active_kernels : std::max<size_t>(sms_.size(), 1);
  if (ready.empty() || active_.size() >= max_active) return false;
  std::sort(ready.begin(), ready.end(), [](const Running* a, const Running* b) {
    if (a->kernel->priority != b->kernel->priority) return a->kernel->priority > b->kernel->priority;
    if (a->ready_at != b->ready_at) return a->ready_at < b->ready_at;
    return a->record < b->record;
  });
  bool any = false;
  for (Running* r : ready) {
    if (active_.size() >= max_active) break;
    r->active = true;
    records_[r->record].activated = now;
    // Dispatch-priority order: priority (higher first), then activation order.
    auto at = std::find_if(active_.begin(), active_.end(),
                           [&](const Running* o) { return o->kernel->priority < r->kernel->priority; });
    active_.insert(at, r);
    any = true;
  }
  if (any && activation_listener_) activation_listener_->kernel_activated();
  return any;
}

bool TbDispatcher::place_one(Running& r, sm::Sm& s, Cycle now, uint64_t& tb) {
  sm::KernelInstance& k = *r.kernel;
  if (!reserved_for_events_.empty() && reserved_for_events_[s.id()] != k.event) return false;
  const bool fits = s.fits(k);
  const bool fragmented = !fits && s.fits_if_contiguous(k);
  if (fragmented) fragmented_[k.key].add();
  uint32_t mine = s.resident_tbs(k.id);
  if (mine >= quota(k, s.id()) || (policy_->exclusive_sms() && s.resident_tbs() != mine)) return false;
  if (fragmented && !refused_by_fragmentation_) refused_by_fragmentation_ = &k;
  auto resume = [&](std::deque<sm::PreemptedTb>::iterator it) {
    tb = it->index;
    if (it->fault_sm >= 0) --off_chip_[size_t(it->fault_sm)];
    s.resume_tb(k, std::move(*it));
    r.preempted.erase(it);
    tbs_resumed_[k.key].add();
    return true;
  };
  // Lazy shared-memory save: a TB resumes first where its shared memory is parked.
  const int32_t here = int32_t(s.id());
  auto parked_here = std::find_if(r.preempted.begin(), r.preempted.end(), [&](const sm::PreemptedTb& p) {
    return p.shared_parked_on == here && s.fits_parked(k, p.index);
  });
  if (parked_here != r.preempted.end()) return resume(parked_here);
  if (!fits) {
    s.make_room(k);  // parked shared memory may be all that is in the way
    return false;
  }
  // A TB switched out on a fault waits until the fault is serviced; it
  // resumes first on the SM it left (the thesis's SM-local TB scheduler).
  auto saved = std::find_if(r.preempted.begin(), r.preempted.end(),
                            [&](const sm::PreemptedTb& p) { return p.ready() && p.fault_sm == here; });
  if (saved == r.preempted.end())
    saved = std::find_if(r.preempted.begin(), r.preempted.end(), [](const sm::PreemptedTb& p) { return p.ready(); });
  if (saved != r.preempted.end()) return resume(saved);
  if (r.next_tb < r.tbs_to_run()) {
    if (r.next_tb == 0) records_[r.record].first_tb = now;
    tb = r.next_tb++;
    s.start_tb(k, tb);
    return true;
  }
  // Only TBs parked on other SMs (or waiting for faults) are left and this
  // SM could run one: write its shared memory back (shared_evicted wakes the
  // dispatcher).
  auto parked = std::find_if(r.preempted.begin(), r.preempted.end(),
                             [](const sm::PreemptedTb& p) { return p.shared_parked_on >= 0; });
  if (parked != r.preempted.end()) sms_[size_t(parked->shared_parked_on)]->evict_parked(k.id, parked->index);
  return false;
}

Cycle TbDispatcher::tick(Cycle now) {
  Cycle next = kNever;
  if (activate(now, next) || repartition_pending_) {
    repartition_pending_ = false;
    repartition();
    reclaim(now);
  }
  if (epochs_) next = std::min(next, step_epoch(now));
  // A faulted launch places nothing more: its preempted TBs are dropped.
  for (size_t i = 0; i < active_.size();) {
    Running& r = *active_[i];
    bool ended = false;
    if (r.kernel->fault)
      while (!ended && !r.preempted.empty()) {
        const sm::PreemptedTb& p = r.preempted.front();
        if (p.shared_parked_on >= 0) sms_[size_t(p.shared_parked_on)]->drop_parked(r.kernel->id, p.index);
        if (p.fault_sm >= 0) {
          --off_chip_[size_t(p.fault_sm)];
          vacated_tb_ready(uint32_t(p.fault_sm), r.kernel->id, p.index, now);
        }
        r.preempted.pop_front();
        ended = count_done(r, now);
      }
    // A launch faulted by another's fault (spread_fault) may have no TB left to count.
    if (r.kernel->fault && !ended) ended = end_if_done(r, now);
    if (!ended) ++i;
  }
  if (switch_after_) next = std::min(next, escalate(now));
  if (p_.preempt_every && !active_.empty()) next = std::min(next, stress(now));
  // One TB per SM per cycle, SMs visited round-robin, kernels in dispatch-priority order.
  bool placed = false, last_dispatched = false, left = false;
  size_t n = sms_.size();
  for (size_t i = 0; i < n; ++i) {
    sm::Sm& s = *sms_[(next_sm_ + i) % n];
    refused_by_fragmentation_ = nullptr;
    bool placed_here = false;
    for (Running* r : active_) {
      uint64_t tb = 0;
      if (!r->tbs_left()) continue;
      if (!place_one(*r, s, now, tb)) {
        if (drain_for_events_ && r->kernel->event) break;  // no other kernel's TB takes the room it waits for
        continue;
      }
      tbs_dispatched_[r->kernel->key].add();
      if (sink_) sink_->tb_started(s.id(), *r->kernel, tb, now);
      if (p_.check_invariants) check_sm_invariants(s, *policy_, active_kernels());
      placed = placed_here = true;
      r->kernel->all_placed = !r->tbs_left();
      last_dispatched |= r->kernel->all_placed;
      break;
    }
    // After a placement the SM is offered TBs again next cycle.
    if (!placed_here) s.fragmentation_verdict(refused_by_fragmentation_);
  }
  next_sm_ = (next_sm_ + 1) % std::max<size_t>(n, 1);
  if (event_mechanism_) preempt_for_events(now);
  if (last_dispatched) {
    repartition();
    reclaim(now);
  }
  for (Running* r : active_) left |= r->tbs_left();
  // More TBs may be placed next cycle only if some were placed or the
  // partition changed; otherwise resources, quotas or exclusivity block them
  // until a TB finishes or a kernel ends, which wakes the dispatcher.
  if ((placed || last_dispatched) && left) next = std::min(next, now + 1);
  return next;
}

Cycle TbDispatcher::step_epoch(Cycle now) {
  if (active_.empty()) {
    next_epoch_ = kNever;
    return kNever;
  }
  if (next_epoch_ == kNever) next_epoch_ = now;  // a series starts with its first kernel
  if (now < next_epoch_) return next_epoch_;
  SharingPolicy::EpochStep step = policy_->epoch(now, active_kernels(), sms_, preempting());
  next_epoch_ = std::max(step.next, now + 1);
  if (step.repartition) {
    repartition();
    reclaim(now);
  }
  return next_epoch_;
}

TbDispatcher::Running& TbDispatcher::running(const sm::KernelInstance& k) {
  auto it = std::find_if(active_.begin(), active_.end(), [&](Running* r) { return r->kernel.get() == &k; });
  return **it;
}

void TbDispatcher::tb_done(uint32_t sm, sm::KernelInstance& k, uint64_t tb_index) {
  Running& r = running(k);
  wake();
  Cycle now = engine().wake_cycle(domain());
  if (sink_) sink_->tb_finished(sm, k, tb_index, engine().cycle(domain()));
  if (!leaving_.empty()) tb_left(sm, k, tb_index, now, nullptr);
  vacated_tb_ready(sm, k.id, tb_index, now);  // a TB vacated for a loan may finish instead of leaving
  bool sm_idle = policy_->repartition_when_sm_idle() && sms_[sm]->resident_tbs() == 0;
  if (!count_done(r, now) && sm_idle) {
    repartition();
    reclaim(now);
  }
}

bool TbDispatcher::count_done(Running& r, Cycle now) {
  ++r.tbs_done;
  return end_if_done(r, now);
}

bool TbDispatcher::end_if_done(Running& r, Cycle now) {
  // A faulted launch ends when the TBs it dispatched have been aborted.
  if (r.tbs_done < r.tbs_to_run() || !r.preempted.empty()) return false;
  active_.erase(std::find(active_.begin(), active_.end(), &r));
  end_loans_to(r.kernel->id, now);
  r.grid_done = true;
  if (r.children == r.tails.size()) children_done(r, now);
  repartition();
  reclaim(now);
  return true;
}

void TbDispatcher::retire(Running& r, Cycle now) {
  sm::KernelInstance& k = *r.kernel;
  KernelRecord& rec = records_[r.record];
  rec.finished = now;
  rec.warp_insts = k.warp_insts;
  rec.thread_insts = k.thread_insts;
  rec.fault = k.fault;
  rec.done = true;
  if (k.fault && !spread_fault_ && policy_->faults_reach_every_app()) spread_fault(k, rec);
  rec.shared_bytes = k.needs.shared_bytes;
  if (k.tbs_finished) rec.tb_cycles = double(k.tb_cycles_finished) / double(k.tbs_finished);
  if (!sms_.empty())
    rec.sm_save_cycles = double(policy::tbs_per_empty_sm(k, sms_.front()->params())) *
                         double(sms_.front()->full_context_bytes(k)) / estimates_.sm_bytes_per_cycle;
  --pending_per_app_[k.app];
  if (sink_) sink_->kernel_finished(rec);
  if (completion_listener_) completion_listener_->kernel_completed(k, rec);
  Running* parent = r.parent;
  if (parent && k.grid.builtins) --k.grid.builtins->pending_launches;
  StreamId s{k.app, rec.stream};
  std::deque<Running>& q = streams_[s];
  q.pop_front();  // destroys k
  if (!q.empty())
    make_head(s, now);
  else if (s.second >= kDeviceStreamBase)
    streams_.erase(s);  // device streams are many and short-lived
  engine().stop();  // lets the host side see the completion
  if (parent && --parent->children == parent->tails.size() && parent->grid_done) children_done(*parent, now);
}

std::string TbDispatcher::describe_wait() const {
  std::string s;
  for (const auto& [sid, q] : streams_) {
    if (q.empty()) continue;
    const Running& r = q.front();
    s += fmt::format("{}app {} stream {}: {} queued; head {} {}: {}/{} TBs dispatched, {} done", s.empty() ? "" : "\n    ",
                     sid.first, sid.second, q.size(), r.kernel->label, r.active ? "active" : "waiting for launch",
                     r.next_tb, r.kernel->grid.num_tbs(), r.tbs_done);
    if (r.children) s += fmt::format(", {} child grid(s) not complete", r.children);
  }
  // The partition as each active kernel sees it.
  for (const Running* r : active_) {
    const sm::KernelInstance& k = *r->kernel;
    uint32_t allowed = 0, lo = SharingPolicy::kUnlimited, hi = 0, resident = 0, blocked = 0;
    for (const sm::Sm* m : sms_) {
      uint32_t q = quota(k, m->id()), mine = m->resident_tbs(k.id);
      resident += mine;
      if (q == 0) continue;
      ++allowed;
      lo = std::min(lo, q);
      hi = std::max(hi, q);
      if (policy_->exclusive_sms() && m->resident_tbs() != mine) ++blocked;
    }
    auto qs = [](uint32_t q) { return q == SharingPolicy::kUnlimited ? std::string("unlimited") : std::to_string(q); };
    std::string quota = allowed == 0 ? "no SM" : lo == hi ? qs(lo) : qs(lo) + ".." + qs(hi);
    s += fmt::format("{}{} {} (priority {}): {} resident; quota {} on {}/{} SMs", s.empty() ? "" : "\n    ",
                     policy_->name(), k.label, k.priority, resident, quota, allowed, sms_.size());
    if (blocked) s += fmt::format(", {} of them still hold another kernel's TBs", blocked);
  }
  return s;
}

void TbDispatcher::spread_fault(const sm::KernelInstance& k, const KernelRecord& rec) {
  fault_source_app_ = k.app;
  try {
    std::rethrow_exception(k.fault);
  } catch (const DeviceFault& f) {
    // Same reason, so the same CUDA error; the site is the faulting client's.
    spread_fault_ = std::make_exception_ptr(DeviceFault(
        fmt::format("{}; raised by kernel {} of another MPS client (a fatal fault of one client reaches every "
                    "client)",
                    f.reason(), rec.label),
        f.site()));
  } catch (...) {
    spread_fault_ = k.fault;
  }
  for (auto& [sid, q] : streams_)
    for (Running& r : q)
      if (sid.first != k.app && !r.kernel->fault) r.kernel->fault = spread_fault_;
  for (uint32_t app = 0; app < clients_.size(); ++app)
    if (clients_[app]) fault_reached_.insert(app);
  if (fault_reached_.empty()) spread_fault_ = nullptr;  // no client left to wait for (a launch without a context)
  wake();
}

void TbDispatcher::client_connected(uint32_t app) {
  if (app >= clients_.size()) clients_.resize(app + 1, 0);
  ++clients_[app];
}

void TbDispatcher::client_disconnected(uint32_t app) {
  if (app >= clients_.size() || clients_[app] == 0) return;
  if (--clients_[app] == 0 && fault_reached_.erase(app) && fault_reached_.empty())
    spread_fault_ = nullptr;  // every client the fault reached has left: the server takes clients again
}

}  // namespace gpumux::frontend
