#include "gpumux/frontend/tb_dispatcher.h"

#include <algorithm>

#include <fmt/format.h>

namespace gpumux::frontend {

TbDispatcher::TbDispatcher(Engine& engine, DomainId core, const FrontendParams& p,
                           std::unique_ptr<SharingPolicy> policy)
    : Component(engine, core, "frontend"), p_(p), policy_(std::move(policy)) {}

TbDispatcher::~TbDispatcher() = default;

size_t TbDispatcher::enqueue(std::unique_ptr<sm::KernelInstance> k, uint32_t stream, std::string name) {
  Cycle now = engine().wake_cycle(domain());
  KernelRecord rec;
  rec.id = k->id;
  rec.app = k->app;
  rec.stream = stream;
  rec.name = std::move(name);
  rec.label = k->label;
  rec.key = k->key;
  rec.tbs = k->grid.num_tbs();
  rec.enqueued = now;
  records_.push_back(rec);
  if (pending_per_app_.size() <= k->app) pending_per_app_.resize(size_t(k->app) + 1, 0);
  ++pending_per_app_[k->app];
  StreamId s{k->app, stream};
  std::deque<Running>& q = streams_[s];
  q.push_back(Running{std::move(k), records_.size() - 1});
  if (q.size() == 1) make_head(s, now);
  return records_.size() - 1;
}

void TbDispatcher::make_head(StreamId s, Cycle now) {
  Running& r = streams_[s].front();
  r.ready_at = now + p_.launch_latency;
  wake_at(engine().clock(domain()).tick_of(r.ready_at));
}

bool TbDispatcher::app_idle(uint32_t app) const {
  return app >= pending_per_app_.size() || pending_per_app_[app] == 0;
}

Cycle TbDispatcher::tick(Cycle now) {
  Cycle next = kNever;
  // Activate stream heads whose launch latency has passed.
  for (auto& [sid, q] : streams_) {
    if (q.empty() || q.front().active) continue;
    Running& r = q.front();
    if (r.ready_at > now) {
      next = std::min(next, r.ready_at);
    } else if (active_.size() < p_.max_active_kernels) {
      r.active = true;
      records_[r.record].activated = now;
      active_.push_back(&r);
      policy_->kernel_activated(*r.kernel);
    }
  }
  // One TB per SM per cycle, SMs visited round-robin, kernels in FCFS order.
  bool placed = false, left = false;
  size_t n = sms_.size();
  for (size_t i = 0; i < n; ++i) {
    sm::Sm& s = *sms_[(next_sm_ + i) % n];
    for (Running* r : active_) {
      if (r->next_tb >= r->kernel->grid.num_tbs()) continue;
      if (!s.fits(*r->kernel) || !policy_->may_place(*r->kernel, s)) continue;
      if (r->next_tb == 0) records_[r->record].first_tb = now;
      s.start_tb(*r->kernel, r->next_tb++);
      placed = true;
      break;
    }
  }
  next_sm_ = (next_sm_ + 1) % std::max<size_t>(n, 1);
  for (Running* r : active_) left |= r->next_tb < r->kernel->grid.num_tbs();
  // More TBs may fit next cycle only if some were placed (else resources or the
  // policy block them until a TB finishes, which wakes the dispatcher).
  if (placed && left) next = std::min(next, now + 1);
  return next;
}

void TbDispatcher::tb_done(uint32_t, sm::KernelInstance& k) {
  auto it = std::find_if(active_.begin(), active_.end(), [&](Running* r) { return r->kernel.get() == &k; });
  Running& r = **it;
  wake();
  if (++r.tbs_done < k.grid.num_tbs()) return;
  Cycle now = engine().wake_cycle(domain());
  KernelRecord& rec = records_[r.record];
  rec.finished = now;
  rec.done = true;
  policy_->kernel_finished(k);
  active_.erase(it);
  --pending_per_app_[k.app];
  StreamId s{k.app, rec.stream};
  std::deque<Running>& q = streams_[s];
  q.pop_front();
  if (!q.empty()) make_head(s, now);
  engine().stop();  // lets the host side see the completion
}

std::string TbDispatcher::describe_wait() const {
  std::string s;
  for (const auto& [sid, q] : streams_) {
    if (q.empty()) continue;
    const Running& r = q.front();
    s += fmt::format("{}app {} stream {}: {} queued; head {} {}: {}/{} TBs dispatched, {} done", s.empty() ? "" : "\n    ",
                     sid.first, sid.second, q.size(), r.kernel->label, r.active ? "active" : "waiting for launch",
                     r.next_tb, r.kernel->grid.num_tbs(), r.tbs_done);
  }
  return s;
}

}  // namespace gpumux::frontend

