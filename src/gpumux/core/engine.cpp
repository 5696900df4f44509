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
  if (d.ticking.size() * 64 < d.components.size()) {
    d.wheel.resize(d.wheel.size() + kWheelSlots, 0);  // word-major: a new word is a new row
    d.ticking.push_back(0);
  }
}

void Engine::set_next_cycle(Domain& d, Cycle c) {
  if (c == d.next_cycle) return;  // its ticks are known (tick_of divides)
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

[[gnu::always_inline]] inline void Engine::plan(Domain& d, uint32_t index, Cycle cycle) {
  if (cycle >= d.horizon + kWheelSlots) {
    d.later.push({cycle, index});
    return;
  }
  size_t slot = cycle % kWheelSlots;
  d.wheel[index / 64 * kWheelSlots + slot] |= uint64_t(1) << (index % 64);
  d.occupied[slot / 64] |= uint64_t(1) << (slot % 64);
}

// A plan replaced by an earlier one leaves the wheel at once; in the heap it
// goes stale.
void Engine::unplan(Domain& d, uint32_t index, Cycle cycle) {
  if (cycle >= d.horizon + kWheelSlots) return;
  size_t slot = cycle % kWheelSlots;
  d.wheel[index / 64 * kWheelSlots + slot] &= ~(uint64_t(1) << (index % 64));
  uint64_t any = 0;
  for (size_t w = slot; w < d.wheel.size(); w += kWheelSlots) any |= d.wheel[w];
  if (!any) d.occupied[slot / 64] &= ~(uint64_t(1) << (slot % 64));
}

// Invariant: when a domain is active, next_cycle is at most the earliest
// planned cycle of its components, and equal to it outside process().
void Engine::replan(Component& c, Cycle cycle) {
  Domain& d = domains_[c.domain_];
  const bool was_active = d.active();
  if (c.planned_ != kNever) unplan(d, c.index_, c.planned_);
  c.planned_ = cycle;
  plan(d, c.index_, cycle);
  if (!was_active || cycle < d.next_cycle) set_next_cycle(d, cycle);
  if (cycle == d.next_cycle) d.any_due = true;
}

// Moves the horizon forward and, with it, the heap's plans that now fall
// within the wheel.
[[gnu::always_inline]] inline void Engine::advance_horizon(Domain& d, Cycle horizon) {
  d.horizon = horizon;
  while (!d.later.empty() && d.later.top().first < horizon + kWheelSlots) [[unlikely]] {
    auto [cycle, i] = d.later.top();
    d.later.pop();
    if (d.components[i]->planned_ == cycle) plan(d, i, cycle);
  }
}

Cycle Engine::earliest_planned(Domain& d) {
  const size_t start = d.horizon % kWheelSlots;
  for (size_t k = 0; k <= kSlotWords; ++k) {
    size_t w = (start / 64 + k) % kSlotWords;
    uint64_t bits = d.occupied[w];
    if (k == 0) bits &= ~uint64_t(0) << (start % 64);
    if (bits) return d.horizon + (w * 64 + std::countr_zero(bits) + kWheelSlots - start) % kWheelSlots;
  }
  while (!d.later.empty() && d.components[d.later.top().second]->planned_ != d.later.top().first) d.later.pop();
  return d.later.empty() ? kNever : d.later.top().first;
}

void Engine::process(Domain& d) {
  const Cycle c = d.next_cycle;
  now_ = d.next_tick;
  horizon_ = now_ + 1;
  ++edges_;
  advance_horizon(d, c);  // a jump over idle cycles may land on plans still in the heap
  const size_t slot = c % kWheelSlots;
  for (size_t w = 0; w < d.ticking.size(); ++w) {
    d.ticking[w] = d.wheel[w * kWheelSlots + slot];
    d.wheel[w * kWheelSlots + slot] = 0;
  }
  d.occupied[slot / 64] &= ~(uint64_t(1) << (slot % 64));
  advance_horizon(d, c + 1);
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
    Cycle next = earliest_planned(d);
    if (next != kNever) set_next_cycle(d, next);
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
