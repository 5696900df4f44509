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
// repartitions when a kernel is activated or finishes, when a kernel
// dispatches its last TB and when preempted TBs of a kernel with none left
// come back. After each repartition, TBs that hold an SM another kernel may
// use, beyond what the policy lets them keep, are preempted with the policy's
// mechanism (docs/preemption.md); preempted TBs wait in their kernel's
// preempted-TB queue and are placed again before its new TBs, on any SM.
// PartitionError from the policy propagates out of the engine.
//
// Child grids of device-side launch (dynamic parallelism) are queued like
// any launch, after frontend.device_launch_latency, on device streams: one
// per launching TB for the NULL stream, one per fire-and-forget launch, and
// one per parent for its tail launches, which are held until the parent's
// TBs and its other children are done. A grid is complete, and leaves the
// head of its stream, only when its TBs and all its children are.
//
// The thesis's scheduling framework (chapter 5.2.3) maps onto this: command
// buffers are the stream queues, the active queue and Kernel Status Register
// Table are the active kernels (Running), the SM Status Table is
// sm_status_table(), and the Preempted TB Queues are Running::preempted.
#pragma once

#include <cstdint>
#include <exception>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpumux/core/engine.h"
#include "gpumux/exec/device_launch.h"
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
  uint64_t thread_insts = 0;  // their active threads (set at completion)
  Cycle enqueued = 0, activated = 0, first_tb = 0, finished = 0;
  // Device-side launch: the parent's record (kNoParent: launched by the
  // host) and the nesting depth (0: host launch). A parent's `finished` is
  // when its last child finished.
  static constexpr size_t kNoParent = SIZE_MAX;
  size_t parent = kNoParent;
  uint32_t depth = 0;
  bool done = false;
  // The launch's device fault (its TBs were aborted; copied from
  // sm::KernelInstance::fault at completion).
  std::exception_ptr fault;
  Cycle cycles() const { return finished - activated; }
  uint64_t tbs_preempted = 0;  // times one of its TBs was switched or flushed
  // What its preemption costs (thesis table 5.2), set at completion: the mean
  // residency of its TBs, and the projected time to save the context of an SM
  // full of its TBs at the SM's share of DRAM bandwidth.
  double tb_cycles = 0, sm_save_cycles = 0;
  uint32_t shared_bytes = 0;  // shared memory per TB (what a lazy save leaves parked)
  // Warp instructions per cycle from its first TB dispatch to its end.
  double ipc() const { return finished > first_tb ? double(warp_insts) / double(finished - first_tb) : 0.0; }
};

// Where a launch was queued, for reports and timelines: "stream N" for a
// host launch, "child grids, depth D" for a device-side launch.
std::string queue_label(const KernelRecord& r);

// One preemption: TBs of one kernel taken back from one SM, in core cycles.
struct PreemptionRecord {
  uint32_t sm = 0, kernel = 0, app = 0;
  std::string label;      // the preempted kernel
  std::string mechanism;  // of the policy
  Cycle requested = 0;
  Cycle freed = 0;        // the last of its TBs left the SM (finished, saved or flushed)
  uint32_t tbs = 0, drained = 0, switched = 0, flushed = 0;
  uint32_t left = 0;      // TBs still on the SM
  uint64_t bytes_saved = 0, insts_discarded = 0;
  bool escalated = false;  // hybrid: its draining TBs were switched after switch_after_us
  bool done() const { return left == 0; }
  Cycle latency() const { return freed - requested; }
};

// The thesis's SM Status Table entry of one SM.
enum class SmState : uint8_t { Idle, Running, Reserved };
const char* sm_state_name(SmState s);
struct SmStatus {
  SmState state = SmState::Idle;
  std::vector<uint32_t> kernels;  // ids of the kernels with TBs on it
  uint32_t running_tbs = 0;
  int64_t next = -1;              // reserved: the kernel it is being freed for
};

