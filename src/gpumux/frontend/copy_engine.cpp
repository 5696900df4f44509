#include "gpumux/frontend/copy_engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpumux::frontend {

std::string_view to_string(CopyDir d) {
  switch (d) {
    case CopyDir::HostToDevice: return "H2D";
    case CopyDir::DeviceToHost: return "D2H";
    case CopyDir::DeviceToDevice: return "D2D";
  }
  return "?";
}

CopyEngine::CopyEngine(Engine& e, DomainId domain, const PcieParams& p)
    : Component(e, domain, "copy_engine"), p_(p), queues_(std::clamp<uint32_t>(p.copy_engines, 1, 2)) {}

Tick CopyEngine::duration(CopyDir dir, uint64_t bytes) const {
  bool d2d = dir == CopyDir::DeviceToDevice;
  double latency_us = d2d ? p_.d2d_latency_us : p_.latency_us;
  double gbps = d2d ? p_.d2d_bandwidth_gbps : p_.bandwidth_gbps;
  // 1 us = 1e6 ps; at G GB/s a byte takes 1e12 / (G * 1e9) = 1000 / G ps.
  return Tick(std::llround(latency_us * 1e6)) + Tick(std::ceil(double(bytes) * 1000.0 / gbps));
}

uint32_t CopyEngine::engine_of(CopyDir dir) const {
  return queues_.size() > 1 && dir == CopyDir::DeviceToHost ? 1 : 0;
}

bool CopyEngine::idle() const {
  return std::all_of(queues_.begin(), queues_.end(), [](const auto& q) { return q.empty(); });
}

bool CopyEngine::app_idle(uint32_t app) const {
  return app >= pending_per_app_.size() || pending_per_app_[app] == 0;
}

uint64_t CopyEngine::submit(uint32_t app, CopyDir dir, uint64_t bytes) {
  Tick now = engine().clock(domain()).tick_of(engine().wake_cycle(domain()));
  CopyRecord r;
  r.id = records_.size();
  r.app = app;
  r.dir = dir;
  r.bytes = bytes;
  r.submitted = now;
  r.engine = engine_of(dir);
  records_.push_back(r);
  if (pending_per_app_.size() <= app) pending_per_app_.resize(size_t(app) + 1, 0);
  ++pending_per_app_[app];
  std::deque<uint64_t>& q = queues_[r.engine];
  q.push_back(r.id);
  if (q.size() == 1) {
    start(r.id, now);
    wake_at(records_[r.id].finished);
  }
  return r.id;
}

void CopyEngine::start(uint64_t id, Tick at) {
  CopyRecord& r = records_[id];
  r.started = at;
  r.finished = at + duration(r.dir, r.bytes);
}

Cycle CopyEngine::tick(Cycle now) {
  const ClockDomain& clock = engine().clock(domain());
  Tick t = clock.tick_of(now);
  bool completed = false;
  Cycle next = kNever;
  for (std::deque<uint64_t>& q : queues_) {
    while (!q.empty() && records_[q.front()].finished <= t) {
      CopyRecord& r = records_[q.front()];
      r.done = true;
      --pending_per_app_[r.app];
      completed = true;
      Tick end = r.finished;
      q.pop_front();
      if (!q.empty()) start(q.front(), std::max(end, records_[q.front()].submitted));
    }
    if (!q.empty()) next = std::min(next, clock.cycle_at_or_after(records_[q.front()].finished));
  }
  if (completed) {
    engine().note_progress();
    engine().stop();  // lets the host side see the completion
  }
  return next;
}

std::string CopyEngine::describe_wait() const {
  std::string s;
  for (size_t e = 0; e < queues_.size(); ++e) {
    const std::deque<uint64_t>& q = queues_[e];
    if (q.empty()) continue;
    const CopyRecord& r = records_[q.front()];
    s += fmt::format("{}engine {}: copy {} (app {}, {}, {} B) running until tick {}, {} queued behind it",
                     s.empty() ? "" : "\n    ", e, r.id, r.app, to_string(r.dir), r.bytes, r.finished, q.size() - 1);
  }
  return s;
}

}  // namespace gpumux::frontend
