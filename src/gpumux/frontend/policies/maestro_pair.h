// One pair of kernels under the sharing policy "maestro" (maestro.cpp; GPU
// Maestro, Park et al., ASPLOS'17, section 4.1; docs/maestro.md): the SM
// roles on the SMs the pair has, the follower partition, and the decision
// at the end of each epoch. With two kernels the pair has every SM; with
// more, maestro.cpp gives each pair a range of SMs (spatial multitasking
// mixed with pairwise SMK, the paper's 4.2).
//
// On its SMs, in order:
//   SM 0, 1    dedicated: each kernel alone (its isolated CPI, and the
//              spatial CPI), or followers once that CPI is stable
//   SM 2, 3    trial: the trial kernel (the one an empty SM holds fewer TBs
//              of, known at launch) with one TB more / one TB fewer than on
//              the followers; the other kernel fills what is left. With
//              role_swaps, after a repartition a trial role moves to an SM
//              whose TBs already fit it (place_trials), so those SMs
//              preempt nothing
//   last 2m    spatial: one kernel alone each, alternating
//   the rest   followers: the best SMK partition so far (q TBs of the trial
//              kernel, the other kernel filling the rest)
// When its kernels stop sharing (one finishes), the pair
// leaves a Memory; the next pair of the same two kernels (by label: the
// next launches of a program that relaunches its kernels) starts from it.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gpumux/core/stats.h"
#include "gpumux/frontend/policies/common.h"
#include "gpumux/frontend/policies/maestro_decision.h"

namespace gpumux::frontend::maestro {

// Statistics shared by the pairs of one policy (frontend.maestro.*).
struct Counters {
  Counter epochs, spatial, smk_even, smk_other, repartitions, role_swaps;
};

// TBs of the trial kernel and of the other kernel on an SM.
using Quota = std::array<uint32_t, 2>;

// One SM of a pair as the trial roles' placement sees it.
struct SmSlot {
  bool free = false;          // neither dedicated nor spatial in the new layout
  std::optional<Quota> had;   // its quota under the last layout (none: first layout, or no role swaps)
  std::optional<size_t> was;  // the trial role it had (0: one TB more, 1: one TB fewer)
};
// The SMs (indices into `slots`) of the trial roles whose quotas are `want`
// (0: one TB more, 1: one TB fewer; nullopt: the role is unused this
// epoch), the followers' quota being `follower`: GPU Maestro's figure 9,
// "trial and follower SMs can change to minimize the preemption overhead".
// Each role, in turn, takes the first free SM (from SM 2 on, then 0 and 1) that
//   1. had this role and its quota;
//   2. had this role's quota in another role (a swap: it preempts nothing);
//   3. had a trial role and a quota other than the followers' (its TBs
//      change anyway; the trial SMs stay together);
//   4. had a quota other than the followers' (a dedicated or spatial SM);
//   5. any: SM 2 for one TB more and SM 3 for one fewer when free (the
//      layout without history), else the first free.
// `swaps` counts the roles placed by rule 2.
std::array<std::optional<size_t>, 2> place_trials(std::span<const SmSlot> slots,
                                                  const std::array<std::optional<Quota>, 2>& want,
                                                  const Quota& follower, uint32_t& swaps);

// SMs of each group when `kernels` running kernels are grouped in
// dispatch order, two by two (with an odd count the last is alone), on
// `sms` SMs: each kernel's even share of the SMs, summed over its group.
std::vector<size_t> group_sms(size_t kernels, size_t sms);

class Pair {
  enum class Role : uint8_t { DedicatedTrial, DedicatedOther, TrialMore, TrialFewer, SpatialTrial, SpatialOther, Follower };
  static constexpr size_t kRoles = 7;

 public:
  // Warp instructions of each kernel and SMs per role (the layout) over some cycles.
  struct Counts {
    Cycle cycles = 0;
    std::array<std::array<uint64_t, 2>, kRoles> insts{};
    std::array<uint32_t, kRoles> count{};
  };
  // What a pair leaves for the next pair of the same kernels: the followers'
  // split (the paper's history-based prediction) and, for resume_pairs, the
  // rest of its state and the measurements of its unfinished epoch.
  struct Memory {
    uint32_t follower_q = 0, spatial_pairs = 0, since_dedicated = 0;
    bool dedicated = true;
    std::optional<CpiPair> previous;
    CpiPair stored{};
    Counts unfinished;
  };
  // What the last pair of each two kernels left, by (trial, other) label.
  using History = std::map<std::pair<std::string, std::string>, Memory>;

