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
//              the followers; the other kernel fills what is left
//   last 2m    spatial: one kernel alone each, alternating
//   the rest   followers: the best SMK partition so far (q TBs of the trial
//              kernel, the other kernel filling the rest)
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
  Counter epochs, spatial, smk_even, smk_other, repartitions;
};

// What the followers ended with, by (trial, other) kernel label: the
// history-based prediction of the next time the same kernels are paired.
using History = std::map<std::pair<std::string, std::string>, uint32_t>;

// SMs of each group when `kernels` kernels with TBs left are grouped in
// dispatch order, two by two (with an odd count the last is alone), on
// `sms` SMs: each kernel's even share of the SMs, summed over its group.
std::vector<size_t> group_sms(size_t kernels, size_t sms);

class Pair {
 public:
  // The pair needs this many SMs for a decision (one follower); with fewer,
  // every SM is a follower and nothing is decided.
  static constexpr uint32_t kMinSms = 5;

  // `ks`: the two kernels, in dispatch order. Throws PartitionError when
  // one TB of each cannot share an SM.
  Pair(std::array<ActiveKernel, 2> ks, const SmParams& p, const MaestroOptions& o, const History& h);

  // The kernels' ids, trial kernel first.
  const std::array<uint32_t, 2>& ids() const { return ids_; }
  // Which of the pair `kernel_id` is (0: trial, 1: other), or nullopt.
  std::optional<size_t> which(uint32_t kernel_id) const;
  // TBs of kernel `which` (0 or 1) on SM id `sm`, per the last layout.
  uint32_t quota(size_t which, uint32_t sm) const;

  // Gives the pair's SMs (in order) their roles for the current state.
  void layout(std::span<sm::Sm* const> sms);
  // Marks the start of an epoch on the pair's SMs.
  void start_epoch(std::span<sm::Sm* const> sms);
  // The end of an epoch of `cycles` core cycles: measures, decides, counts;
  // true when the layout changes (a repartition, or dedicated SMs turning
  // into followers or back).
  bool decide(double cycles, std::span<sm::Sm* const> sms, Counters& c);
  // Stores the followers' partition for the next time these kernels pair.
  void remember(History& h) const;

 private:
  enum class Role : uint8_t { DedicatedTrial, DedicatedOther, TrialMore, TrialFewer, SpatialTrial, SpatialOther, Follower };
  static constexpr size_t kRoles = 7;

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
  bool dedicated_ = true;
  std::optional<CpiPair> previous_;  // the dedicated SMs' CPI of the previous epoch
  CpiPair stored_{};                 // their last CPI (stands in for them once they are followers)
  std::vector<Role> roles_;          // by SM id
  std::array<std::array<uint32_t, 2>, kRoles> quotas_{};  // by role: (trial kernel, other kernel)
  std::vector<std::array<uint64_t, 2>> marks_;  // per SM: each kernel's warp instructions at the epoch start
};

}  // namespace gpumux::frontend::maestro
