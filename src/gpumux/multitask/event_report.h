// What a run's event kernels did (docs/edge.md): their records in the run's
// JSON, a summary line, and timeline tracks of event warps and their victims.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpumux/frontend/events/event_engine.h"
#include "gpumux/stats/timeline.h"

namespace gpumux::multitask {

nlohmann::json events_json(const std::vector<frontend::EventRecord>& events);
// Empty without events.
std::string events_summary(const std::vector<frontend::EventRecord>& events);
// Per SM: an "events" track with each event warp's run (and its wait for a
// victim), a "victims" track with each preempted warp's time off the SM.
void add_event_tracks(stats::Timeline& t, const std::vector<frontend::EventRecord>& events, double core_mhz);

}  // namespace gpumux::multitask
