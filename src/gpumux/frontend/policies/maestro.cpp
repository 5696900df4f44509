// maestro: the dynamic resource partitioning of GPU Maestro (Park et al.,
// ASPLOS'17, section 4.1; docs/maestro.md). The running kernels (TBs left to
// place or resident) are paired in dispatch order ((1st, 2nd), (3rd, 4th),
// ...; with an odd count the last runs alone); each group gets a contiguous
// range of SMs in proportion to its kernels (two kernels: every SM). Each pair
// measures and decides on its SMs (maestro_pair.h): SM roles, follower
// partition, spatial SMs. This is the paper's way past two kernels (4.2):
// spatial multitasking mixed with 2-way SMK, at most two kernels per SM, so
// 2-way allocation (sm.two_way_pairs) keeps avoiding fragmentation. A kernel
// of a group keeps only its quota on each SM, resident TBs included (keep()):
// a new pair's layout, like each repartition, takes TBs back with the
// preemption mechanism, as the paper's repartitions do; so a kernel launched
// beside one that already filled the GPU in one wave is paired with it.
// All pairs share the epoch clock: every epoch_cycles each pair decides; after
// any change the next epoch starts only once every preempted TB has left its
// SM. The clock is polled every 1% of an epoch, so that a new pair (a kernel
// launched or finished) starts measuring within that much.
// With resume_pairs, a pair whose kernels stop sharing before the epoch ends
// (a program's launch shorter than an epoch) keeps its measurements, and the
// next pair of the same kernels goes on with them.
#include <algorithm>
#include <memory>

#include "gpumux/frontend/policies/common.h"
#include "gpumux/frontend/policies/maestro_pair.h"

namespace gpumux::frontend {
namespace {

// The kernels with TBs left to place or resident, in dispatch order.
std::vector<ActiveKernel> running(std::span<const ActiveKernel> active) {
  std::vector<ActiveKernel> v;
  for (const ActiveKernel& a : active)
    if (a.tbs_left > 0 || a.tbs_running > 0) v.push_back(a);
  return v;
}

// A pair of kernels, or one kernel alone, on SMs [first, first + count) of the span.
struct Group {
  std::optional<maestro::Pair> pair;
  uint32_t lone_id = 0;  // without a pair: the kernel alone on these SMs
  size_t first = 0, count = 0;
};

class MaestroPolicy final : public SharingPolicy {
 public:
  explicit MaestroPolicy(const MaestroOptions& o) : o_(o) {
    if (o.epoch_cycles == 0) throw LoadError("sharing policy maestro: epoch_cycles must be positive");
  }

  std::string_view name() const override { return "maestro"; }
  bool has_epochs() const override { return true; }

  void register_stats(StatRegistry& reg) override {
    reg.add("frontend.maestro.epochs", c_.epochs, "maestro decisions made (one per pair of kernels and epoch)");
    reg.add("frontend.maestro.decisions.spatial", c_.spatial, "decisions for spatial multitasking");
    reg.add("frontend.maestro.decisions.smk_even", c_.smk_even,
            "decisions for SMK with the even split (the trial kernel's smk-even TBs)");
    reg.add("frontend.maestro.decisions.smk_other", c_.smk_other, "decisions for SMK with an uneven split");
    reg.add("frontend.maestro.repartitions", c_.repartitions, "decisions that changed the follower or spatial SMs");
    reg.add("frontend.maestro.role_swaps", c_.role_swaps,
            "trial roles moved to an SM whose TBs already fit them (role_swaps: that SM preempts nothing)");
    reg.add("frontend.maestro.pairs", pairs_, "pairs of kernels partitioned (a new set of running kernels)");
    reg.add("frontend.maestro.resumed", resumed_,
            "pairs that went on from where the last pair of the same kernels stopped (resume_pairs)");
    reg.add("frontend.maestro.epochs_beyond_two", beyond_two_,
            "epochs with more than two running kernels (a pair beside other kernels)");
    reg.add("frontend.maestro.settle_cycles", settle_cycles_,
            "cycles between a repartition and the end of its preemptions (no epoch runs meanwhile)");
  }

  void set_cycle(Cycle now) override { now_ = now; }

  void repartition(std::span<const ActiveKernel> active, std::span<sm::Sm* const> sms) override {
    std::vector<ActiveKernel> ks = running(active);
    if (ks.size() < 2 || sms.empty()) {
      end_groups(sms);
      return;
    }
    if (!same_groups(ks, sms.size())) start_groups(ks, sms);
    uint32_t max_id = 0;
    for (const sm::Sm* s : sms) max_id = std::max(max_id, s->id());
    group_of_.assign(size_t(max_id) + 1, 0);
    for (size_t g = 0; g < groups_.size(); ++g) {
      std::span<sm::Sm* const> mine = sms.subspan(groups_[g].first, groups_[g].count);
      for (const sm::Sm* s : mine) group_of_[s->id()] = uint32_t(g);
      if (groups_[g].pair) groups_[g].pair->layout(mine, c_);
    }
  }

  uint32_t quota(const sm::KernelInstance& k, uint32_t sm) const override {
    if (groups_.empty()) return kUnlimited;
    if (sm >= group_of_.size()) return 0;
    const Group& g = groups_[group_of_[sm]];
    if (!g.pair) return k.id == g.lone_id ? kUnlimited : 0;
    std::optional<size_t> which = g.pair->which(k.id);
    return which ? g.pair->quota(*which, sm) : 0;
  }

