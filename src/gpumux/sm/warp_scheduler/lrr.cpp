// Loose round robin: the first ready warp after the one that issued last, in
// slot order, so every ready warp gets its turn.
#include "gpumux/sm/warp_scheduler/warp_scheduler.h"

namespace gpumux::sm {
namespace {

class Lrr : public WarpScheduler {
 public:
  int pick(std::span<const WarpView> warps) override {
    int first = -1, after = -1;
    for (size_t i = 0; i < warps.size(); ++i) {
      const WarpView& w = warps[i];
      if (!w.ready) continue;
      if (first < 0 || w.slot < warps[size_t(first)].slot) first = int(i);
      if (w.slot > last_ && (after < 0 || w.slot < warps[size_t(after)].slot)) after = int(i);
    }
    int chosen = after >= 0 ? after : first;
    if (chosen >= 0) last_ = warps[size_t(chosen)].slot;
    return chosen;
  }

 private:
  int last_ = -1;  // slot that issued last
};

}  // namespace

std::unique_ptr<WarpScheduler> make_lrr(const SmParams&) { return std::make_unique<Lrr>(); }

}  // namespace gpumux::sm
