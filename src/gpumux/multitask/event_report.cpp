#include "gpumux/multitask/event_report.h"

#include <algorithm>

#include <fmt/format.h>

namespace gpumux::multitask {

nlohmann::json events_json(const std::vector<frontend::EventRecord>& events) {
  using nlohmann::json;
  json out = json::array();
  for (const frontend::EventRecord& e : events) {
    json waits = json::object();
    for (unsigned w = 0; w < sm::kNumPreemptWaits; ++w)
      waits[sm::preempt_wait_name(sm::PreemptWait(w))] = e.warp.waits[w];
    out.push_back({{"app", e.app}, {"label", e.label}, {"doorbell", e.doorbell}, {"index", e.index},
                   {"done", e.done}, {"arrival", e.arrival}, {"rung", e.rung}, {"launched", e.launched},
                   {"started", e.started}, {"finished", e.finished}, {"sm", e.sm}, {"warp_level", e.warp_level},
                   {"preempted", e.warp.preempted}, {"saved_registers", e.warp.saved_registers},
                   {"victim", e.warp.victim}, {"launch_latency", e.done ? e.launch_latency() : 0},
                   {"scheduling_latency", e.done ? e.scheduling_latency() : 0},
                   {"preemption_latency", e.warp.preemption_latency()}, {"preemption_waits", waits},
                   {"latency", e.done ? e.latency() : 0}});
  }
  return out;
}

std::string events_summary(const std::vector<frontend::EventRecord>& events) {
  if (events.empty()) return "";
  uint64_t done = 0, preempting = 0;
  Cycle latency = 0, sched = 0, worst_sched = 0, preempt = 0;
  for (const frontend::EventRecord& e : events) {
    if (!e.done) continue;
    ++done;
    latency += e.latency();
    sched += e.scheduling_latency();
    worst_sched = std::max(worst_sched, e.scheduling_latency());
    if (e.warp.preempted) {
      ++preempting;
      preempt += e.warp.preemption_latency();
    }
  }
  auto mean = [](Cycle sum, uint64_t n) { return n ? double(sum) / double(n) : 0.0; };
  return fmt::format("events: {} of {} completed, latency mean {:.0f} cycles, scheduling latency mean {:.0f} max {}; "
                     "{} preempted a warp (preemption latency mean {:.0f} cycles)\n",
                     done, events.size(), mean(latency, done), mean(sched, done), worst_sched, preempting,
                     mean(preempt, preempting));
}

void add_event_tracks(stats::Timeline& t, const std::vector<frontend::EventRecord>& events, double mhz) {
  for (const frontend::EventRecord& e : events) {
    if (!e.done) continue;
    uint32_t track = t.track("GPU", fmt::format("SM {:>3} events", e.sm));
    nlohmann::json args = {{"app", e.app}, {"event", e.index}, {"arrival_us", double(e.arrival) / mhz},
                           {"launch_latency", e.launch_latency()}, {"scheduling_latency", e.scheduling_latency()}};
    if (e.warp.preempted) {
      args["victim"] = e.warp.victim;
      args["preemption_latency"] = e.warp.preemption_latency();
      t.span(track, "waits for victim", double(e.warp.submitted) / mhz, double(e.started - e.warp.submitted) / mhz,
             {{"victim", e.warp.victim}});
      uint32_t victims = t.track("GPU", fmt::format("SM {:>3} victims", e.sm));
      t.span(victims, "preempted: " + e.warp.victim, double(e.warp.submitted) / mhz,
             double(e.finished - e.warp.submitted) / mhz, {{"event", e.label}, {"saved_registers", e.warp.saved_registers}});
    }
    t.span(track, e.label, double(e.started) / mhz, double(e.finished - e.started) / mhz, args);
  }
}

}  // namespace gpumux::multitask