// Told of every TB start and end and of every kernel's completion (the
// timeline). Called inside the simulation; must not throw.
class TbEventSink {
 public:
  virtual ~TbEventSink() = default;
  virtual void tb_started(uint32_t sm, const sm::KernelInstance& k, uint64_t tb, Cycle now) = 0;
  virtual void tb_finished(uint32_t sm, const sm::KernelInstance& k, uint64_t tb, Cycle now) = 0;
  virtual void kernel_finished(const KernelRecord& r) = 0;
  // A TB left its SM before finishing (switched or flushed).
  virtual void tb_preempted(uint32_t, const sm::KernelInstance&, uint64_t, Cycle) {}
  // Every TB of a preemption request has left its SM.
  virtual void preemption_done(const PreemptionRecord&) {}
};

// Told when a kernel launch has ended, before its KernelInstance is destroyed
// (event kernels: the completion queue). Called inside the simulation.
class CompletionListener {
 public:
  virtual ~CompletionListener() = default;
  virtual void kernel_completed(const sm::KernelInstance& k, const KernelRecord& r) = 0;
};

// Told when a kernel enters the active-kernel table (the QoS epoch controller).
class ActivationListener {
 public:
  virtual ~ActivationListener() = default;
  virtual void kernel_activated() = 0;
};

class TbDispatcher : public Component, public sm::TbDoneListener {
 public:
  // `policy` null: fcfs.
  TbDispatcher(Engine& engine, DomainId core, const FrontendParams& p, std::unique_ptr<SharingPolicy> policy);
  ~TbDispatcher() override;

  void attach(std::vector<sm::Sm*> sms);
  // What the preemption mechanism needs to turn budgets into cycles and
  // bytes into time: the core clock and one SM's share of DRAM bandwidth.
  void set_preemption_clock(double core_mhz, double sm_bytes_per_cycle);
  void register_stats(StatRegistry& reg);
  // Queues `k` on stream (app, stream); returns its index in records().
  // `launch_latency`: instead of frontend.launch_latency (event kernels, whose
  // launch path is modeled before they are queued).
  size_t enqueue(std::unique_ptr<sm::KernelInstance> k, uint32_t stream, std::string name,
                 std::optional<Cycle> launch_latency = std::nullopt);
  // Queues `k`, a child grid launched device-side by TB `parent_tb` of the
  // running launch whose functional grid is `parent`, into `stream`
  // (exec/device_launch.h), after frontend.device_launch_latency. The child
  // has the parent's priority. Returns its index in records().
  size_t enqueue_child(std::unique_ptr<sm::KernelInstance> k, const exec::GridLaunch& parent, uint64_t parent_tb,
                       exec::DeviceStream stream, std::string name);
  // No queued or running kernel of `app`.
  bool app_idle(uint32_t app) const;
  // A context of `app` was made / destroyed (a client connecting to and
  // leaving the device). Under a policy whose applications share one context
  // (mps), a fault spread to every client lasts until each client connected
  // at the fault has left: then the server takes clients again, and later
  // launches run normally.
  void client_connected(uint32_t app);
  void client_disconnected(uint32_t app);
  const std::vector<KernelRecord>& records() const { return records_; }
  const std::vector<PreemptionRecord>& preemptions() const { return preemptions_; }
  std::vector<SmStatus> sm_status_table() const;
  SharingPolicy& policy() { return *policy_; }
  // The policy's quota of k on SM `sm`, 0 on an SM k may not use (a green
  // context's stream, sm::KernelInstance::sms): what placement obeys. An SM
  // lent on faults (fault-aware scheduling) takes TBs of its borrower only.
  uint32_t quota(const sm::KernelInstance& k, uint32_t sm) const {
    if (!k.may_use_sm(sm)) return 0;
    if (!loans_.empty() && loans_[sm].borrower != kNoLoan)
      return loans_[sm].borrower == k.id ? SharingPolicy::kUnlimited : 0;
    return policy_->quota(k, sm);
  }
  const SharingPolicy& policy() const { return *policy_; }
  // Repartitions at the next tick: the policy's partition changed from outside (spart).
  void request_repartition() {
    repartition_pending_ = true;
    wake();
  }
  // Preempts `n` TBs of active kernel `kernel_id` on SM `sm` with mechanism
  // `m` (not necessarily the policy's), outside a repartition (the QoS TB
  // adjustment); returns the request's index in preemptions(), or nothing
  // when none of its TBs there can leave.
  std::optional<size_t> preempt(uint32_t sm, uint32_t kernel_id, uint32_t n, const PreemptionMechanism& m, Cycle now);
  // Some preempted TB has not left its SM yet.
  bool preempting() const { return !leaving_.empty(); }
  // The active kernels in dispatch-priority order, as the policy sees them.
  std::vector<ActiveKernel> active_kernels() const;
  // Receives TB and kernel events (nullptr: none). Not owned.
  void set_event_sink(TbEventSink* sink) { sink_ = sink; }
  // Is told of every kernel activation (nullptr: none). Not owned.
  void set_activation_listener(ActivationListener* l) { activation_listener_ = l; }
  // Is told of every launch's end (nullptr: none). Not owned.
  void set_completion_listener(CompletionListener* l) { completion_listener_ = l; }
  // Event kernels (frontend/events/, docs/edge.md). `drain`: while an event
  // kernel has TBs that do not fit an SM, no other kernel places TBs there.
  // `tb_preemption` (with `drain`): the preemption mechanism that frees room
  // for those TBs; "drain" requests nothing (the TBs there finish first).
  // `reserved` (empty: none): per SM, whether it runs event kernels only
  // (event kernels then run nowhere else).
  void set_event_rules(bool drain, std::vector<bool> reserved, std::string_view tb_preemption = "drain");

