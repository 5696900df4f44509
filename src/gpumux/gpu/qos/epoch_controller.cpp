#include "gpumux/gpu/qos/epoch_controller.h"

#include <numeric>

namespace gpumux::gpu {

uint64_t KernelEpoch::total_thread_insts() const {
  return std::accumulate(thread_insts.begin(), thread_insts.end(), uint64_t(0));
}

uint32_t KernelEpoch::total_tbs() const { return std::accumulate(tbs.begin(), tbs.end(), uint32_t(0)); }

EpochController::EpochController(Engine& engine, DomainId core, Cycle epoch_cycles, std::vector<sm::Sm*> sms,
                                 const frontend::TbDispatcher& dispatcher, std::unique_ptr<QosManager> manager)
    : Component(engine, core, "epoch-controller"),
      epoch_cycles_(epoch_cycles),
      sms_(std::move(sms)),
      dispatcher_(dispatcher),
      manager_(std::move(manager)),
      warp_marks_(sms_.size()),
      thread_marks_(sms_.size()) {}

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

void EpochController::kernel_activated() {
  if (last_boundary_ == kNever) wake();
}

Cycle EpochController::tick(Cycle now) {
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
    }
  }
  for (sm::Sm* s : sms_) s->quotas()->clear();
  ++epochs_;
  if (active.empty()) {
    last_boundary_ = kNever;
    return kNever;
  }
  manager_->new_epoch(sample_, *this);
  last_boundary_ = now;
  return now + epoch_cycles_;
}

}  // namespace gpumux::gpu
