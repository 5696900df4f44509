// maestro: the dynamic resource partitioning of GPU Maestro (Park et al.,
// ASPLOS'17, section 4.1; docs/maestro.md). With two kernels with TBs left
// (the pair), the SMs have roles, in SM order:
//   SM 0, 1    dedicated: each kernel alone (its isolated CPI, and the
//              spatial CPI), or followers once that CPI is stable
//   SM 2, 3    trial: the trial kernel (the one an empty SM holds fewer TBs
//              of, known at launch) with one TB more / one TB fewer than on
//              the followers; the other kernel fills what is left
//   last 2m    spatial: one kernel alone each, alternating
//   the rest   followers: the best SMK partition so far (q TBs of the trial
//              kernel, the other kernel filling the rest)
// Every epoch (epoch_cycles) the CPI of each group goes to the decision
// (maestro_decision.h): the winning trial SM's partition becomes the
// followers'; when spatial wins, one more SM per kernel becomes spatial (m+1),
// when an SMK group wins, one pair goes back (m-1). The dedicated SMs turn
// into followers when their CPI is stable (the stored CPI stands in for
// them) and are dedicated again on a new pair, a repartition, or every
// rededicate_every epochs. After a change the next epoch starts only once
// every preempted TB has left its SM (polled every 1% of an epoch). The
// follower partition starts as the even split (as smk-even), or as what the
// same two kernels (by label) ended with last time they were paired.
// Needs at least 5 SMs (one follower); with fewer, every SM is a follower
// and nothing is decided. With one kernel, or more than two (the paper's
// 2n-way roles are not implemented), kernels take what fits, as fcfs.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "gpumux/frontend/policies/common.h"
#include "gpumux/frontend/policies/maestro_decision.h"

namespace gpumux::frontend {
namespace {

using maestro::Choice;
using maestro::CpiPair;

enum class Role : uint8_t { DedicatedTrial, DedicatedOther, TrialMore, TrialFewer, SpatialTrial, SpatialOther, Follower };
constexpr size_t kRoles = 7;
constexpr uint32_t kMinSms = 5;

class MaestroPolicy final : public SharingPolicy {
 public:
  explicit MaestroPolicy(const MaestroOptions& o) : o_(o) {
    if (o.epoch_cycles == 0) throw LoadError("sharing policy maestro: epoch_cycles must be positive");
  }

  std::string_view name() const override { return "maestro"; }
  bool has_epochs() const override { return true; }

  void register_stats(StatRegistry& reg) override {
    reg.add("frontend.maestro.epochs", epochs_, "maestro epochs measured (each ends with a decision)");
    reg.add("frontend.maestro.decisions.spatial", spatial_, "epochs whose decision was spatial multitasking");
    reg.add("frontend.maestro.decisions.smk_even", smk_even_,
            "epochs whose decision was SMK with the even split (the trial kernel's smk-even TBs)");
    reg.add("frontend.maestro.decisions.smk_other", smk_other_, "epochs whose decision was SMK with an uneven split");
    reg.add("frontend.maestro.repartitions", repartitions_, "decisions that changed the follower or spatial SMs");
    reg.add("frontend.maestro.settle_cycles", settle_cycles_,
            "cycles between a repartition and the end of its preemptions (no epoch runs meanwhile)");
  }

  void repartition(std::span<const ActiveKernel> active, std::span<sm::Sm* const> sms) override {
    std::vector<ActiveKernel> ks = policy::with_tbs_left(active);
    if (ks.size() != 2 || sms.empty()) {
      end_pair();
      return;
    }
    const SmParams& p = sms.front()->params();
    // The trial kernel: fewer TBs on an empty SM (ties: first in dispatch order).
    if (policy::tbs_per_empty_sm(*ks[1].kernel, p) < policy::tbs_per_empty_sm(*ks[0].kernel, p))
      std::swap(ks[0], ks[1]);
    if (!pair_ || pair_->ids[0] != ks[0].kernel->id || pair_->ids[1] != ks[1].kernel->id) start_pair(ks, p);
    layout(sms);
  }

  uint32_t quota(const sm::KernelInstance& k, uint32_t sm) const override {
    if (!pair_) return kUnlimited;
    size_t which = k.id == pair_->ids[0] ? 0 : k.id == pair_->ids[1] ? 1 : 2;
    if (which == 2 || sm >= roles_.size()) return 0;
    return quotas_[size_t(roles_[sm])][which];
  }

