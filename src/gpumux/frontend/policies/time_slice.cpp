// time-slice: the GPU's default sharing between processes without MPS.
// Contexts (applications) take turns on the whole GPU: during a turn only the
// holder's kernels place TBs, and every other context's resident TBs are
// taken back with the policy's preemption mechanism (context switch by
// default, so the cost is the state saved and restored). Turns end on a grid
// of `timeslice_us` from the first kernel's activation; at each boundary the
// GPU goes to the context with the highest priority (its most urgent kernel:
// process priority plus stream priority), among equals to the one whose last
// turn is oldest, so equal contexts rotate and a more urgent one runs first.
// A holder with no active kernel gives the GPU up at once (the rest of the
// slice goes to the next context), as the hardware runlist moves past an
// idle channel.
#include <algorithm>
#include <cmath>
#include <map>

#include "gpumux/frontend/sharing_policy.h"

namespace gpumux::frontend {
namespace {

class TimeSlicePolicy final : public SharingPolicy {
 public:
  explicit TimeSlicePolicy(double timeslice_us) : timeslice_us_(timeslice_us) {}
  std::string_view name() const override { return "time-slice"; }

  void repartition(std::span<const ActiveKernel> active, std::span<sm::Sm* const>) override {
    if (active.empty()) series_start_ = true;  // the dispatcher's epochs restart with the next kernel
    else if (!has_work(active, holder_)) give_turn(pick(active));
  }
  uint32_t quota(const sm::KernelInstance& k, uint32_t) const override { return k.app == holder_ ? kUnlimited : 0; }
  // Another context's TBs go even when they have nothing left to place: the
  // GPU belongs to one context at a time.
  uint32_t keep(const ActiveKernel& k, uint32_t) const override { return k.kernel->app == holder_ ? kUnlimited : 0; }

  bool has_epochs() const override { return true; }
  EpochStep epoch(Cycle now, std::span<const ActiveKernel> active, std::span<sm::Sm* const>, bool) override {
    EpochStep step{now + slice_cycles_, false};
    if (series_start_) {  // the first kernel's activation: the first turn began with it
      series_start_ = false;
      return step;
    }
    uint32_t next = pick(active);
    if (next != holder_) {
      give_turn(next);
      boundary_switches_.add();
      step.repartition = true;
    }
    return step;
  }
  void set_core_clock(double core_mhz) override {
    slice_cycles_ = std::max<Cycle>(1, Cycle(std::llround(timeslice_us_ * core_mhz)));
  }
  void register_stats(StatRegistry& reg) override {
    reg.add("frontend.time_slice.turns", turns_, "turns on the GPU given to a context (application)");
    reg.add("frontend.time_slice.boundary_switches", boundary_switches_,
            "timeslice ends at which the GPU went to another context (the holder's TBs switched out)");
  }

 private:
  static constexpr uint32_t kNone = ~0u;

  static bool has_work(std::span<const ActiveKernel> active, uint32_t app) {
    return std::any_of(active.begin(), active.end(), [&](const ActiveKernel& a) { return a.kernel->app == app; });
  }
  // The most urgent context with an active kernel; among equals, the one
  // whose last turn is oldest (never: oldest of all), then the lowest id.
  uint32_t pick(std::span<const ActiveKernel> active) const {
    std::map<uint32_t, int> urgency;  // by app
    for (const ActiveKernel& a : active) {
      auto [it, fresh] = urgency.try_emplace(a.kernel->app, a.kernel->priority);
      if (!fresh) it->second = std::max(it->second, a.kernel->priority);
    }
    uint32_t best = kNone;
    for (const auto& [app, prio] : urgency) {
      if (best == kNone || prio > urgency[best] || (prio == urgency[best] && last_turn(app) < last_turn(best)))
        best = app;
    }
    return best;
  }
  uint64_t last_turn(uint32_t app) const {
    auto it = last_turn_.find(app);
    return it == last_turn_.end() ? 0 : it->second;
  }
  void give_turn(uint32_t app) {
    holder_ = app;
    last_turn_[app] = ++turn_seq_;
    turns_.add();
  }

  double timeslice_us_;
  Cycle slice_cycles_ = 1;
  bool series_start_ = true;
  uint32_t holder_ = kNone;
  uint64_t turn_seq_ = 0;
  std::map<uint32_t, uint64_t> last_turn_;  // app -> sequence number of its last turn
  Counter turns_, boundary_switches_;
};

}  // namespace

std::unique_ptr<SharingPolicy> make_time_slice(const PolicyOptions& o) {
  return std::make_unique<TimeSlicePolicy>(o.timeslice_us);
}

}  // namespace gpumux::frontend
