// QAWS, QoS-aware warp scheduling (Singh et al., DATE'22, algorithm 1): the
// sub-core's warps form groups by their kernel's warp budget; GTO orders the
// warps inside a group. The prioritized group keeps issue priority while its
// greedy warp runs; each time that warp stalls and another warp of the group
// can issue instead (a context switch inside the group) the group's switch
// count ncs grows, and once ncs has reached the budget the next stall hands
// priority to the next group (ncs reset). A stall with no other ready warp in
// the group is not a switch: the group keeps priority and another group's warp
// issues meanwhile. Equal budgets make one group: plain GTO.
//
// Generalised to N groups (the paper states it for two): groups are ordered
// by budget, highest first, and priority passes cyclically to the next lower
// budget (from the lowest back to the highest). When no warp of the
// prioritized group is ready, the other groups are tried in that cyclic order.
// The first group to get priority is the highest budget present; a group that
// leaves the sub-core hands priority to the highest budget present.
#include <algorithm>
#include <functional>
#include <vector>

#include "gpumux/sm/warp_scheduler/warp_scheduler.h"

namespace gpumux::sm {
namespace {

class Qaws : public WarpScheduler {
 public:
  int pick(std::span<const WarpView> warps) override {
    budgets_.clear();
    for (const WarpView& w : warps)
      if (std::find(budgets_.begin(), budgets_.end(), w.budget) == budgets_.end()) budgets_.push_back(w.budget);
    std::sort(budgets_.begin(), budgets_.end(), std::greater<>());
    if (std::find(budgets_.begin(), budgets_.end(), prio_) == budgets_.end()) {
      prio_ = budgets_.front();
      ncs_ = 0;
    }
    if (greedy_slot_ >= 0 && greedy_budget_ == prio_ && !greedy_ready(warps)) greedy_stalled(warps);

    // The ready warp first in (group rank from the prioritized one, greedy first, oldest).
    size_t n = budgets_.size();
    size_t prio_pos = size_t(std::find(budgets_.begin(), budgets_.end(), prio_) - budgets_.begin());
    int best = -1;
    size_t best_rank = 0;
    for (size_t i = 0; i < warps.size(); ++i) {
      const WarpView& w = warps[i];
      if (!w.ready) continue;
      size_t pos = size_t(std::find(budgets_.begin(), budgets_.end(), w.budget) - budgets_.begin());
      size_t rank = 2 * ((pos + n - prio_pos) % n) + (is_greedy(w) ? 0 : 1);
      if (best < 0 || rank < best_rank || (rank == best_rank && w.age < warps[size_t(best)].age)) {
        best = int(i);
        best_rank = rank;
      }
    }
    if (best >= 0) {
      const WarpView& w = warps[size_t(best)];
      greedy_slot_ = w.slot;
      greedy_age_ = w.age;
      greedy_budget_ = w.budget;
    }
    return best;
  }

  // The greedy warp of the prioritized group, when ready, is pick()'s choice.
  bool sticky(uint16_t& slot, uint64_t& age) const override {
    if (greedy_slot_ < 0 || greedy_budget_ != prio_) return false;
    slot = uint16_t(greedy_slot_);
    age = greedy_age_;
    return true;
  }

  bool wants_kernel_fields() const override { return true; }  // budget

 private:
  bool is_greedy(const WarpView& w) const { return w.slot == greedy_slot_ && w.age == greedy_age_; }

  bool greedy_ready(std::span<const WarpView> warps) const {
    for (const WarpView& w : warps)
      if (is_greedy(w)) return w.ready;
    return false;  // it left the sub-core
  }

  // The prioritized group's greedy warp cannot issue (algorithm 1, lines 13-21).
  void greedy_stalled(std::span<const WarpView> warps) {
    if (ncs_ >= prio_) {
      auto it = std::find(budgets_.begin(), budgets_.end(), prio_);
      prio_ = ++it == budgets_.end() ? budgets_.front() : *it;
      ncs_ = 0;
      return;
    }
    for (const WarpView& w : warps)
      if (w.ready && w.budget == prio_) {
        ++ncs_;  // a context switch inside the group
        return;
      }
  }

  std::vector<uint32_t> budgets_;  // distinct budgets of the resident warps, highest first
  uint32_t prio_ = 0;              // budget of the prioritized group (0: none yet)
  uint32_t ncs_ = 0;               // its context switches since it got priority
  int greedy_slot_ = -1;           // the warp that issued last: slot, age (slots are reused) and budget
  uint64_t greedy_age_ = 0;
  uint32_t greedy_budget_ = 0;
};

}  // namespace

std::unique_ptr<WarpScheduler> make_qaws(const SmParams&) { return std::make_unique<Qaws>(); }

}  // namespace gpumux::sm