  Cycle tick(Cycle now) override;
  std::string describe_wait() const override;
  void tb_done(uint32_t sm, sm::KernelInstance& k, uint64_t tb_index) override;
  void tb_preempted(uint32_t sm, sm::KernelInstance& k, sm::PreemptedTb tb) override;
  void shared_evicted(uint32_t sm, sm::KernelInstance& k, uint64_t tb_index) override;
  bool wants_fault_switch(uint32_t sm, const sm::KernelInstance& k) override;
  void faults_serviced(uint32_t sm, uint32_t kernel_id, uint64_t tb_index) override;
  bool lends_sms_on_fault() const override { return policy_->fault_aware(); }

 private:
  struct Running {
    std::unique_ptr<sm::KernelInstance> kernel;
    size_t record = 0;
    uint64_t next_tb = 0, tbs_done = 0;
    Cycle ready_at = kNever;  // when it may become active (head of its stream + launch latency)
    Cycle launch_latency = 0;
    bool active = false;
    std::deque<sm::PreemptedTb> preempted;  // Preempted TB Queue: placed again first
    // Device-side launch: the launching grid (alive until this child
    // completes), the children not yet complete (held tail launches
    // included), the tail launches held until the TBs and other children are
    // done, each launching TB's NULL stream, and whether all TBs have ended.
    Running* parent = nullptr;
    uint32_t children = 0;
    std::vector<Running> tails;
    std::map<uint64_t, uint32_t> block_streams;
    bool grid_done = false;
    // TBs the launch runs in all: a faulted launch dispatches no more.
    uint64_t tbs_to_run() const { return kernel->fault ? next_tb : kernel->grid.num_tbs(); }
    bool tbs_left() const { return next_tb < tbs_to_run() || !preempted.empty(); }
  };
  using StreamId = std::pair<uint32_t, uint32_t>;  // (app, stream)

