// warped-slicer: intra-SM slicing from each kernel's scaling curve (Xu et
// al., ISCA'16; GPU Maestro's WS baseline, ASPLOS'17 5.4; docs/maestro.md).
// When the kernels with TBs left change and two or more share the GPU, a
// profile phase of profile_cycles runs: the SMs are split evenly among the
// kernels, and each of a kernel's SMs runs it alone with a different TB
// count (warped_slicer_split.h, profile_counts). Its warp instructions per
// cycle there give its scaling curve; then every SM takes the split with the
// best combined normalised performance. A kernel's curve is kept by label:
// kernels whose curves are all known (a later launch of the same kernels)
// are split at once, without profiling. With one kernel, or more kernels
// than SMs, kernels take what fits, as fcfs.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "gpumux/frontend/policies/common.h"
#include "gpumux/frontend/policies/warped_slicer_split.h"

namespace gpumux::frontend {
namespace {

class WarpedSlicerPolicy final : public SharingPolicy {
 public:
  explicit WarpedSlicerPolicy(const WarpedSlicerOptions& o) : o_(o) {
    if (o.profile_cycles == 0) throw LoadError("sharing policy warped-slicer: profile_cycles must be positive");
  }

  std::string_view name() const override { return "warped-slicer"; }
  bool has_epochs() const override { return true; }

  void register_stats(StatRegistry& reg) override {
    reg.add("frontend.warped_slicer.profiles", profiles_, "profile phases measured (each followed by a split)");
    reg.add("frontend.warped_slicer.reused", reused_, "kernel sets split from stored curves, without profiling");
  }

  void repartition(std::span<const ActiveKernel> active, std::span<sm::Sm* const> sms) override {
    std::vector<ActiveKernel> ks = policy::with_tbs_left(active);
    std::vector<uint32_t> ids;
    for (const ActiveKernel& a : ks) ids.push_back(a.kernel->id);
    if (ids == ids_) return;  // the same kernels: the phase or split stands
    ids_ = ids;
    kernels_.clear();
    tbs_.clear();
    profile_.clear();
    profiling_ = started_ = false;
    if (ks.size() < 2 || sms.size() < ks.size()) return;
    const SmParams& p = sms.front()->params();
    capacity_ = policy::capacity(p);
    for (const ActiveKernel& a : ks)
      kernels_.push_back({a.kernel->id, a.kernel->key, a.kernel->label, policy::needs(*a.kernel),
                          policy::tbs_per_empty_sm(*a.kernel, p)});
    std::vector<warped_slicer::Curve> curves;
    for (const Kernel& k : kernels_)
      if (auto c = curves_.find(k.label); c != curves_.end() && c->second.size() == size_t(k.max_tbs) + 1)
        curves.push_back(c->second);
    if (curves.size() == kernels_.size()) {
      reused_.add();
      return split(curves);
    }
    // Profile: kernel i alone on its SMs, one TB count each.
    profiling_ = true;
    std::vector<uint32_t> per_kernel = policy::split_evenly(uint32_t(sms.size()), kernels_.size());
    size_t next = 0;
    for (size_t i = 0; i < kernels_.size(); ++i)
      for (uint32_t tbs : warped_slicer::profile_counts(per_kernel[i], kernels_[i].max_tbs))
        profile_.push_back({sms[next++]->id(), i, tbs, 0});
  }

  uint32_t quota(const sm::KernelInstance& k, uint32_t sm) const override {
    if (kernels_.empty()) return kUnlimited;
    auto it = std::find_if(kernels_.begin(), kernels_.end(), [&](const Kernel& x) { return x.id == k.id; });
    if (it == kernels_.end()) return 0;
    const size_t i = size_t(it - kernels_.begin());
    if (!profiling_) return tbs_[i];
    for (const ProfileSm& s : profile_)
      if (s.sm == sm) return s.kernel == i ? s.tbs : 0;
    return 0;
  }

  EpochStep epoch(Cycle now, std::span<const ActiveKernel>, std::span<sm::Sm* const> sms, bool) override {
    // Polled while no profile runs, so that a phase starts soon after its kernels do.
    const Cycle poll = std::max<Cycle>(1, o_.profile_cycles / 10);
    if (!profiling_) return {now + poll, false};
    if (!started_) {
      started_ = true;
      start_ = now;
      for (ProfileSm& s : profile_) s.mark = insts(sms, s);
      return {now + o_.profile_cycles, false};
    }
    std::vector<std::vector<std::pair<uint32_t, double>>> samples(kernels_.size());
    for (const ProfileSm& s : profile_)
      samples[s.kernel].push_back({s.tbs, double(insts(sms, s) - s.mark) / double(now - start_)});
    std::vector<warped_slicer::Curve> curves;
    for (size_t i = 0; i < kernels_.size(); ++i) {
      curves.push_back(warped_slicer::interpolate(samples[i], kernels_[i].max_tbs));
      curves_[kernels_[i].label] = curves.back();
    }
    profiles_.add();
    profiling_ = false;
    split(curves);
    return {now + poll, true};
  }

 private:
  struct Kernel {
    uint32_t id;
    StatKey key;
    std::string label;
    policy::Amounts needs;
    uint32_t max_tbs;
  };
  struct ProfileSm {
    uint32_t sm;
    size_t kernel;  // index into kernels_
    uint32_t tbs;
    uint64_t mark;  // the kernel's warp instructions on the SM at the phase start
  };

  uint64_t insts(std::span<sm::Sm* const> sms, const ProfileSm& s) const {
    for (const sm::Sm* x : sms)
      if (x->id() == s.sm) return x->stats().warp_insts.at(kernels_[s.kernel].key).value();
    return 0;
  }

  void split(std::span<const warped_slicer::Curve> curves) {
    auto fits = [&](std::span<const uint32_t> tbs) {
      for (size_t r = 0; r < policy::kNumResources; ++r) {
        uint64_t used = 0;
        for (size_t i = 0; i < tbs.size(); ++i) used += uint64_t(tbs[i]) * kernels_[i].needs[r];
        if (used > capacity_[r]) return false;
      }
      return true;
    };
    warped_slicer::Split s = warped_slicer::best_split(curves, fits);
    if (s.tbs.empty()) {
      std::string names;
      for (const Kernel& k : kernels_) names += fmt::format("{}{}", names.empty() ? "" : ", ", k.label);
      throw PartitionError(fmt::format(
          "sharing policy warped-slicer: kernels {} cannot share an SM (one TB of each needs more than an SM has: {})",
          names, policy::describe(capacity_)));
    }
    tbs_ = s.tbs;
  }

  WarpedSlicerOptions o_;
  std::vector<uint32_t> ids_;  // the kernels with TBs left, in dispatch order
  std::vector<Kernel> kernels_;
  policy::Amounts capacity_{};
  bool profiling_ = false, started_ = false;
  Cycle start_ = 0;
  std::vector<ProfileSm> profile_;
  std::vector<uint32_t> tbs_;  // the split: TBs per SM of each kernel
  std::map<std::string, warped_slicer::Curve> curves_;  // measured, by kernel label
  Counter profiles_, reused_;
};

}  // namespace

std::unique_ptr<SharingPolicy> make_warped_slicer(const PolicyOptions& o) {
  return std::make_unique<WarpedSlicerPolicy>(o.warped_slicer);
}

}  // namespace gpumux::frontend