  EpochStep epoch(Cycle now, std::span<const ActiveKernel>, std::span<sm::Sm* const> sms,
                  bool preempting) override {
    if (!pair_ || sms.size() < kMinSms) return {now + o_.epoch_cycles, false};
    if (settling_) {
      if (preempting) {
        Cycle poll = std::max<Cycle>(1, o_.epoch_cycles / 100);
        settle_cycles_.add(poll);
        return {now + poll, false};
      }
      start_epoch(now, sms);
      return {now + o_.epoch_cycles, false};
    }
    std::array<std::array<uint64_t, 2>, kRoles> insts{};
    std::array<uint32_t, kRoles> count{};
    for (size_t i = 0; i < sms.size(); ++i) {
      const sm::SmStats& st = sms[i]->stats();
      Role r = roles_[sms[i]->id()];
      ++count[size_t(r)];
      for (size_t k = 0; k < 2; ++k) insts[size_t(r)][k] += st.warp_insts.at(pair_->keys[k]).value() - marks_[i][k];
    }
    const double cycles = double(now - epoch_start_);
    // Per-SM CPI of each kernel over the SMs of `roles` (+infinity: none issued).
    auto cpi = [&](std::initializer_list<Role> roles) {
      CpiPair c{};
      for (size_t k = 0; k < 2; ++k) {
        uint64_t n = 0, sms_in = 0;
        for (Role r : roles) n += insts[size_t(r)][k], sms_in += count[size_t(r)];
        c[k] = n ? cycles * double(sms_in) / double(n) : std::numeric_limits<double>::infinity();
      }
      return c;
    };
    auto group = [&](Role r) { return count[size_t(r)] ? std::optional<CpiPair>(cpi({r})) : std::nullopt; };
    maestro::EpochCpi e;
    bool now_stable = false;
    if (dedicated_) {
      CpiPair ded = cpi({Role::DedicatedTrial});
      ded[1] = cpi({Role::DedicatedOther})[1];
      e.isolated = stored_ = ded;
      now_stable = previous_ && maestro::stable(*previous_, ded, o_.stable_tolerance);
      previous_ = ded;
    } else {
      e.isolated = stored_;
    }
    // Spatial: measured where a kernel runs alone, else the stored CPI alone stands in.
    e.spatial = stored_;
    if (dedicated_ || spatial_pairs_ > 0) {
      e.spatial->at(0) = cpi({Role::DedicatedTrial, Role::SpatialTrial})[0];
      e.spatial->at(1) = cpi({Role::DedicatedOther, Role::SpatialOther})[1];
    }
    e.followers = group(Role::Follower);
    e.trial_more = group(Role::TrialMore);
    e.trial_fewer = group(Role::TrialFewer);
    maestro::Decision d = maestro::decide(o_.objective, e);
    epochs_.add();
    ++since_dedicated_;
    const uint32_t q = follower_q_, m = spatial_pairs_;
    if (d.choice == Choice::Spatial) {
      if (spatial_pairs_ < max_spatial_pairs(sms.size())) ++spatial_pairs_;
      spatial_.add();
    } else {
      if (d.choice == Choice::TrialMore) ++follower_q_;
      if (d.choice == Choice::TrialFewer) --follower_q_;
      if (spatial_pairs_ > 0) --spatial_pairs_;
      (follower_q_ == pair_->even_q ? smk_even_ : smk_other_).add();
    }
    bool changed = q != follower_q_ || m != spatial_pairs_;
    if (changed) repartitions_.add();
    if (changed || (!dedicated_ && since_dedicated_ >= o_.rededicate_every)) {
      dedicate();
      changed = true;
    } else if (now_stable) {
      dedicated_ = false;  // stable: the dedicated SMs become followers
      changed = true;
    }
    if (!changed) {
      start_epoch(now, sms);
      return {now + o_.epoch_cycles, false};
    }
    settling_ = true;
    return {now + 1, true};
  }

 private:
  struct Pair {
    std::array<uint32_t, 2> ids;
    std::array<StatKey, 2> keys;
    std::array<std::string, 2> labels;
    std::array<policy::Amounts, 2> needs;
    uint32_t even_q = 0;
  };

  // Spatial pairs leave the dedicated, trial and at least one follower SM.
  static uint32_t max_spatial_pairs(size_t sms) { return sms < kMinSms ? 0 : uint32_t((sms - kMinSms) / 2); }

  void dedicate() {
    dedicated_ = true;
    since_dedicated_ = 0;
    previous_.reset();
  }