  void make_head(StreamId s, Cycle now);
  bool activate(Cycle now, Cycle& next);
  // Places one TB of r on s if the policy and s's resources allow, preempted
  // TBs before new ones: first one whose shared memory is parked on s (lazy
  // save), then saved ones; TBs parked on other SMs wait for their SM, or
  // are written back when nothing else of r is left. Counts fragmentation.
  bool place_one(Running& r, sm::Sm& s, Cycle now, uint64_t& tb);
  void repartition();
  // Epoch policies (maestro): calls the policy's epoch() when due; returns
  // when it is due next.
  Cycle step_epoch(Cycle now);
  Running& running(const sm::KernelInstance& k);
  // A TB of r is done (finished, aborted or dropped); after its last,
  // removes r from the active kernels and returns true. The launch then ends
  // (destroying r) unless children of it are still to complete.
  bool count_done(Running& r, Cycle now);
  // The part of count_done after the count: ends r if none of its TBs is left.
  bool end_if_done(Running& r, Cycle now);
  // Ends the launch: its record, listeners, the next kernel of its stream; a
  // parent whose last child this was ends too.
  void retire(Running& r, Cycle now);
  // r's TBs are done and it has no children left but held tail launches:
  // queues those, or ends r if there are none.
  void children_done(Running& r, Cycle now);
  // A new record for `k` (counted as pending for its application).
  size_t add_record(const sm::KernelInstance& k, uint32_t stream, std::string name, Cycle now);
  void push(Running r, StreamId s, Cycle now);
  // Policies whose applications share one context (mps): gives the fault of
  // k (recorded in rec) to every other application: their queued and running
  // launches end as faulted ones do, and so will their later launches until
  // every client connected at the fault has left (client_disconnected).
  void spread_fault(const sm::KernelInstance& k, const KernelRecord& rec);

  // Preemption (tb_dispatcher_preempt.cpp).
  // Preempts, on every SM some kernel may place TBs on, the TBs other
  // kernels hold beyond what the policy lets them keep.
  void reclaim(Cycle now);
  // Fills resident_scratch_ with the TBs of kernel `kernel_id` on `s` that
  // are not already leaving it; returns how many.
  uint32_t staying_tbs(const sm::Sm& s, uint32_t kernel_id);
  // Preempts n of the TBs in resident_scratch_ (staying_tbs) of `victim` on
  // `s` with mechanism `m` (null: the policy's).
  void request_preemption(sm::Sm& s, Running& victim, uint32_t n, Cycle now, const PreemptionMechanism* m = nullptr);
  // A TB of a preemption request has left its SM.
  void tb_left(uint32_t sm, const sm::KernelInstance& k, uint64_t tb, Cycle now, const sm::PreemptedTb* p);
  // Hybrid: switches TBs still draining past the deadline; returns the next deadline.
  Cycle escalate(Cycle now);
  // frontend.preempt_every: preempts every TB of the next SM; returns when to do it again.
  Cycle stress(Cycle now);
  // Event kernels whose TBs fit no SM: for each such TB not yet covered by a
  // request, preempts background TBs of one SM with event_mechanism_.
  void preempt_for_events(Cycle now);
  // The TBs of k that may stay on SM `sm` (SharingPolicy::keep; all of a
  // borrower's on the SM lent to it).
  uint32_t keep(const ActiveKernel& k, uint32_t sm) const;

