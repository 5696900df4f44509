#include "gpumux/frontend/events/event_engine.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/exec/address_space.h"

namespace gpumux::frontend {

namespace {

// Event kernels are dispatched before any application's kernels (priorities are -100..100).
constexpr int kEventPriority = 1000;
// Dispatcher streams of event kernels: one per submission-queue slot, so that events run concurrently.
constexpr uint32_t kEventStreamBase = 1u << 24;

}  // namespace

EventEngine::EventEngine(Engine& engine, DomainId core, const EdgeParams& p, TbDispatcher& dispatcher,
                         std::vector<sm::Sm*> sms)
    : Component(engine, core, "events"), p_(p), dispatcher_(dispatcher), sms_(std::move(sms)) {
  ekt_.resize(p.ekt_entries);
  for (sm::Sm* s : sms_) s->enable_event_warps(p, *this);
  std::vector<bool> reserved;
  if (p.scheduling == EventScheduling::Reserve) {
    const size_t n = sms_.size();
    const size_t r = std::clamp<size_t>(size_t(std::llround(p.reserved_fraction * double(n))), 1, n);
    reserved.assign(n, false);
    for (size_t i = n - r; i < n; ++i) reserved[i] = true;  // the last SMs
  } else if (p.scheduling == EventScheduling::ReserveDynamic) {
    dynamic_ = std::make_unique<DynamicReservation>(p, sms_.size(), engine.clock(core).mhz());
    reserved = dynamic_->mask();
  }
  dispatcher_.set_event_rules(!p.reserves_sms(), std::move(reserved), p.tb_preemption);
  dispatcher_.set_completion_listener(this);
}

EventEngine::~EventEngine() = default;

void EventEngine::register_stats(StatRegistry& reg) {
  reg.add("events.completed", events_, "event kernels completed");
  reg.add("events.preempting", events_preempting_, "warp-level events that preempted a victim warp");
  reg.add("events.latency_cycles", event_cycles_, "sum over events of arrival to completion");
  reg.add("events.scheduling_cycles", scheduling_cycles_, "sum over events of launch to first warp placed");
  if (dynamic_)
    reg.add("events.reserved_sm_cycles", reserved_sm_cycles_,
            "reserve-dynamic: sum over its updates of reserved SMs x cycles since the previous update");
  for (sm::Sm* s : sms_) s->register_event_stats(reg);
}

uint32_t EventEngine::register_kernel(uint32_t app, std::string label, KernelFactory make, exec::AddressSpace& mem,
                                      const runtime::Doorbell& bell) {
  auto it = std::find_if(ekt_.begin(), ekt_.end(), [](const Entry& e) { return !e.used; });
  if (it == ekt_.end())
    throw ApiError(fmt::format("event registration of {}: the Event Kernel Table is full ({} entries, "
                               "edge.ekt_entries)", label, ekt_.size()));
  *it = Entry{};
  it->used = true;
  it->app = app;
  it->label = std::move(label);
  it->make = std::move(make);
  it->mem = &mem;
  it->bell = bell;
  it->slot_event.assign(bell.slots, -1);
  return uint32_t(it - ekt_.begin()) + 1;
}

void EventEngine::unregister_kernel(uint32_t id) { ekt_.at(id - 1) = Entry{}; }

void EventEngine::deliver(uint32_t id, std::vector<runtime::EventBlock> blocks,
                          const std::vector<uint64_t>& arrivals_ps) {
  Entry& e = ekt_.at(id - 1);
  const Tick start = engine().now();
  const ClockDomain& clock = engine().clock(domain());
  for (size_t i = 0; i < blocks.size(); ++i) {
    EventRecord r;
    r.doorbell = id;
    r.app = e.app;
    r.index = uint32_t(e.delivered++);
    r.label = e.label;
    r.arrival = clock.cycle_at_or_after(start + arrivals_ps[i]);
    records_.push_back(r);
    e.waiting.push_back({r.arrival, records_.size() - 1, std::move(blocks[i])});
  }
  wake();
}

bool EventEngine::idle(uint32_t id) const {
  const Entry& e = ekt_.at(id - 1);
  return e.completed == e.delivered;
}

std::exception_ptr EventEngine::fault(uint32_t id) const { return ekt_.at(id - 1).fault; }

Cycle EventEngine::launch_path_cycles() const {
  const double mhz = engine().clock(domain()).mhz();
  if (p_.launch_path == EventLaunchPath::Cpu) return Cycle(std::llround(p_.cpu_launch_us * mhz));
  return p_.dispatch_cycles + Cycle(std::llround(p_.pcie_round_trip_ns * 1e-3 * mhz));
}

void EventEngine::ring(Entry& e, uint32_t id, Pending p, Cycle now) {
  // The circular queue's next free slot (events may complete out of order).
  uint32_t slot = e.next_slot;
  while (e.slot_event[slot] >= 0) slot = (slot + 1) % e.bell.slots;
  e.next_slot = (slot + 1) % e.bell.slots;
  e.slot_event[slot] = int64_t(p.record);
  ++e.in_flight;
  // The device writes the request data and then the parameter block into GPU
  // memory itself (functionally now; the PCIe time is the launch path's).
  const runtime::EventPayload& pl = p.block.payload;
  if (!pl.bytes.empty()) e.mem->write(pl.dst, pl.bytes.data(), pl.bytes.size());
  const std::vector<uint8_t>& params = p.block.params;
  if (!params.empty())
    e.mem->write(e.bell.submission_queue + uint64_t(slot) * e.bell.param_bytes, params.data(), params.size());
  const uint32_t zero = 0;
  e.mem->write(e.bell.completion_queue + uint64_t(slot) * 4, &zero, 4);
  records_[p.record].rung = now;
  if (dynamic_) dynamic_->event_rung();
  launching_.push_back({now + launch_path_cycles(), id, slot, p.record});
}

void EventEngine::launch(const Launch& l, Cycle now) {
  Entry& e = ekt_[l.doorbell - 1];
  EventRecord& rec = records_[l.record];
  rec.launched = now;
  // The GPU reads the parameter block from the submission queue.
  std::vector<uint8_t> params(e.bell.param_bytes);
  if (!params.empty())
    e.mem->read(e.bell.submission_queue + uint64_t(l.slot) * e.bell.param_bytes, params.data(), params.size());
  std::unique_ptr<sm::KernelInstance> k = e.make(std::move(params));
  k->event = true;
  k->priority = kEventPriority;
  const bool warp_level = p_.scheduling == EventScheduling::Preempt && k->grid.num_tbs() == 1 &&
                          k->needs.warps == 1 && k->needs.shared_bytes == 0;
  if (warp_level) {
    rec.warp_level = true;
    if (!submit_warp(k, l.record)) pending_warps_.emplace_back(std::move(k), l.record);
    return;
  }
  on_dispatcher_.emplace_back(k->id, l.record);
  dispatcher_.enqueue(std::move(k), kEventStreamBase + (l.doorbell - 1) * 65536 + l.slot, e.label, Cycle(0));
}

bool EventEngine::submit_warp(std::unique_ptr<sm::KernelInstance>& k, size_t record) {
  const size_t n = sms_.size();
  sm::Sm* chosen = nullptr;
  for (int pass = 0; pass < 2 && !chosen; ++pass)
    for (size_t i = 0; i < n && !chosen; ++i) {
      sm::Sm* s = sms_[(next_sm_ + i) % n];
      if (s->event_table_has_room() && (pass == 0 ? s->event_fits_free(*k) : s->event_can_preempt(*k))) chosen = s;
    }
  if (!chosen) return false;
  next_sm_ = (chosen->id() + 1) % n;
  records_[record].sm = chosen->id();
  chosen->submit_event_warp(*k);
  in_pewt_.emplace_back(std::move(k), record);
  return true;
}

void EventEngine::event_warp_done(sm::KernelInstance& k, const sm::EventWarpRecord& r) {
  auto it = std::find_if(in_pewt_.begin(), in_pewt_.end(), [&](const auto& p) { return p.first.get() == &k; });
  const size_t record = it->second;
  EventRecord& rec = records_[record];
  rec.warp = r;
  rec.started = r.started;
  if (r.preempted) events_preempting_.add();
  Entry& e = ekt_[rec.doorbell - 1];
  if (k.fault && !e.fault) e.fault = k.fault;
  in_pewt_.erase(it);  // destroys k
  complete(record, r.finished);
}

void EventEngine::kernel_completed(const sm::KernelInstance& k, const KernelRecord& r) {
  if (!k.event) return;
  auto it = std::find_if(on_dispatcher_.begin(), on_dispatcher_.end(), [&](const auto& p) { return p.first == k.id; });
  const size_t record = it->second;
  on_dispatcher_.erase(it);
  records_[record].started = r.first_tb;
  records_[record].sm = 0;
  Entry& e = ekt_[records_[record].doorbell - 1];
  if (k.fault && !e.fault) e.fault = k.fault;
  complete(record, r.finished);
}

void EventEngine::complete(size_t record, Cycle now) {
  EventRecord& rec = records_[record];
  rec.finished = now;
  rec.done = true;
  Entry& e = ekt_[rec.doorbell - 1];
  // The completion flag of its slot; the slot is free for the next request.
  auto slot = std::find(e.slot_event.begin(), e.slot_event.end(), int64_t(record));
  const uint32_t one = 1;
  e.mem->write(e.bell.completion_queue + uint64_t(slot - e.slot_event.begin()) * 4, &one, 4);
  *slot = -1;
  --e.in_flight;
  ++e.completed;
  events_.add();
  event_cycles_.add(rec.latency());
  scheduling_cycles_.add(rec.scheduling_latency());
  wake();
  engine().stop();  // lets the host side see the completion
}

Cycle EventEngine::tick(Cycle now) {
  Cycle next = kNever;
  // Arrivals: the device writes the parameter block and rings, if a slot is free.
  for (size_t id = 1; id <= ekt_.size(); ++id) {
    Entry& e = ekt_[id - 1];
    while (e.used && !e.waiting.empty() && e.waiting.front().arrival <= now && e.in_flight < e.bell.slots) {
      Pending p = std::move(e.waiting.front());
      e.waiting.pop_front();
      ring(e, uint32_t(id), std::move(p), now);
    }
    if (e.used && !e.waiting.empty() && e.in_flight < e.bell.slots) next = std::min(next, e.waiting.front().arrival);
  }
  while (!launching_.empty() && launching_.front().ready <= now) {
    Launch l = launching_.front();
    launching_.pop_front();
    launch(l, now);
  }
  if (!launching_.empty()) next = std::min(next, launching_.front().ready);
  // The pending event-warp queue, oldest first.
  while (!pending_warps_.empty() && submit_warp(pending_warps_.front().first, pending_warps_.front().second))
    pending_warps_.pop_front();
  if (!pending_warps_.empty()) next = std::min(next, now + 1);
  if (dynamic_) resize_reservation(now, next);
  return next;
}

// reserve-dynamic: the reservation is resized every window while events are
// outstanding, and after them until it is back to one SM.
void EventEngine::resize_reservation(Cycle now, Cycle& next) {
  const bool outstanding =
      std::any_of(ekt_.begin(), ekt_.end(), [](const Entry& e) { return e.used && e.completed < e.delivered; });
  if (!outstanding && dynamic_->reserved() == 1) return;
  if (now >= dynamic_->next_update()) {
    reserved_sm_cycles_.add(dynamic_->reserved() * (now - reserved_since_));
    reserved_since_ = now;
    if (dynamic_->update(now)) {
      dispatcher_.set_event_rules(false, dynamic_->mask());
      dispatcher_.wake();
    }
  }
  next = std::min(next, dynamic_->next_update());
}

std::string EventEngine::describe_wait() const {
  std::string s;
  for (const Entry& e : ekt_) {
    if (!e.used || e.completed == e.delivered) continue;
    s += fmt::format("{}doorbell of {}: {} delivered, {} completed, {} in flight, {} waiting at the device",
                     s.empty() ? "" : "\n    ", e.label, e.delivered, e.completed, e.in_flight, e.waiting.size());
  }
  if (!pending_warps_.empty())
    s += fmt::format("{}{} event warps wait for a PEWT entry", s.empty() ? "" : "\n    ", pending_warps_.size());
  return s;
}

}  // namespace gpumux::frontend
