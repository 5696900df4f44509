// The seam between the TB dispatcher and sharing policies (docs/sharing-policies.md).
//
// A policy partitions the SMs among the active kernels: for every (kernel, SM)
// it gives a quota, the most TBs of that kernel that may be resident on that
// SM. The dispatcher places a TB of kernel k on SM s only if it fits s's free
// resources, s holds fewer than quota(k, s) TBs of k and, for a spatial policy
// (exclusive_sms()), s holds no TB of another kernel. The dispatcher calls
// repartition() whenever the set of active kernels changes and when a kernel
// dispatches its last TB or gets preempted TBs back to place. When a kernel
// that may place TBs on an SM finds it held by TBs of other kernels beyond
// what keep() allows them, the dispatcher takes those TBs back with the
// policy's preemption mechanism (preemption/mechanism.h): drain (the
// default: the TBs finish first), switch, flush or chimera.
//
// Policies are registered by name (policies/policies.inc, one line each, one
// file per policy under policies/):
//   fcfs           no partition: kernels take leftover resources in dispatch order (Hyper-Q)
//   spatial-even   SMs split evenly among the kernels, contiguous ranges, one kernel per SM
//   spatial-smart  as spatial-even, but no kernel gets more SMs than its TBs can fill
//   spart          spatial, SM counts per application set by the QoS manager "spart" (hill climbing)
//   smk-even       every SM shared: each kernel gets 1/n of every SM resource
//   smk-drf        every SM shared by dominant-resource fairness (progressive filling)
//   smk-quota      every SM shared: explicit TBs per SM per kernel of each application
//   smk-symmetric  QoS kernels on every SM, non-QoS kernels split the SMs, equal shares per SM (ISCA'17)
//   kernel-fcfs    thesis framework: each SM runs one kernel; idle SMs go to the kernels in arrival order
//   npq            the same in priority order, never preempting (non-preemptive priority queues)
//   ppq            preemptive priority queues: SMs are taken from lower-priority kernels
//   dss            Dynamic Spatial Sharing: SM tokens per kernel (thesis algorithm 1)
//   maestro        GPU Maestro: per epoch, spatial or SMK by direct measurement on dedicated/trial SMs (ASPLOS'17)
//   time-slice     contexts take turns on the whole GPU, one timeslice each (several processes, no MPS)
//   mps            Multi-Process Service: as fcfs, a client with an active-thread percentage on that share of SMs
//   warped-slicer  every SM split from each kernel's profiled scaling curve (Warped-Slicer, ISCA'16)
//   mig            Multi-Instance GPU: each application in an instance with its own SMs, L2 slices and channels
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpumux/core/clock.h"
#include "gpumux/core/config.h"
#include "gpumux/core/error.h"
#include "gpumux/core/stats.h"
#include "gpumux/frontend/policies/maestro_decision.h"
#include "gpumux/frontend/policies/mig_profiles.h"
#include "gpumux/frontend/preemption/mechanism.h"
#include "gpumux/sm/kernel_instance.h"
#include "gpumux/sm/sm.h"