  // Fault-aware scheduling (tb_dispatcher_faults.cpp, the thesis's section
  // 7.2.3): a TB on SM `sm` waits for faults and no TB of its kernel takes
  // its place (TB switching on fault); true if the SM is lent to another
  // kernel now. It is lent when every
  // TB on it waits for faults (Sm::fault_idle) and an active kernel without
  // TBs there has TBs to place: its TBs are then all switched out
  // (Sm::vacate_on_fault), the asking one included.
  bool lend_on_fault(uint32_t sm);
  // TB `tb` of kernel `kernel_id` left `sm` on a fault and may resume, or
  // ended there or off it (finished while leaving, dropped with its faulted
  // launch): when it is the last one the SM's loan waits for, the loan ends
  // (the borrower's TBs there are preempted at the next repartition with the
  // policy's mechanism).
  void vacated_tb_ready(uint32_t sm, uint32_t kernel_id, uint64_t tb, Cycle now);
  // Kernel `kernel_id` leaves the active kernels: its loans end.
  void end_loans_to(uint32_t kernel_id, Cycle now);
  FrontendParams p_;
  std::unique_ptr<SharingPolicy> policy_;
  std::vector<sm::Sm*> sms_;
  // TB switching on fault: per SM, its TBs switched out on a fault and not resumed yet.
  std::vector<uint32_t> off_chip_;
  // Fault-aware scheduling: per SM (empty when off), the kernel it is lent
  // to (kNoLoan: none), that kernel's statistics key, since when, and the
  // TBs vacated for it (kernel id, TB index) that may not resume yet.
  static constexpr uint32_t kNoLoan = ~0u;
  struct Loan {
    uint32_t borrower = kNoLoan;
    StatKey key = kNoKey;
    Cycle since = 0;
    std::vector<std::pair<uint32_t, uint64_t>> waiting;
  };
  void end_loan(Loan& loan, Cycle now);
  std::vector<Loan> loans_;
  KeyedCounter fault_loans_, fault_loan_cycles_;  // by the borrower
  std::map<StreamId, std::deque<Running>> streams_;
  std::vector<Running*> active_;  // in dispatch-priority order
  std::vector<KernelRecord> records_;
  std::vector<uint32_t> pending_per_app_;  // queued or running kernels
  std::exception_ptr spread_fault_;  // what spread_fault gave every application but fault_source_app_
  uint32_t fault_source_app_ = 0;
  std::vector<uint32_t> clients_;     // live contexts per app
  std::set<uint32_t> fault_reached_;  // apps connected at the spread fault and still connected
  size_t next_sm_ = 0;
  uint32_t next_device_stream_ = kDeviceStreamBase;
  // Device streams are numbered from here (host streams count from 0, event
  // kernels' from 1 << 24).
  static constexpr uint32_t kDeviceStreamBase = 1u << 31;
  TbEventSink* sink_ = nullptr;
  ActivationListener* activation_listener_ = nullptr;
  CompletionListener* completion_listener_ = nullptr;
  bool drain_for_events_ = false;
  std::vector<bool> reserved_for_events_;
  std::unique_ptr<PreemptionMechanism> mechanism_;
  std::unique_ptr<PreemptionMechanism> event_mechanism_;  // edge.tb_preemption; null: drain
  std::vector<size_t> event_requests_;  // preemptions_ made for event TBs, not yet done
  PreemptionEstimates estimates_;
  Cycle switch_after_ = 0;  // hybrid, core cycles (0: never)
  Cycle next_stress_ = 0;   // frontend.preempt_every: next forced preemption
  size_t escalate_from_ = 0;  // preemptions_ before it are done or escalated
  bool repartition_pending_ = false;  // preempted TBs came back to a kernel with none left
  bool epochs_ = false;               // the policy has epochs
  Cycle next_epoch_ = kNever;         // kNever: no series running (no active kernel)
  size_t stress_sm_ = 0;
  std::vector<PreemptionRecord> preemptions_;
  std::map<std::tuple<uint32_t, uint32_t, uint64_t>, size_t> leaving_;  // (sm, kernel id, TB) -> request
  std::vector<sm::ResidentTb> resident_scratch_;
  std::vector<PreemptChoice> choice_scratch_;
  KeyedCounter tbs_dispatched_;
  KeyedCounter preempt_requests_, preempt_latency_, tbs_resumed_;  // by the preempted kernel
  // Placements refused only because the free registers or shared memory of
  // the SM were not contiguous (first-fit allocation leaves holes).
  KeyedCounter fragmented_;
  // The first kernel refused by fragmentation on the SM being offered TBs.
  const sm::KernelInstance* refused_by_fragmentation_ = nullptr;
};

}  // namespace gpumux::frontend
