// The simulation engine: clock domains, components ticked only while they have
// work, and jumps over idle stretches.
//
// A Component belongs to one clock domain. Its tick(now) returns when it next
// needs a tick: now + 1 (busy), a later cycle (sleep until then) or kNever
// (sleep until woken). A neighbour that hands it work calls wake(); the
// component is then ticked from the first edge of its domain strictly after
// the current tick, so what a component sees never depends on the order in
// which components of the same tick run. Edges are processed by tick, then
// domain (creation order), then component (registration order): runs are
// deterministic.
//
// The watchdog stops a run in which components keep ticking but none reports
// progress (note_progress()) for a configured number of cycles; the error
// lists what every component waits for (describe_wait()). Time the engine
// jumps over (every component asleep until a later cycle: a long copy, a
// program that arrives later) is waiting, not a stall.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpumux/core/clock.h"

namespace gpumux {

class Engine;
using DomainId = uint32_t;

class Component {
 public:
  Component(Engine& engine, DomainId domain, std::string name);
  virtual ~Component() = default;
  Component(const Component&) = delete;
  Component& operator=(const Component&) = delete;

  // One cycle of work. Returns the next cycle to be ticked at (> now), or
  // kNever to sleep until woken.
  virtual Cycle tick(Cycle now) = 0;
  // What the component holds and waits for, for deadlock reports; "" when it
  // holds no work.
  virtual std::string describe_wait() const = 0;

  const std::string& name() const { return name_; }
  DomainId domain() const { return domain_; }
  // Ticks this component from its domain's first edge after the current tick.
  void wake();
  // Ticks this component from its domain's first edge at or after `t` (and
  // after the current tick).
  void wake_at(Tick t);

 protected:
  Engine& engine() const { return engine_; }

 private:
  friend class Engine;
  Engine& engine_;
  DomainId domain_;
  uint32_t index_ = 0;     // registration order within the domain
  Cycle planned_ = kNever;  // next cycle it will be ticked at
  std::string name_;
};

// A run stopped by the watchdog; what() holds the report.
class WatchdogError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Engine {
 public:
  Engine() = default;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  DomainId add_domain(std::string name, double mhz);
  const ClockDomain& clock(DomainId d) const { return domains_[d].clock; }
  size_t num_domains() const { return domains_.size(); }

  // Tick of the edge being processed (or last processed, or run_until's limit).
  Tick now() const { return now_; }
  // The cycle of domain `d` in progress at now().
  Cycle cycle(DomainId d) const { return domains_[d].clock.cycle_at(now_); }
  // The cycle of domain `d` at which a component woken now is ticked: when
  // input handed over now is first seen.
  Cycle wake_cycle(DomainId d) const { return first_cycle_from(domains_[d], horizon_); }

  // Processes edges until no component is awake or stop() is called.
  void run();
  // Processes every edge with tick <= `limit`; now() is then `limit`, and
  // wakes from outside take effect after it.
  void run_until(Tick limit);
  // Processes the next edge; false if no component is awake.
  bool step();
  // Makes run() return after the edge being processed.
  void stop() { stop_ = true; }
  // True when no component is awake or scheduled.
  bool idle() const;

  // Components call this whenever they complete work (a request served, an
  // instruction retired); the watchdog only fires without it.
  void note_progress() { last_progress_ = now_; }
  // Watchdog limit in cycles of domain `reference`; 0 disables it.
  void set_watchdog(DomainId reference, Cycle cycles);
  // One line per component holding work: name, domain, schedule, describe_wait().
  std::string describe_waits() const;
  // Calls `observer` after every `every_edges` processed edges (a progress
  // display; it must not change the simulation). Null: none.
  void set_edge_observer(std::function<void()> observer, uint64_t every_edges);

  uint64_t edges_processed() const { return edges_; }
  uint64_t component_ticks() const { return component_ticks_; }

 private:
  friend class Component;
  using Timed = std::pair<Cycle, uint32_t>;  // (cycle, component index)

  // Components planned within kWheelSlots cycles of a domain's horizon wait
  // in a timing wheel of bitsets (no ordering work); those planned further
  // ahead wait in a heap and move to the wheel as the horizon nears them.
  static constexpr size_t kWheelSlots = 128;
  static constexpr size_t kSlotWords = kWheelSlots / 64;

  struct Domain {
    explicit Domain(ClockDomain c) : clock(std::move(c)) {}
    ClockDomain clock;
    std::vector<Component*> components;
    // Bit per component, word-major (word w of slot s at w * kWheelSlots + s):
    // slot s holds the components planned for the cycle in [horizon,
    // horizon + kWheelSlots) that is s modulo kWheelSlots.
    std::vector<uint64_t> wheel;
    std::array<uint64_t, kSlotWords> occupied{};  // bit per non-empty slot
    std::vector<uint64_t> ticking;                 // the slot being ticked
    // (cycle, component) planned at or after horizon + kWheelSlots; entries
    // whose component was planned again since are stale and skipped.
    std::priority_queue<Timed, std::vector<Timed>, std::greater<>> later;
    Cycle horizon = 0;      // every plan is for this cycle or later: the cycle after the last one processed
    bool any_due = false;   // a component was planned for next_cycle since it was processed (busy, for the watchdog)
    Cycle next_cycle = 0;   // when active: no component is planned before it
    Tick next_tick = 0;     // tick_of(next_cycle)
    Tick prev_tick = 0;     // tick_of(next_cycle - 1), or 0
    bool active() const {
      uint64_t any = 0;
      for (uint64_t w : occupied) any |= w;
      return any || !later.empty();
    }
  };

  void add(Component& c);
  // Plans `c` for `cycle` unless it is planned for that cycle or earlier.
  void schedule(Component& c, Cycle cycle) {
    if (cycle < c.planned_) replan(c, cycle);
  }
  void replan(Component& c, Cycle cycle);
  void wake(Component& c, Tick t);
  void set_next_cycle(Domain& d, Cycle c);
  Cycle first_cycle_from(const Domain& d, Tick t) const;
  void plan(Domain& d, uint32_t index, Cycle cycle);
  void unplan(Domain& d, uint32_t index, Cycle cycle);
  void advance_horizon(Domain& d, Cycle horizon);
  Cycle earliest_planned(Domain& d);
  void process(Domain& d);
  Domain* next_domain();

  std::vector<Domain> domains_;
  Tick now_ = 0;
  Tick horizon_ = 0;  // earliest tick a wake can take effect: now_ + 1 once an edge ran
  bool stop_ = false;
  Tick last_progress_ = 0;
  Tick watchdog_ticks_ = 0;  // 0 = off
  uint64_t edges_ = 0;
  uint64_t component_ticks_ = 0;
  std::function<void()> edge_observer_;
  uint64_t observer_every_ = 0;
};

}  // namespace gpumux
