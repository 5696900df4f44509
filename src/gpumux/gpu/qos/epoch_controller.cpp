#include "gpumux/gpu/qos/epoch_controller.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "gpumux/core/error.h"

namespace gpumux::gpu {

uint64_t KernelEpoch::total_thread_insts() const {
  return std::accumulate(thread_insts.begin(), thread_insts.end(), uint64_t(0));
}

int64_t KernelEpoch::total_quota_left() const {
  return std::accumulate(quota_left.begin(), quota_left.end(), int64_t(0));
}

uint32_t KernelEpoch::total_tbs() const { return std::accumulate(tbs.begin(), tbs.end(), uint32_t(0)); }

EpochController::EpochController(Engine& engine, DomainId core, Cycle epoch_cycles, std::vector<sm::Sm*> sms,
                                 frontend::TbDispatcher& dispatcher, std::unique_ptr<QosManager> manager,
                                 std::unique_ptr<TbAdjustment> adjustment)
    : Component(engine, core, "epoch-controller"),
      epoch_cycles_(epoch_cycles),
      sms_(std::move(sms)),
      dispatcher_(dispatcher),
      manager_(std::move(manager)),
      adjustment_(std::move(adjustment)),
      warp_marks_(sms_.size()),
      thread_marks_(sms_.size()) {
  if (manager_->elastic()) look_every_ = std::max<Cycle>(1, epoch_cycles_ / kElasticPolls);
  if (adjustment_)
    look_every_ = std::min(look_every_, std::max<Cycle>(1, epoch_cycles_ / adjustment_->samples_per_epoch()));
}

Cycle EpochController::next_look(Cycle now) const {
  return look_every_ == kNever ? next_boundary_ : std::min(now + look_every_, next_boundary_);
}

uint64_t EpochController::since_last(std::vector<std::vector<uint64_t>>& marks, uint32_t sm, StatKey key,
                                     uint64_t now_value) {
  std::vector<uint64_t>& m = marks[sm];
  if (m.size() <= key) m.resize(size_t(key) + 1, 0);
  uint64_t d = now_value - m[key];
  m[key] = now_value;
  return d;
}

void EpochController::set_quota(uint32_t sm, uint32_t kernel, int64_t thread_insts, bool qos) {
  sms_.at(sm)->quotas()->set(kernel, thread_insts, qos);
}

void EpochController::set_sm_counts(const std::map<uint32_t, uint32_t>& sms_by_app) {
  auto* target = dynamic_cast<frontend::SmCountTarget*>(&dispatcher_.policy());
  if (!target)
    throw ApiError(fmt::format("this QoS manager sets SM counts per application: it needs the sharing policy \"spart\", "
                                  "not \"{}\"",
                                  dispatcher_.policy().name()));
  target->set_sm_counts(sms_by_app);
  dispatcher_.request_repartition();
}

bool EpochController::quotas_used_up() const {
  bool any = false;
  for (sm::Sm* s : sms_) {
    const sm::KernelQuotas& q = *s->quotas();
    if (!q.all_used()) return false;
    any |= !q.empty();
  }
  return any;
}

void EpochController::kernel_activated() {
  if (last_boundary_ == kNever) wake();
}

Cycle EpochController::tick(Cycle now) {
  if (last_boundary_ != kNever && now < next_boundary_) {  // a look between boundaries
    if (adjustment_) adjustment_->sample(now);
    if (!manager_->elastic() || !quotas_used_up()) return next_look(now);
    ++early_epochs_;
  }
  return boundary(now);
}

Cycle EpochController::boundary(Cycle now) {
  std::vector<frontend::ActiveKernel> active = dispatcher_.active_kernels();
  bool first = last_boundary_ == kNever;
  if (first) series_index_ = 0;
  sample_.index = series_index_++;
  sample_.ended_cycles = first ? 0 : now - last_boundary_;
  sample_.epoch_cycles = epoch_cycles_;
  sample_.kernels.resize(active.size());
  for (size_t i = 0; i < active.size(); ++i) {
    const sm::KernelInstance& k = *active[i].kernel;
    KernelEpoch& e = sample_.kernels[i];
    e.kernel = k.id;
    e.app = k.app;
    e.warp_insts.assign(sms_.size(), 0);
    e.thread_insts.assign(sms_.size(), 0);
    e.tbs.assign(sms_.size(), 0);
    e.quota_left.assign(sms_.size(), 0);
    for (uint32_t s = 0; s < sms_.size(); ++s) {
      const sm::SmStats& st = sms_[s]->stats();
      // Counts before this series (or before activation) are not the epoch's.
      uint64_t w = since_last(warp_marks_, s, k.key, st.warp_insts.at(k.key).value());
      uint64_t t = since_last(thread_marks_, s, k.key, st.thread_insts.at(k.key).value());
      if (!first) {
        e.warp_insts[s] = w;
        e.thread_insts[s] = t;
      }
      e.tbs[s] = sms_[s]->resident_tbs(k.id);
      e.quota_left[s] = sms_[s]->quotas()->remaining(k.id).value_or(0);
    }
  }
  for (sm::Sm* s : sms_) s->quotas()->clear();
  ++epochs_;
  if (active.empty()) {
    last_boundary_ = kNever;
    return kNever;
  }
  manager_->new_epoch(sample_, *this);
  if (adjustment_) adjustment_->new_epoch(sample_, now);
  last_boundary_ = now;
  next_boundary_ = now + epoch_cycles_;
  return next_look(now);
}

}  // namespace gpumux::gpu
