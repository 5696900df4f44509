// A progress line for long simulations on a terminal: one line on stderr,
// redrawn in place at most every `interval` seconds of host time, e.g.
//   gpumux: 1.843 ms simulated (2075218 core cycles), 12 kernels done, 4096 TBs done, 41s host, 50.6k cycles/s
// and erased when the display ends, so that what follows starts on a clean line.
//
//   std::optional<gpu::ProgressLine> progress;
//   if (isatty(STDERR_FILENO)) progress.emplace(gpu, stderr);
//
// It reads the simulation only (it never changes a run), from the engine's edge
// observer, and looks at the host clock once every thousand edges.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "gpumux/gpu/gpu.h"

namespace gpumux::gpu {

// What the line shows.
struct ProgressSnapshot {
  double simulated_ms = 0;
  Cycle core_cycles = 0;
  uint64_t kernels_done = 0, tbs_done = 0;
  double host_seconds = 0;
};

// The line's text (no carriage return or newline).
std::string format_progress(const ProgressSnapshot& s);

// A host duration, rounded to whole seconds: "59s", "1m30s" (from 90 s),
// "1h30m" (from 90 min, rounded to whole minutes). Carries: never "7m60s".
std::string format_duration(double seconds);

class ProgressLine {
 public:
  ProgressLine(Gpu& gpu, std::FILE* out, double interval_seconds = 0.5);
  ~ProgressLine();  // erases the line if one was drawn
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  ProgressSnapshot snapshot() const;

 private:
  using Clock = std::chrono::steady_clock;
  void poll();

  Gpu& gpu_;
  std::FILE* out_;
  Clock::duration interval_;
  Clock::time_point start_ = Clock::now(), next_draw_;
  bool drawn_ = false;
};

}  // namespace gpumux::gpu