  // The pair needs this many SMs for a decision (one follower); with fewer,
  // every SM is a follower and nothing is decided.
  static constexpr uint32_t kMinSms = 5;

  // `ks`: the two kernels, in dispatch order; `h`: what earlier pairs left.
  // Throws PartitionError when one TB of each cannot share an SM.
  Pair(std::array<ActiveKernel, 2> ks, const SmParams& p, const MaestroOptions& o, const History& h);

  // The kernels' ids, trial kernel first.
  const std::array<uint32_t, 2>& ids() const { return ids_; }
  // (trial, other) kernel labels: the key of the pair's Memory.
  std::pair<std::string, std::string> labels() const { return {labels_[0], labels_[1]}; }
  // Which of the pair `kernel_id` is (0: trial, 1: other), or nullopt.
  std::optional<size_t> which(uint32_t kernel_id) const;
  // TBs of kernel `which` (0 or 1) on SM id `sm`, per the last layout.
  uint32_t quota(size_t which, uint32_t sm) const;

  // Gives the pair's SMs (in order) their roles for the current state;
  // with role_swaps, the trial roles go where the last layout's TBs fit
  // them (place_trials), counted in `c`.
  void layout(std::span<sm::Sm* const> sms, Counters& c);
  // Marks the start of an epoch on the pair's SMs.
  void start_epoch(std::span<sm::Sm* const> sms);
  // Whether the pair went on from an earlier pair of the same kernels (resume_pairs).
  bool resumed() const { return resumed_; }
  // Cycles of the unfinished epoch a resumed pair carries (0: none).
  Cycle carried_cycles() const { return carried_.cycles; }
  // The end of an epoch whose last `cycles` core cycles ran since
  // start_epoch (plus what the pair carried): measures, decides, counts;
  // true when the layout changes (a repartition, or dedicated SMs turning
  // into followers or back).
  bool decide(Cycle cycles, std::span<sm::Sm* const> sms, Counters& c);
  // What the pair leaves when its kernels stop sharing, `cycles` after
  // start_epoch (0: no epoch ran).
  Memory leave(Cycle cycles, std::span<sm::Sm* const> sms) const;

 private:
  // What ran on `sms` since start_epoch, `cycles` of it, plus what was carried.
  Counts measured(Cycle cycles, std::span<sm::Sm* const> sms) const;

  // Spatial pairs leave the dedicated, trial and at least one follower SM.
  static uint32_t max_spatial_pairs(size_t sms) { return sms < kMinSms ? 0 : uint32_t((sms - kMinSms) / 2); }
  // TBs of the other kernel that fit beside q TBs of the trial kernel.
  uint32_t fill(uint32_t q) const;
  bool shares_sm(uint32_t q) const { return q >= 1 && fill(q) >= 1; }
  void dedicate();

  const MaestroOptions& o_;
  std::array<uint32_t, 2> ids_{};
  std::array<StatKey, 2> keys_{};
  std::array<std::string, 2> labels_;
  std::array<policy::Amounts, 2> needs_{};
  policy::Amounts capacity_{};
  uint32_t even_q_ = 0, follower_q_ = 0, spatial_pairs_ = 0, since_dedicated_ = 0;
  bool dedicated_ = true, resumed_ = false;
  std::optional<CpiPair> previous_;  // the dedicated SMs' CPI of the previous epoch
  CpiPair stored_{};                 // their last CPI (stands in for them once they are followers)
  std::vector<Role> roles_;          // by SM id
  std::array<Quota, kRoles> quotas_{};  // by role
  std::vector<std::array<uint64_t, 2>> marks_;  // per SM: each kernel's warp instructions at the epoch start
  Counts carried_;  // the unfinished epoch of the pair this one resumes
};

using History = Pair::History;

}  // namespace gpumux::frontend::maestro
