// Two-level scheduling: a small active set of warps is scheduled round robin;
// a warp that waits for memory or a barrier leaves the set and the oldest
// pending warp that does not wait takes its place.
#include <algorithm>
#include <vector>

#include "gpumux/sm/warp_scheduler/warp_scheduler.h"

namespace gpumux::sm {
namespace {

class TwoLevel : public WarpScheduler {
 public:
  explicit TwoLevel(uint32_t active) : capacity_(active) { active_.reserve(active); }

  int pick(std::span<const WarpView> warps) override {
    auto find = [&](uint64_t age) {
      for (size_t i = 0; i < warps.size(); ++i)
        if (warps[i].age == age) return int(i);
      return -1;
    };
    // Demote warps that left or wait long; promote the oldest others (warps are oldest first).
    std::erase_if(active_, [&](uint64_t age) {
      int i = find(age);
      return i < 0 || warps[size_t(i)].long_wait;
    });
    for (size_t i = 0; i < warps.size() && active_.size() < capacity_; ++i)
      if (!warps[i].long_wait && std::find(active_.begin(), active_.end(), warps[i].age) == active_.end())
        active_.push_back(warps[i].age);
    // Round robin in the active set, starting after the warp that issued last.
    size_t n = active_.size();
    for (size_t k = 0; k < n; ++k) {
      size_t pos = (next_ + k) % n;
      int i = find(active_[pos]);
      if (i >= 0 && warps[size_t(i)].ready) {
        next_ = pos + 1;
        return i;
      }
    }
    return -1;
  }

 private:
  size_t capacity_;
  size_t next_ = 0;
  std::vector<uint64_t> active_;  // ages (unique per warp) of the active set
};

}  // namespace

std::unique_ptr<WarpScheduler> make_two_level(const SmParams& p) {
  return std::make_unique<TwoLevel>(p.two_level_active);
}

}  // namespace gpumux::sm