namespace gpumux::frontend {

// What a policy sees of one active kernel.
struct ActiveKernel {
  const sm::KernelInstance* kernel;
  uint64_t tbs_left;     // TBs not yet dispatched
  uint64_t tbs_running;  // dispatched, not finished
};

// maestro's parameters (docs/maestro.md).
struct MaestroOptions {
  Cycle epoch_cycles = 50000;       // the paper's epoch (ASPLOS'17 4.1)
  maestro::Objective objective = maestro::Objective::Antt;
  uint32_t rededicate_every = 100;  // epochs; the paper's "once every hundred epochs"
  // Relative change of the dedicated SMs' CPI between two epochs under which
  // they are stable (become followers). An estimate: the paper gives no value.
  double stable_tolerance = 0.05;
  // A pair of kernels seen before (same labels: a program's next launches)
  // goes on from where the last one stopped, its unfinished epoch included,
  // instead of starting over with dedicated SMs. Not in the paper, whose
  // kernels each last many epochs (docs/maestro.md).
  bool resume_pairs = true;
  // After a repartition a trial role moves to an SM whose TBs already fit
  // it (a follower, or the trial SM whose split the followers take), as the
  // paper's figure 9 does to save preemptions; false keeps the roles on
  // fixed SMs (2 and 3).
  bool role_swaps = true;
};

// warped-slicer's parameters (docs/maestro.md).
struct WarpedSlicerOptions {
  // Length of the profile phase. An estimate: GPU Maestro's epoch, long
  // enough for a kernel's IPC on an SM to settle after its TBs start.
  Cycle profile_cycles = 50000;
};

// Parameters of the policies, from the workload file.
struct PolicyOptions {
  std::map<uint32_t, uint32_t> tb_quota_by_app;  // smk-quota: TBs per SM per kernel of app id
  double first_share = 0.5;                      // smk-split: app 0's fraction of every SM resource
  PreemptionOptions preemption;                  // every policy
  bool exclusive = true;  // ppq: lower-priority kernels get no SM while a higher-priority kernel is active
  std::map<uint32_t, uint32_t> tokens_by_app;    // dss: SM tokens per kernel of app id (default: equal shares)
  uint32_t num_apps = 1;                         // dss: applications sharing the GPU (equal shares)
  std::set<uint32_t> qos_apps;                   // smk-symmetric: app ids with a QoS goal
  MaestroOptions maestro;
  // time-slice: length of a context's turn. Default: the 2 ms upper bound NVIDIA
  // recommends for medium-priority contexts (DRIVE OS Linux SDK, "Setting the
  // Timeslice"; the driver's minimum is 1 ms).
  double timeslice_us = 2000;
  // mps: CUDA_MPS_ACTIVE_THREAD_PERCENTAGE of the clients limited below 100, by app id.
  std::map<uint32_t, uint32_t> mps_percent_by_app;
  // mps: the control daemon's default percentage ([policy] active_thread_percentage),
  // which the workload loader gives every client without its own.
  uint32_t mps_default_percent = 100;
  // mps: whether a client's device fault stays its own. False, as NVIDIA
  // documents MPS ("MPS Error Containment", Volta and later): a fatal fault
  // of one client reaches every client of the server on that GPU. True: the
  // containment research on fault-resilient MPS asks for.
  bool mps_fault_isolation = false;
  WarpedSlicerOptions warped_slicer;
  // mig: the profile name of each application's GPU instance ("3g.20gb"), by app id.
  std::map<uint32_t, std::string> mig_profile_by_app;
  // Every policy: fault-aware scheduling (the thesis's section 7.2.3): an SM
  // whose TBs all wait for page faults is lent to another kernel until they
  // are serviced (TbDispatcher, docs/virtual-memory.md).
  bool fault_aware = false;
};

// Hardware partitions a policy owns (mig): each application's instance, and
// each instance's SMs and memory partitions.
struct HardwareInstances {
  std::map<uint32_t, uint32_t> instance_by_app;
  std::vector<MigInstance> instances;
};

class SharingPolicy {
 public:
  static constexpr uint32_t kUnlimited = ~0u;
  virtual ~SharingPolicy() = default;
  virtual std::string_view name() const = 0;
  // Recomputes the partition; called by the dispatcher whenever the set of
  // active kernels changes (activation, completion) and when a kernel
  // dispatches its last TB. `active` is in dispatch-priority order. Throws
  // PartitionError when a kernel's share cannot hold one of its TBs.
  virtual void repartition(std::span<const ActiveKernel> active, std::span<sm::Sm* const> sms) = 0;
  // The cycle of the repartition() calls that follow (the dispatcher sets it
  // before each): maestro ends the epoch of kernels that stop sharing then.
  virtual void set_cycle(Cycle) {}
  // Max resident TBs of k on SM `sm` (its id) under the current partition
  // (0: none, kUnlimited: as many as fit).
  virtual uint32_t quota(const sm::KernelInstance& k, uint32_t sm) const = 0;
  // Spatial policies: an SM hosts one kernel at a time; the dispatcher waits
  // until an SM holds no TB of another kernel before placing a TB there.
  virtual bool exclusive_sms() const { return false; }
  // TBs of `k` that may stay on SM `sm` when another kernel may place TBs
  // there; the dispatcher preempts the others. Default: its quota while it
  // has TBs left to place, else all of them (a kernel with nothing left to
  // place only finishes there; preempting it would queue its TBs again and
  // make it claim SMs back).
  virtual uint32_t keep(const ActiveKernel& k, uint32_t sm) const {
    return k.tbs_left ? quota(*k.kernel, sm) : kUnlimited;
  }
  // Whether the dispatcher also repartitions when an SM becomes idle (dss).
  virtual bool repartition_when_sm_idle() const { return false; }

  // Policies that decide by measurement (maestro): the dispatcher calls
  // epoch() when a kernel is activated with none active before, then at the
  // cycle each call returns (kNever: not until the next such activation),
  // and repartitions after a call that asks for it. `preempting`: some
  // preempted TB has not left its SM yet.
  struct EpochStep {
    Cycle next = kNever;
    bool repartition = false;
  };
  virtual bool has_epochs() const { return false; }
  virtual EpochStep epoch(Cycle, std::span<const ActiveKernel>, std::span<sm::Sm* const>, bool) { return {}; }
  virtual void register_stats(StatRegistry&) {}
  // The core clock, for policies whose options are times (time-slice).
  virtual void set_core_clock(double /*core_mhz*/) {}
  // The environment of a program served as application `app` (gpumux serve),
  // when it attaches: mps reads CUDA_MPS_ACTIVE_THREAD_PERCENTAGE from it.
  // Takes effect at the next repartition (the program's first kernel).
  virtual void client_environment(uint32_t /*app*/, std::span<const std::string> /*env*/) {}
  // Whether a device fault of one application's kernel ends the kernels of
  // every other application (their shared context, mps): the dispatcher then
  // faults their queued, running and later kernels.
  virtual bool faults_reach_every_app() const { return false; }
  // Policies that partition the whole GPU, memory included (mig): called once
  // when the GPU is built. Empty: the memory system is shared.
  virtual std::optional<HardwareInstances> partition_hardware(const GpuParams&) { return std::nullopt; }
  // The SMs application `app`'s programs see as their device, by SM id (mig:
  // its instance's; the SM resource green contexts split); empty: every SM.
  virtual std::vector<uint32_t> device_sms(uint32_t /*app*/) const { return {}; }

  const PreemptionOptions& preemption() const { return preemption_; }
  void set_preemption(PreemptionOptions o) { preemption_ = std::move(o); }
  // PolicyOptions::fault_aware: the dispatcher lends SMs idle on faults.
  bool fault_aware() const { return fault_aware_; }
  void set_fault_aware(bool on) { fault_aware_ = on; }

 private:
  PreemptionOptions preemption_;
  bool fault_aware_ = false;
};

// Registered policies by name; LoadError listing the known names for an unknown one.
std::unique_ptr<SharingPolicy> make_sharing_policy(std::string_view name, const PolicyOptions& o = {});
std::vector<std::string> sharing_policy_names();

// A kernel whose share under the partition cannot hold one of its TBs (e.g.
// smk-even with 4 kernels and a 1024-thread TB): thrown from repartition; the
// message names the kernel label, the policy, the share and the need.
class PartitionError : public ApiError {
 public:
  using ApiError::ApiError;
};

}  // namespace gpumux::frontend
