// The epoch controller: one component that, every qos.epoch_cycles core
// cycles while kernels are active, samples what each active kernel issued on
// each SM during the epoch that ended (warp and thread instructions) and
// where its TBs are, drops every quota counter and lets the QoS manager set
// the new ones. It sleeps while no kernel is active; the dispatcher wakes it
// when one is activated, which starts a new series of epochs. It exists only
// when a QoS manager is configured (Gpu::enable_qos): otherwise nothing of
// QoS management runs. Under an elastic manager it also looks every
// epoch_cycles / kElasticPolls cycles whether every quota is used up, and
// then starts the next epoch at once. With the TB adjustment
// (tb_adjustment.h) it also samples idle warps idle_warp_samples times per
// epoch (the last sample at the boundary) and lets the adjustment move TBs
// after the manager has set the quotas.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpumux/core/engine.h"
#include "gpumux/frontend/policies/spart.h"
#include "gpumux/frontend/tb_dispatcher.h"
#include "gpumux/gpu/qos/qos_manager.h"
#include "gpumux/gpu/qos/tb_adjustment.h"
#include "gpumux/sm/sm.h"

namespace gpumux::gpu {

class EpochController : public Component, public frontend::ActivationListener, private QuotaControl {
 public:
  // The SMs must have their quota counters enabled (Sm::enable_quotas).
  // `adjustment` null: no TB adjustment.
  EpochController(Engine& engine, DomainId core, Cycle epoch_cycles, std::vector<sm::Sm*> sms,
                  frontend::TbDispatcher& dispatcher, std::unique_ptr<QosManager> manager,
                  std::unique_ptr<TbAdjustment> adjustment = nullptr);

  static constexpr Cycle kElasticPolls = 100;  // looks per epoch (the paper samples idle warps as often)

  uint64_t epochs() const { return epochs_; }  // boundaries so far
  uint64_t early_epochs() const { return early_epochs_; }  // started early (elastic)
  TbAdjustment* tb_adjustment() { return adjustment_.get(); }
  // Starts a series of epochs if asleep (a running series keeps its period).
  void kernel_activated() override;
  Cycle tick(Cycle now) override;
  std::string describe_wait() const override { return ""; }  // holds no work of its own

 private:
  void set_quota(uint32_t sm, uint32_t kernel, int64_t thread_insts, bool qos) override;
  void set_sm_counts(const std::map<uint32_t, uint32_t>& sms_by_app) override;
  // Every SM's counters used up, and some SM has counters.
  bool quotas_used_up() const;
  Cycle boundary(Cycle now);
  // The next look between boundaries (elastic check, idle-warp sample), or the boundary.
  Cycle next_look(Cycle now) const;
  // Instructions of stat key `key` on SM `sm` since the last boundary; moves the mark.
  uint64_t since_last(std::vector<std::vector<uint64_t>>& marks, uint32_t sm, StatKey key, uint64_t now_value);

  Cycle epoch_cycles_;
  std::vector<sm::Sm*> sms_;
  frontend::TbDispatcher& dispatcher_;
  std::unique_ptr<QosManager> manager_;
  std::unique_ptr<TbAdjustment> adjustment_;
  Cycle look_every_ = kNever;  // kNever: no looks between boundaries
  uint64_t epochs_ = 0, early_epochs_ = 0, series_index_ = 0;
  Cycle last_boundary_ = kNever;  // kNever: asleep, the next boundary starts a series
  Cycle next_boundary_ = kNever;
  std::vector<std::vector<uint64_t>> warp_marks_, thread_marks_;  // [sm][stat key] at the last boundary
  EpochSample sample_;  // reused
};

}  // namespace gpumux::gpu
