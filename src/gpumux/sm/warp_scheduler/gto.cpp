// Greedy then oldest: keep issuing from the same warp while it is ready, then
// switch to the oldest ready warp.
#include "gpumux/sm/warp_scheduler/warp_scheduler.h"

namespace gpumux::sm {
namespace {

class Gto : public WarpScheduler {
 public:
  int pick(std::span<const WarpView> warps) override {
    int oldest = -1;
    for (size_t i = 0; i < warps.size(); ++i) {
      const WarpView& w = warps[i];
      if (!w.ready) continue;
      if (w.slot == last_ && w.age == last_age_) return int(i);
      if (oldest < 0 || w.age < warps[size_t(oldest)].age) oldest = int(i);
    }
    if (oldest >= 0) {
      last_ = warps[size_t(oldest)].slot;
      last_age_ = warps[size_t(oldest)].age;
    }
    return oldest;
  }
  bool sticky(uint16_t& slot, uint64_t& age) const override {
    if (last_ < 0) return false;
    slot = uint16_t(last_);
    age = last_age_;
    return true;
  }

 private:
  int last_ = -1;       // greedy warp: slot and age (a slot is reused by younger warps)
  uint64_t last_age_ = 0;
};

}  // namespace

std::unique_ptr<WarpScheduler> make_gto(const SmParams&) { return std::make_unique<Gto>(); }

}  // namespace gpumux::sm