  // A kernel of a group keeps only its quota, whether or not it has TBs left
  // to place: its TBs beyond it are taken back when another kernel may place
  // a TB on that SM (the dispatcher asks only then).
  uint32_t keep(const ActiveKernel& k, uint32_t sm) const override {
    return groups_.empty() ? SharingPolicy::keep(k, sm) : quota(*k.kernel, sm);
  }

  EpochStep epoch(Cycle now, std::span<const ActiveKernel>, std::span<sm::Sm* const> sms, bool preempting) override {
    const Cycle poll = std::max<Cycle>(1, o_.epoch_cycles / 100);
    std::vector<Group*> deciding = deciding_groups();
    if (deciding.empty()) return {now + poll, false};
    auto mine = [&](const Group& g) { return sms.subspan(g.first, g.count); };
    if (settling_) {
      if (preempting) {
        settle_cycles_.add(poll);
        return {now + poll, false};
      }
      start_epoch(now, deciding, sms);
      return {std::min(now + poll, epoch_end_), false};
    }
    if (now < epoch_end_) return {std::min(now + poll, epoch_end_), false};
    if (groups_.size() > 1) beyond_two_.add();
    bool changed = false;
    for (Group* g : deciding) changed |= g->pair->decide(now - epoch_start_, mine(*g), c_);
    if (!changed) {
      start_epoch(now, deciding, sms);
      return {std::min(now + poll, epoch_end_), false};
    }
    settling_ = true;
    return {now + 1, true};
  }

 private:
  bool same_groups(const std::vector<ActiveKernel>& ks, size_t sms) const {
    std::vector<size_t> sizes = maestro::group_sms(ks.size(), sms);
    if (sizes.size() != groups_.size()) return false;
    for (size_t g = 0, i = 0; g < groups_.size(); ++g, i += 2) {
      if (groups_[g].count != sizes[g]) return false;
      if (i + 1 == ks.size()) {
        if (groups_[g].pair || groups_[g].lone_id != ks[i].kernel->id) return false;
        continue;
      }
      if (!groups_[g].pair) return false;
      std::array<uint32_t, 2> ids = groups_[g].pair->ids();
      std::array<uint32_t, 2> now{ks[i].kernel->id, ks[i + 1].kernel->id};
      if (!std::is_permutation(ids.begin(), ids.end(), now.begin())) return false;
    }
    return true;
  }

  std::vector<Group*> deciding_groups() {
    std::vector<Group*> v;
    for (Group& g : groups_)
      if (g.pair && g.count >= maestro::Pair::kMinSms) v.push_back(&g);
    return v;
  }

  void start_groups(const std::vector<ActiveKernel>& ks, std::span<sm::Sm* const> sms) {
    end_groups(sms);
    const SmParams& p = sms.front()->params();
    std::vector<size_t> sizes = maestro::group_sms(ks.size(), sms.size());
    size_t first = 0;
    for (size_t g = 0, i = 0; g < sizes.size(); ++g, i += 2) {
      Group& n = groups_.emplace_back();
      n.first = first;
      n.count = sizes[g];
      first += sizes[g];
      if (i + 1 == ks.size()) {
        n.lone_id = ks[i].kernel->id;
        continue;
      }
      n.pair.emplace(std::array<ActiveKernel, 2>{ks[i], ks[i + 1]}, p, o_, history_);
      if (n.pair->resumed()) resumed_.add();
      pairs_.add();
    }
    settling_ = true;
  }

  // Each pair leaves its memory, with the cycles of the epoch it ran (none while settling).
  void end_groups(std::span<sm::Sm* const> sms) {
    for (const Group& g : groups_) {
      if (!g.pair) continue;
      const bool measuring = !settling_ && g.count >= maestro::Pair::kMinSms && now_ > epoch_start_;
      history_[g.pair->labels()] = g.pair->leave(measuring ? now_ - epoch_start_ : 0, sms.subspan(g.first, g.count));
    }
    groups_.clear();
  }

  // An epoch ends when every pair has measured at least epoch_cycles with what it carried.
  void start_epoch(Cycle now, const std::vector<Group*>& deciding, std::span<sm::Sm* const> sms) {
    settling_ = false;
    epoch_start_ = now;
    Cycle carried = o_.epoch_cycles - 1;
    for (Group* g : deciding) {
      g->pair->start_epoch(sms.subspan(g->first, g->count));
      carried = std::min(carried, g->pair->carried_cycles());
    }
    epoch_end_ = now + o_.epoch_cycles - carried;
  }

  MaestroOptions o_;
  std::vector<Group> groups_;
  std::vector<uint32_t> group_of_;  // group index by SM id
  bool settling_ = true;
  Cycle now_ = 0, epoch_start_ = 0, epoch_end_ = 0;
  maestro::History history_;
  maestro::Counters c_;
  Counter pairs_, resumed_, beyond_two_, settle_cycles_;
};

}  // namespace

std::unique_ptr<SharingPolicy> make_maestro(const PolicyOptions& o) { return std::make_unique<MaestroPolicy>(o.maestro); }

}  // namespace gpumux::frontend
