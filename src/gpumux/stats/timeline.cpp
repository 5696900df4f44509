#include "gpumux/stats/timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <numeric>

#include "gpumux/core/error.h"

namespace gpumux::stats {

uint32_t Timeline::pid_of(const std::string& process) {
  auto p = std::find(processes_.begin(), processes_.end(), process);
  if (p == processes_.end()) {
    processes_.push_back(process);
    return uint32_t(processes_.size());
  }
  return uint32_t(p - processes_.begin()) + 1;
}

uint32_t Timeline::track(const std::string& process, const std::string& thread) {
  uint32_t pid = pid_of(process);
  for (size_t i = 0; i < tracks_.size(); ++i)
    if (tracks_[i].pid == pid && tracks_[i].thread == thread) return uint32_t(i);
  tracks_.push_back(Track{pid, uint32_t(tracks_.size()) + 1, thread});
  return uint32_t(tracks_.size() - 1);
}

void Timeline::check(uint32_t track, double t, const char* what) const {
  if (track >= tracks_.size())
    throw ApiError(fmt::format("timeline: unknown track {} ({} tracks)", track, tracks_.size()));
  if (!std::isfinite(t) || t < 0) throw ApiError(fmt::format("timeline: {} {} is not a time >= 0", what, t));
}

void Timeline::span(uint32_t track, std::string name, double start_us, double dur_us, nlohmann::json args) {
  check(track, start_us, "span start");
  check(track, dur_us, "span duration");
  events_.push_back(Event{track, Kind::Span, std::move(name), start_us, dur_us, std::move(args)});
}

void Timeline::instant(uint32_t track, std::string name, double at_us, nlohmann::json args) {
  check(track, at_us, "instant time");
  events_.push_back(Event{track, Kind::Instant, std::move(name), at_us, 0, std::move(args)});
}

void Timeline::counter(const std::string& process, std::string name, double at_us, nlohmann::json values) {
  if (!std::isfinite(at_us) || at_us < 0)
    throw ApiError(fmt::format("timeline: counter time {} is not a time >= 0", at_us));
  if (!values.is_object() || values.empty())
    throw ApiError(fmt::format("timeline: counter '{}': values must be an object of numbers", name));
  for (const auto& [k, v] : values.items())
    if (!v.is_number())
      throw ApiError(fmt::format("timeline: counter '{}': value of '{}' is not a number", name, k));
  events_.push_back(Event{pid_of(process), Kind::Counter, std::move(name), at_us, 0, std::move(values)});
}

nlohmann::json Timeline::to_json() const {
  nlohmann::json events = nlohmann::json::array();
  auto meta = [&](const char* name, uint32_t pid, const uint32_t* tid, nlohmann::json args) {
    nlohmann::json e = {{"name", name}, {"ph", "M"}, {"pid", pid}};
    if (tid) e["tid"] = *tid;
    e["args"] = std::move(args);
    events.push_back(std::move(e));
  };
  for (size_t p = 0; p < processes_.size(); ++p) {
    uint32_t pid = uint32_t(p) + 1;
    meta("process_name", pid, nullptr, {{"name", processes_[p]}});
    meta("process_sort_index", pid, nullptr, {{"sort_index", pid}});
    for (const Track& t : tracks_) {
      if (t.pid != pid) continue;
      meta("thread_name", pid, &t.tid, {{"name", t.thread}});
      meta("thread_sort_index", pid, &t.tid, {{"sort_index", t.tid}});
    }
  }
  std::vector<size_t> order(events_.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return events_[a].ts < events_[b].ts; });
  for (size_t i : order) {
    const Event& ev = events_[i];
    if (ev.kind == Kind::Counter) {
      events.push_back({{"name", ev.name}, {"ph", "C"}, {"ts", ev.ts}, {"pid", ev.track}, {"args", ev.args}});
      continue;
    }
    const Track& t = tracks_[ev.track];
    bool is_instant = ev.kind == Kind::Instant;
    nlohmann::json e = {{"name", ev.name}, {"ph", is_instant ? "i" : "X"}, {"ts", ev.ts}, {"pid", t.pid}, {"tid", t.tid}};
    if (is_instant)
      e["s"] = "t";  // thread-scoped instant: drawn on its own row
    else
      e["dur"] = ev.dur;
    if (ev.args.is_object())
      e["args"] = ev.args;
    else if (!ev.args.is_null())
      e["args"] = {{"value", ev.args}};  // the viewers expect an object
    events.push_back(std::move(e));
  }
  return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}};
}

void Timeline::write(const std::filesystem::path& file) const {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (out) out << to_json().dump() << '\n';
  if (out) out.flush();
  if (!out) throw ApiError(fmt::format("cannot write timeline '{}': {}", file.string(), std::strerror(errno)));
}

}  // namespace gpumux::stats