  void start_pair(const std::vector<ActiveKernel>& ks, const SmParams& p) {
    end_pair();
    Pair n;
    for (size_t k = 0; k < 2; ++k) {
      n.ids[k] = ks[k].kernel->id;
      n.keys[k] = ks[k].kernel->key;
      n.labels[k] = ks[k].kernel->label;
      n.needs[k] = policy::needs(*ks[k].kernel);
    }
    capacity_ = policy::capacity(p);
    policy::Amounts half = capacity_;
    for (uint64_t& v : half) v /= 2;
    n.even_q = uint32_t(policy::tbs_within(half, n.needs[0]).tbs);
    pair_ = n;
    if (!shares_sm(n.even_q)) {
      n.even_q = 1;
      pair_ = n;
      if (!shares_sm(1))
        throw PartitionError(fmt::format("sharing policy maestro: kernels {} and {} cannot share an SM (one TB of each "
                                         "needs more than an SM has: {} and {} of {})",
                                         n.labels[0], n.labels[1], policy::describe(n.needs[0]),
                                         policy::describe(n.needs[1]), policy::describe(capacity_)));
    }
    auto h = history_.find({n.labels[0], n.labels[1]});
    follower_q_ = h != history_.end() && shares_sm(h->second) ? h->second : n.even_q;
    spatial_pairs_ = 0;
    dedicate();
    settling_ = true;
  }

  // Keeps what the followers ended with, for the next time the same kernels are paired.
  void end_pair() {
    if (pair_) history_[{pair_->labels[0], pair_->labels[1]}] = follower_q_;
    pair_.reset();
  }

  // TBs of the other kernel that fit beside q TBs of the trial kernel.
  uint32_t fill(uint32_t q) const {
    policy::Amounts left = capacity_;
    for (size_t r = 0; r < policy::kNumResources; ++r) {
      if (uint64_t(q) * pair_->needs[0][r] > left[r]) return 0;
      left[r] -= uint64_t(q) * pair_->needs[0][r];
    }
    return uint32_t(policy::tbs_within(left, pair_->needs[1]).tbs);
  }
  bool shares_sm(uint32_t q) const { return q >= 1 && fill(q) >= 1; }

  void layout(std::span<sm::Sm* const> sms) {
    uint32_t max_id = 0;
    for (const sm::Sm* s : sms) max_id = std::max(max_id, s->id());
    roles_.assign(size_t(max_id) + 1, Role::Follower);
    const uint32_t q = follower_q_;
    quotas_.fill({q, fill(q)});
    quotas_[size_t(Role::DedicatedTrial)] = quotas_[size_t(Role::SpatialTrial)] = {kUnlimited, 0};
    quotas_[size_t(Role::DedicatedOther)] = quotas_[size_t(Role::SpatialOther)] = {0, kUnlimited};
    if (shares_sm(q + 1)) quotas_[size_t(Role::TrialMore)] = {q + 1, fill(q + 1)};
    if (shares_sm(q - 1)) quotas_[size_t(Role::TrialFewer)] = {q - 1, fill(q - 1)};
    if (sms.size() < kMinSms) return;
    auto set = [&](size_t i, Role r) { roles_[sms[i]->id()] = r; };
    if (dedicated_) set(0, Role::DedicatedTrial), set(1, Role::DedicatedOther);
    if (shares_sm(q + 1)) set(2, Role::TrialMore);
    if (shares_sm(q - 1)) set(3, Role::TrialFewer);
    for (uint32_t j = 0; j < 2 * spatial_pairs_; ++j)
      set(sms.size() - 1 - j, j % 2 ? Role::SpatialOther : Role::SpatialTrial);
  }

  void start_epoch(Cycle now, std::span<sm::Sm* const> sms) {
    settling_ = false;
    epoch_start_ = now;
    marks_.resize(sms.size());
    for (size_t i = 0; i < sms.size(); ++i)
      for (size_t k = 0; k < 2; ++k) marks_[i][k] = sms[i]->stats().warp_insts.at(pair_->keys[k]).value();
  }

  MaestroOptions o_;
  std::optional<Pair> pair_;
  policy::Amounts capacity_{};
  uint32_t follower_q_ = 0, spatial_pairs_ = 0, since_dedicated_ = 0;
  bool dedicated_ = true, settling_ = true;
  std::optional<CpiPair> previous_;  // the dedicated SMs' CPI of the previous epoch
  CpiPair stored_{};                 // their last CPI (stands in for them once they are followers)
  std::vector<Role> roles_;          // by SM id
  std::array<std::array<uint32_t, 2>, kRoles> quotas_{};  // by role: (trial kernel, other kernel)
  Cycle epoch_start_ = 0;
  std::vector<std::array<uint64_t, 2>> marks_;  // per SM: each kernel's warp instructions at the epoch start
  std::map<std::pair<std::string, std::string>, uint32_t> history_;  // follower TBs by (trial, other) label
  Counter epochs_, spatial_, smk_even_, smk_other_, repartitions_, settle_cycles_;
};

}  // namespace

std::unique_ptr<SharingPolicy> make_maestro(const PolicyOptions& o) { return std::make_unique<MaestroPolicy>(o.maestro); }

}  // namespace gpumux::frontend
