// The narrow interface between the epoch controller (epoch_controller.h) and
// a QoS manager (a quota scheme, one file each, registered in
// quota_schemes.inc): at every epoch boundary the manager sees what each
// active kernel did on each SM during the epoch that ended and sets the
// quota counters of the enhanced warp scheduler
// (sm/warp_scheduler/quota_warp_scheduler.h) for the epoch that starts.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpumux/core/clock.h"

namespace gpumux::gpu {

// One active kernel during the epoch that ended, per SM (index = SM id).
struct KernelEpoch {
  uint32_t kernel = 0;  // launch id
  uint32_t app = 0;
  std::vector<uint64_t> warp_insts, thread_insts;  // issued during the epoch
  std::vector<uint32_t> tbs;                       // resident at the boundary
  std::vector<int64_t> quota_left;                 // its counter at the boundary (0: none)
  uint64_t total_thread_insts() const;
  int64_t total_quota_left() const;
  uint32_t total_tbs() const;
};

struct EpochSample {
  uint64_t index = 0;      // 0: the first epoch since kernels became active
  Cycle ended_cycles = 0;  // length of the epoch that ended (0 for the first)
  Cycle epoch_cycles = 0;  // length of the epoch that starts
  std::vector<KernelEpoch> kernels;  // the active kernels, in dispatch-priority order
};

// What a manager may change: one kernel's quota counter on one SM, in thread
// instructions. Counters not set at a boundary are dropped (not throttled).
class QuotaControl {
 public:
  virtual ~QuotaControl() = default;
  virtual void set_quota(uint32_t sm, uint32_t kernel, int64_t thread_insts, bool qos) = 0;
  // SMs of each application (by app id) under the sharing policy "spart";
  // the dispatcher repartitions. ApiError under any other policy.
  virtual void set_sm_counts(const std::map<uint32_t, uint32_t>& sms_by_app) = 0;
};

class QosManager {
 public:
  virtual ~QosManager() = default;
  virtual void new_epoch(const EpochSample& s, QuotaControl& q) = 0;
  // Elastic epochs (ISCA'17 3.4.3): the controller also starts an epoch as
  // soon as every quota counter on every SM is used up.
  virtual bool elastic() const { return false; }
};

// The goal of each application, as IPC in thread instructions per core cycle
// over the whole GPU (qos_goal x its isolated IPC); index = app id, empty:
// no goal (a non-QoS kernel).
struct QosGoals {
  std::vector<std::optional<double>> ipc_by_app;
  std::optional<double> of(uint32_t app) const { return app < ipc_by_app.size() ? ipc_by_app[app] : std::nullopt; }
};

// The scheme registered under `name`; LoadError listing the known names if none.
std::unique_ptr<QosManager> make_quota_scheme(std::string_view name, const QosGoals& goals);
std::vector<std::string> quota_scheme_names();

}  // namespace gpumux::gpu
