#include "gpumux/gpu/progress.h"

#include <cmath>

#include <fmt/format.h>

namespace gpumux::gpu {

namespace {

// Edges between two looks at the host clock: about a millisecond of host time
// at typical simulation speeds, so that the check (tens of nanoseconds) costs
// nothing measurable.
constexpr uint64_t kEdgesPerPoll = 1024;

}  // namespace

std::string format_duration(double seconds) {
  uint64_t s = uint64_t(std::llround(std::max(seconds, 0.0)));
  if (s < 90) return fmt::format("{}s", s);
  if (s < 5400) return fmt::format("{}m{:02}s", s / 60, s % 60);
  uint64_t m = (s + 30) / 60;  // whole minutes, rounded
  return fmt::format("{}h{:02}m", m / 60, m % 60);
}

std::string format_progress(const ProgressSnapshot& s) {
  double rate = s.host_seconds > 0 ? double(s.core_cycles) / s.host_seconds : 0.0;
  std::string rate_text = rate >= 1e6 ? fmt::format("{:.1f}M", rate / 1e6) : fmt::format("{:.1f}k", rate / 1e3);
  return fmt::format("gpumux: {:.3f} ms simulated ({} core cycles), {} kernels done, {} TBs done, {} host, {} "
                     "cycles/s",
                     s.simulated_ms, s.core_cycles, s.kernels_done, s.tbs_done, format_duration(s.host_seconds),
                     rate_text);
}

ProgressLine::ProgressLine(Gpu& gpu, std::FILE* out, double interval_seconds)
    : gpu_(gpu),
      out_(out),
      interval_(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval_seconds))),
      next_draw_(start_ + interval_) {
  gpu_.engine().set_edge_observer([this] { poll(); }, kEdgesPerPoll);
}

ProgressLine::~ProgressLine() {
  gpu_.engine().set_edge_observer(nullptr, 0);
  if (drawn_) {
    std::fputs("\r\033[K", out_);  // back to the line's start, erase it
    std::fflush(out_);
  }
}

ProgressSnapshot ProgressLine::snapshot() const {
  ProgressSnapshot s;
  s.simulated_ms = gpu_.now_ms();
  s.core_cycles = gpu_.core_cycle();
  for (const frontend::KernelRecord& k : gpu_.dispatcher().records()) s.kernels_done += k.done;
  for (uint32_t i = 0; i < gpu_.num_sms(); ++i) s.tbs_done += gpu_.sm(i).stats().tbs_done.total().value();
  s.host_seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  return s;
}

void ProgressLine::poll() {
  Clock::time_point now = Clock::now();
  if (now < next_draw_) return;
  next_draw_ = now + interval_;
  fmt::print(out_, "\r\033[K{}", format_progress(snapshot()));
  std::fflush(out_);
  drawn_ = true;
}

}  // namespace gpumux::gpu
