// The Pending Event Warp Table of one SM (event_warps.h): private to the SM
// (sm.cpp, sm_event_warps.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "gpumux/frontend/events/edge_params.h"
#include "gpumux/sm/event_warps.h"

namespace gpumux::sm {

struct EventWarpTable {
  enum class State : uint8_t { Free, Waiting, Quiescing, Saving, Running, Restoring };
  struct Entry {
    State state = State::Free;
    KernelInstance* kernel = nullptr;
    EventWarpRecord rec;
    int32_t victim = -1;  // warp slot
    PreemptWait phase = PreemptWait::Barrier;
    Cycle phase_since = 0;
    Cycle pipeline_done = 0;
    Cycle victim_fetch_seen = 0;  // the victim's fetch_ready changes at each of its issues
    uint32_t ibuffer_left = 0;
    uint32_t lines_unacked = 0;
    bool own_regs = false;       // allocated from the register file (else the victim's, saved)
    bool dropped_loads = false;  // replay on resume
  };
  EdgeParams p;
  EventWarpListener* listener = nullptr;
  std::vector<Entry> entries;
  uint32_t busy = 0;  // entries not Free
};

}  // namespace gpumux::sm
