// A timeline of a run in the Chrome / Perfetto trace-event JSON format
// ("JSON Object Format": {"traceEvents": [...], "displayTimeUnit": "ns"}),
// to open in https://ui.perfetto.dev or chrome://tracing.
//
// A track is one row: a thread (e.g. "SM 3", "copy engine H2D") of a process
// (e.g. "GPU", "app 0: sgemm"). Processes get pids 1, 2, ... in order of first
// use and threads tids 1, 2, ... in order of creation (unique over the whole
// trace); "M" metadata events name them and keep rows in creation order
// (process_sort_index, thread_sort_index). Spans are "X" (complete) events
// with ts and dur, instants "i" events with thread scope; times are in
// microseconds (fractions allowed: 1 ps = 1e-6 us). Counters ("C" events)
// belong to a process and are drawn as graphs.
//
//   Timeline t;
//   uint32_t sm0 = t.track("GPU", "SM 0");
//   t.span(sm0, "sgemm TB 4", 1.25, 3.5, {{"app", 0}});
//   t.write("run.trace.json");
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gpumux::stats {

class Timeline {
 public:
  // The track of thread `thread` in process `process`, created on first use;
  // the same pair always gives the same id (0, 1, ... in creation order).
  uint32_t track(const std::string& process, const std::string& thread);
  // A span of `dur_us` from `start_us`. ApiError for an unknown track or a
  // negative or non-finite time. `args` shows in the UI's details pane: an
  // object; null for none; anything else is written as {"value": args}.
  void span(uint32_t track, std::string name, double start_us, double dur_us, nlohmann::json args = {});
  // A point event at `at_us`.
  void instant(uint32_t track, std::string name, double at_us, nlohmann::json args = {});
  // A sample of counter `name` of `process` (a "C" event, drawn as a graph
  // on its own row): `values` maps series names to numbers, e.g.
  // {{"app 0", 12}, {"app 1", 4}}. The process is created if new.
  void counter(const std::string& process, std::string name, double at_us, nlohmann::json values);

  // Simulated time (picoseconds, gpumux::Tick) in the trace's microseconds.
  static double us(uint64_t ticks) { return double(ticks) / 1e6; }

  // Metadata events first (each process, then its threads, in creation order),
  // then spans and instants sorted by time (stable: equal times keep the
  // order they were added in).
  nlohmann::json to_json() const;
  // ApiError naming the file on failure.
  void write(const std::filesystem::path& file) const;
  // Number of spans, instants and counter samples (metadata events not counted).
  size_t size() const { return events_.size(); }
  size_t num_tracks() const { return tracks_.size(); }

 private:
  struct Track {
    uint32_t pid, tid;
    std::string thread;
  };
  enum class Kind : uint8_t { Span, Instant, Counter };
  struct Event {
    uint32_t track;  // Counter: the pid
    Kind kind;
    std::string name;
    double ts, dur;
    nlohmann::json args;
  };
  void check(uint32_t track, double t, const char* what) const;
  uint32_t pid_of(const std::string& process);

  std::vector<std::string> processes_;  // index = pid - 1
  std::vector<Track> tracks_;           // index = track id; tid = id + 1
  std::vector<Event> events_;
};

}  // namespace gpumux::stats
