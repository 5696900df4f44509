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

Tick CopyEngine::latency(CopyDir dir) const {
  return Tick(std::llround((dir == CopyDir::DeviceToDevice ? p_.d2d_latency_us : p_.latency_us) * 1e6));  // 1 us = 1e6 ps
}

Tick CopyEngine::transfer(CopyDir dir, uint64_t bytes) const {
  double gbps = dir == CopyDir::DeviceToDevice ? p_.d2d_bandwidth_gbps : p_.bandwidth_gbps;
  // At G GB/s a byte takes 1e12 / (G * 1e9) = 1000 / G ps.
  return Tick(std::ceil(double(bytes) * 1000.0 / gbps));
}

uint32_t CopyEngine::engine_of(CopyDir dir) const {
  return queues_.size() > 1 && dir == CopyDir::DeviceToHost ? 1 : 0;
}

bool CopyEngine::idle() const {
  return std::all_of(queues_.begin(), queues_.end(), [](const Queue& q) { return q.running == kNone; });
}

bool CopyEngine::app_idle(uint32_t app) const {
  return app >= pending_per_app_.size() || pending_per_app_[app] == 0;
}

uint64_t CopyEngine::submit(uint32_t app, CopyDir dir, uint64_t bytes, int priority) {
  Tick now = engine().clock(domain()).tick_of(engine().wake_cycle(domain()));
  CopyRecord r;
  r.id = records_.size();
  r.app = app;
  r.dir = dir;
  r.bytes = bytes;
  r.submitted = now;
  r.engine = engine_of(dir);
  r.priority = priority;
  records_.push_back(r);
  bytes_left_.push_back(bytes);
  if (pending_per_app_.size() <= app) pending_per_app_.resize(size_t(app) + 1, 0);
  ++pending_per_app_[app];
  Queue& q = queues_[r.engine];
  q.waiting.push_back(r.id);
  if (q.running == kNone) {
    start_next(q, now);
    wake_at(q.segment_end);
  }
  return r.id;
}

void CopyEngine::start_next(Queue& q, Tick at) {
  Tick first = kNever;
  for (uint64_t id : q.waiting) first = std::min(first, records_[id].submitted);
  at = std::max(at, first);
  // Copies submitted by `at` compete; `waiting` is not in id order once a chunked copy went back to it.
  auto before = [&](uint64_t a, uint64_t b) {
    const CopyRecord &x = records_[a], &y = records_[b];
    if ((x.submitted <= at) != (y.submitted <= at)) return x.submitted <= at;
    if (ordering_.order == CopyOrder::Priority && x.priority != y.priority) return x.priority > y.priority;
    return a < b;
  };
  auto next = std::min_element(q.waiting.begin(), q.waiting.end(), before);
  const uint64_t id = *next;
  q.waiting.erase(next);
  CopyRecord& r = records_[id];
  const bool begins = bytes_left_[id] == r.bytes;  // nothing moved yet: it pays the latency
  uint64_t segment = ordering_.chunk_bytes ? std::min(ordering_.chunk_bytes, bytes_left_[id]) : bytes_left_[id];
  Tick length = transfer(r.dir, segment);
  if (begins) {
    r.started = at;
    length += latency(r.dir);
  }
  bytes_left_[id] -= segment;
  q.running = id;
  q.segment_end = at + length;
  if (bytes_left_[id] == 0) r.finished = q.segment_end;
}

Cycle CopyEngine::tick(Cycle now) {
  const ClockDomain& clock = engine().clock(domain());
  Tick t = clock.tick_of(now);
  bool completed = false;
  Cycle next = kNever;
  for (Queue& q : queues_) {
    while (q.running != kNone && q.segment_end <= t) {
      const uint64_t id = q.running;
      q.running = kNone;
      if (bytes_left_[id] == 0) {
        records_[id].done = true;
        --pending_per_app_[records_[id].app];
        completed = true;
      } else {
        q.waiting.push_back(id);  // a chunk moved: it competes again
      }
      if (!q.waiting.empty()) start_next(q, q.segment_end);
    }
    if (q.running != kNone) next = std::min(next, clock.cycle_at_or_after(q.segment_end));
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
    const Queue& q = queues_[e];
    if (q.running == kNone) continue;
    const CopyRecord& r = records_[q.running];
    s += fmt::format("{}engine {}: copy {} (app {}, {}, {} B, {} B left) on the link until tick {}, {} queued",
                     s.empty() ? "" : "\n    ", e, r.id, r.app, to_string(r.dir), r.bytes, bytes_left_[r.id],
                     q.segment_end, q.waiting.size());
  }
  return s;
}

}  // namespace gpumux::frontend
