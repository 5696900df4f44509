// Simulated time. The engine's time is an integer count of picoseconds (Tick);
// each clock domain numbers its own cycles (Cycle). Cycle n of a domain at f kHz
// begins at tick ceil(n * 1e9 / f): edges are exact integers with no drift,
// whatever the ratio between domains.
#pragma once

#include <cstdint>
#include <limits>
#include <numeric>
#include <string>

namespace gpumux {

using Tick = uint64_t;   // picoseconds
using Cycle = uint64_t;  // cycles of one clock domain

inline constexpr Tick kTickMax = std::numeric_limits<Tick>::max();
inline constexpr Cycle kNever = std::numeric_limits<Cycle>::max();

class ClockDomain {
 public:
  // `mhz` is kept to 1 kHz resolution; it must be between 1 kHz and 1 THz.
  ClockDomain(std::string name, double mhz) : name_(std::move(name)), khz_(uint64_t(mhz * 1000.0 + 0.5)) {
    uint64_t g = std::gcd(kPsPerKhzCycle, khz_);
    num_ = kPsPerKhzCycle / g;
    den_ = khz_ / g;
    narrow_limit_ = (std::numeric_limits<uint64_t>::max() - den_) / num_;
    narrow_tick_limit_ = std::numeric_limits<uint64_t>::max() / den_;
  }

  const std::string& name() const { return name_; }
  uint64_t khz() const { return khz_; }
  double mhz() const { return double(khz_) / 1000.0; }

  // Tick at which cycle `c` begins.
  Tick tick_of(Cycle c) const {
    if (c <= narrow_limit_) return (c * num_ + den_ - 1) / den_;
    return Tick((Wide(c) * num_ + den_ - 1) / den_);
  }
  // First cycle beginning at or after `t`.
  Cycle cycle_at_or_after(Tick t) const { return t == 0 ? 0 : cycle_at(t - 1) + 1; }
  // Cycle in progress at `t` (the last one beginning at or before `t`).
  Cycle cycle_at(Tick t) const {
    if (t <= narrow_tick_limit_) return t * den_ / num_;
    return Cycle(Wide(t) * den_ / num_);
  }

 private:
  using Wide = unsigned __int128;
  static constexpr uint64_t kPsPerKhzCycle = 1'000'000'000;  // period in ps = 1e9 / f[kHz]

  std::string name_;
  uint64_t khz_;
  uint64_t num_, den_;  // period = num_ / den_ ps, reduced
  // The largest cycle and tick that 64-bit arithmetic converts (128-bit
  // division is a library call; the limits are computed once).
  uint64_t narrow_limit_, narrow_tick_limit_;
};

}  // namespace gpumux
