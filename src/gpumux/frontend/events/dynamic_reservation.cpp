#include "gpumux/frontend/events/dynamic_reservation.h"

#include <algorithm>
#include <cmath>

namespace gpumux::frontend {

DynamicReservation::DynamicReservation(const EdgeParams& p, size_t num_sms, double core_mhz)
    : events_per_sm_(p.events_per_reserved_sm),
      window_(std::max<Cycle>(1, Cycle(std::llround(p.reserve_window_us * core_mhz)))),
      num_sms_(num_sms),
      max_(std::clamp<size_t>(size_t(std::llround(p.reserved_fraction * double(num_sms))), 1, num_sms)),
      next_(window_) {}

bool DynamicReservation::update(Cycle now) {
  // The rate since the last update, as events per window (an idle engine
  // updates late: the whole interval counts).
  const double per_window = double(rung_) * double(window_) / double(std::max<Cycle>(1, now - last_));
  const size_t want = std::clamp<size_t>(size_t(std::ceil(per_window / events_per_sm_)), 1, max_);
  rung_ = 0;
  last_ = now;
  next_ = now + window_;
  const bool changed = want != reserved_;
  reserved_ = want;
  return changed;
}

std::vector<bool> DynamicReservation::mask() const {
  std::vector<bool> m(num_sms_, false);
  for (size_t i = num_sms_ - reserved_; i < num_sms_; ++i) m[i] = true;
  return m;
}

}  // namespace gpumux::frontend
