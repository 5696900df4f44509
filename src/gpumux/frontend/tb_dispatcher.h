// The front end: per-application streams (in-order kernel queues), the
// active-kernel table and the TB dispatcher, which places TBs under a sharing
// policy (sharing_policy.h, docs/sharing-policies.md).
//
// A kernel reaches the head of its stream when the kernel before it has
// finished; launch_latency cycles later it enters the active-kernel table (at
// most max_active_kernels; when the table is full, ready heads enter by
// priority, then by when they became ready). Active kernels are served in
// dispatch-priority order: higher sm::KernelInstance::priority first, then
// activation order (FCFS).
//
// Each cycle the dispatcher visits the SMs round-robin and places at most one
// TB per SM, from the first kernel (in dispatch-priority order) with TBs left
// whose TB fits the SM's free resources, that holds fewer TBs there than its
// quota under the policy's partition, and, for a spatial policy
// (exclusive_sms()), only on an SM holding no TB of another kernel. The policy
// repartitions when a kernel is activated or finishes and when a kernel
// dispatches its last TB; a partition change takes effect as TBs finish (no
// preemption). PartitionError from the policy propagates out of the engine.
#pragma once

#include <cstdint>
#include <exception>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gpumux/core/engine.h"
#include "gpumux/frontend/frontend_params.h"
#include "gpumux/frontend/sharing_policy.h"
#include "gpumux/sm/kernel_instance.h"
#include "gpumux/sm/sm.h"

namespace gpumux::frontend {

// What happened to one kernel launch, in core cycles.
struct KernelRecord {
  uint32_t id = 0, app = 0, stream = 0;
  int priority = 0;
  std::string name, label;
  StatKey key = kNoKey;
  uint64_t tbs = 0;
  uint64_t warp_insts = 0;  // issued by the launch on all SMs (set at completion)
  Cycle enqueued = 0, activated = 0, first_tb = 0, finished = 0;
  bool done = false;
  // The launch's device fault (its TBs were aborted; copied from
  // sm::KernelInstance::fault at completion).
  std::exception_ptr fault;
  Cycle cycles() const { return finished - activated; }
  // Warp instructions per cycle from its first TB dispatch to its end.
  double ipc() const { return finished > first_tb ? double(warp_insts) / double(finished - first_tb) : 0.0; }
};

// Told of every TB start and end and of every kernel's completion (the
// timeline). Called inside the simulation; must not throw.
class TbEventSink {
 public:
  virtual ~TbEventSink() = default;
  virtual void tb_started(uint32_t sm, const sm::KernelInstance& k, uint64_t tb, Cycle now) = 0;
  virtual void tb_finished(uint32_t sm, const sm::KernelInstance& k, uint64_t tb, Cycle now) = 0;
  virtual void kernel_finished(const KernelRecord& r) = 0;
};

class TbDispatcher : public Component, public sm::TbDoneListener {
 public:
  // `policy` null: fcfs.
  TbDispatcher(Engine& engine, DomainId core, const FrontendParams& p, std::unique_ptr<SharingPolicy> policy);
  ~TbDispatcher() override;

  void attach(std::vector<sm::Sm*> sms) { sms_ = std::move(sms); }
  void register_stats(StatRegistry& reg);
  // Queues `k` on stream (app, stream); returns its index in records().
  size_t enqueue(std::unique_ptr<sm::KernelInstance> k, uint32_t stream, std::string name);
  // No queued or running kernel of `app`.
  bool app_idle(uint32_t app) const;
  const std::vector<KernelRecord>& records() const { return records_; }
  SharingPolicy& policy() { return *policy_; }
  const SharingPolicy& policy() const { return *policy_; }
  // The active kernels in dispatch-priority order, as the policy sees them.
  std::vector<ActiveKernel> active_kernels() const;
  // Receives TB and kernel events (nullptr: none). Not owned.
  void set_event_sink(TbEventSink* sink) { sink_ = sink; }

  Cycle tick(Cycle now) override;
  std::string describe_wait() const override;
  void tb_done(uint32_t sm, sm::KernelInstance& k, uint64_t tb_index) override;

 private:
  struct Running {
    std::unique_ptr<sm::KernelInstance> kernel;
    size_t record = 0;
    uint64_t next_tb = 0, tbs_done = 0;
    Cycle ready_at = kNever;  // when it may become active (head of its stream + launch latency)
    bool active = false;
    // TBs the launch runs in all: a faulted launch dispatches no more.
    uint64_t tbs_to_run() const { return kernel->fault ? next_tb : kernel->grid.num_tbs(); }
    bool tbs_left() const { return next_tb < tbs_to_run(); }
  };
  using StreamId = std::pair<uint32_t, uint32_t>;  // (app, stream)

  void make_head(StreamId s, Cycle now);
  bool activate(Cycle now, Cycle& next);
  bool may_place(const Running& r, const sm::Sm& s);  // counts fragmentation
  void repartition();

  FrontendParams p_;
  std::unique_ptr<SharingPolicy> policy_;
  std::vector<sm::Sm*> sms_;
  std::map<StreamId, std::deque<Running>> streams_;
  std::vector<Running*> active_;  // in dispatch-priority order
  std::vector<KernelRecord> records_;
  std::vector<uint32_t> pending_per_app_;  // queued or running kernels
  size_t next_sm_ = 0;
  TbEventSink* sink_ = nullptr;
  KeyedCounter tbs_dispatched_;
  // Placements refused only because the free registers or shared memory of
  // the SM were not contiguous (first-fit allocation leaves holes).
  KeyedCounter fragmented_;
};

}  // namespace gpumux::frontend
