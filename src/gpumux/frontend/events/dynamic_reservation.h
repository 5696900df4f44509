// Reservation that follows the event rate (edge.scheduling = reserve-dynamic;
// the paper's future work, section VII): at the end of every window of
// edge.reserve_window_us, the SMs reserved for event kernels are sized by the
// events rung since the last update, scaled to one window:
// ceil(events / edge.events_per_reserved_sm), at least one SM, at most
// edge.reserved_fraction of them. The reserved SMs are the last ones.
// Background TBs already on an SM that becomes reserved finish there (none
// are placed anew); event TBs on an SM that is released finish there too.
#pragma once

#include <cstddef>
#include <vector>

#include "gpumux/core/clock.h"
#include "gpumux/frontend/events/edge_params.h"

namespace gpumux::frontend {

class DynamicReservation {
 public:
  DynamicReservation(const EdgeParams& p, size_t num_sms, double core_mhz);
  void event_rung() { ++rung_; }
  Cycle next_update() const { return next_; }
  // At or after next_update(): resizes the reservation; true when it changed.
  bool update(Cycle now);
  size_t reserved() const { return reserved_; }
  // Per SM, whether it is reserved for event kernels.
  std::vector<bool> mask() const;

 private:
  double events_per_sm_;
  Cycle window_;
  size_t num_sms_, max_, reserved_ = 1;
  Cycle last_ = 0, next_;
  uint64_t rung_ = 0;  // since last_
};

}  // namespace gpumux::frontend
