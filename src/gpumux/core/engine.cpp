#include "gpumux/core/engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

namespace gpumux {

Component::Component(Engine& engine, DomainId domain, std::string name)
    : engine_(engine), domain_(domain), name_(std::move(name)) {
  engine.add(*this);
}

void Component::wake() { engine_.wake(*this, engine_.horizon_); }

void Component::wake_at(Tick t) { engine_.wake(*this, t); }

DomainId Engine::add_domain(std::string name, double mhz) {
  domains_.emplace_back(ClockDomain(std::move(name), mhz));
  return DomainId(domains_.size() - 1);
}

void Engine::add(Component& c) {
  if (c.domain_ >= domains_.size())
    throw std::logic_error(fmt::format("component {}: unknown clock domain {}", c.name_, c.domain_));
  Domain& d = domains_[c.domain_];
  c.index_ = uint32_t(d.components.size());
  d.components.push_back(&c);
  if (d.due.size() * 64 < d.components.size()) {
    d.due.push_back(0);
    d.ticking.push_back(0);
  }
}

void Engine::set_next_cycle(Domain& d, Cycle c) {
  d.next_cycle = c;
  d.next_tick = d.clock.tick_of(c);
  d.prev_tick = c ? d.clock.tick_of(c - 1) : 0;
}

Cycle Engine::first_cycle_from(const Domain& d, Tick t) const {
  if (d.next_cycle > 0 && d.prev_tick < t && t <= d.next_tick) return d.next_cycle;  // the usual case
  return d.clock.cycle_at_or_after(t);
}

void Engine::wake(Component& c, Tick t) {
  Domain& d = domains_[c.domain_];
  schedule(c, first_cycle_from(d, std::max(t, horizon_)));
}

// Invariant: when a domain is active, next_cycle is the earliest planned cycle
// of its components; `due` holds exactly those planned for next_cycle.
void Engine::schedule(Component& c, Cycle cycle) {
  if (c.planned_ <= cycle) return;
  c.planned_ = cycle;
  Domain& d = domains_[c.domain_];
  if (!d.active()) {
    set_next_cycle(d, cycle);
  } else if (cycle < d.next_cycle) {
    // Earlier than everything planned (rare): what was due waits in the heap.
    for (size_t w = 0; w < d.due.size(); ++w) {
      for (uint64_t bits = d.due[w]; bits; bits &= bits - 1)
        d.timed.push({d.next_cycle, uint32_t(w * 64 + std::countr_zero(bits))});
      d.due[w] = 0;
    }
    d.any_due = false;
    set_next_cycle(d, cycle);
  }
  if (cycle == d.next_cycle) {
    d.due[c.index_ / 64] |= uint64_t(1) << (c.index_ % 64);
    d.any_due = true;
  } else {
    d.timed.push({cycle, c.index_});
  }
}

void Engine::drop_stale_timed(Domain& d) {
  while (!d.timed.empty() && d.components[d.timed.top().second]->planned_ != d.timed.top().first) d.timed.pop();
}

void Engine::process(Domain& d) {
  const Cycle c = d.next_cycle;
  now_ = d.next_tick;
  horizon_ = now_ + 1;
  ++edges_;
  while (!d.timed.empty() && d.timed.top().first <= c) {
    auto [cycle, i] = d.timed.top();
    d.timed.pop();
    if (d.components[i]->planned_ == cycle) d.due[i / 64] |= uint64_t(1) << (i % 64);
  }
  std::swap(d.due, d.ticking);
  d.any_due = false;
  d.prev_tick = d.next_tick;
  d.next_cycle = c + 1;
  d.next_tick = d.clock.tick_of(c + 1);
  for (size_t w = 0; w < d.ticking.size(); ++w) {
    while (uint64_t bits = d.ticking[w]) {
      d.ticking[w] = bits & (bits - 1);
      Component& comp = *d.components[w * 64 + std::countr_zero(bits)];
      comp.planned_ = kNever;
      Cycle next = comp.tick(c);
      ++component_ticks_;
      if (next != kNever) schedule(comp, std::max(next, c + 1));
    }
  }
  if (!d.any_due) {
    drop_stale_timed(d);
    if (!d.timed.empty()) set_next_cycle(d, d.timed.top().first);
  }
}

Engine::Domain* Engine::next_domain() {
  Domain* best = nullptr;
  for (Domain& d : domains_)
    if (d.active() && (!best || d.next_tick < best->next_tick)) best = &d;
  return best;
}

bool Engine::step() {
  Domain* d = next_domain();
  if (!d) return false;
  // A domain is busy when a component is due at its very next edge, none of
  // its edges skipped (prev_tick <= now_). A component due at a far cycle
  // (woken for a later tick while its domain was idle: a copy's end, a
  // program's arrival) makes its domain skip edges: that is a wait. When no
  // domain is busy, every component sleeps on a timer: time passing then is
  // waiting, not a stall.
  bool all_sleeping = std::none_of(domains_.begin(), domains_.end(),
                                   [&](const Domain& x) { return x.any_due && x.prev_tick <= now_; });
  process(*d);
  if (edge_observer_ && edges_ % observer_every_ == 0) edge_observer_();
  if (all_sleeping) {
    last_progress_ = now_;
  } else if (watchdog_ticks_ && now_ - last_progress_ > watchdog_ticks_) {
    throw WatchdogError(fmt::format("watchdog: no progress for {} ps (since tick {}, now {}); waiting:\n{}",
                                    watchdog_ticks_, last_progress_, now_, describe_waits()));
  }
  return true;
}

void Engine::run() {
  stop_ = false;
  while (!stop_ && step()) {
  }
}

void Engine::run_until(Tick limit) {
  for (Domain* d = next_domain(); d && d->next_tick <= limit; d = next_domain()) step();
  if (limit >= now_) {  // tick `limit` is simulated: later wakes land after it
    now_ = limit;
    horizon_ = limit + 1;
  }
}

bool Engine::idle() const {
  return std::none_of(domains_.begin(), domains_.end(), [](const Domain& d) { return d.active(); });
}

void Engine::set_watchdog(DomainId reference, Cycle cycles) {
  watchdog_ticks_ = cycles ? clock(reference).tick_of(cycles) : 0;
  last_progress_ = now_;
}

void Engine::set_edge_observer(std::function<void()> observer, uint64_t every_edges) {
  edge_observer_ = std::move(observer);
  observer_every_ = std::max<uint64_t>(every_edges, 1);
}

std::string Engine::describe_waits() const {
  std::string out;
  for (const Domain& d : domains_) {
    for (const Component* c : d.components) {
      std::string wait = c->describe_wait();
      if (wait.empty()) continue;
      std::string plan = c->planned_ == kNever ? "asleep" : fmt::format("next tick at cycle {}", c->planned_);
      out += fmt::format("  {} [{}, {}]: {}\n", c->name_, d.clock.name(), plan, wait);
    }
  }
  return out.empty() ? "  (no component holds work)\n" : out;
}

}  // namespace gpumux
