// The GPU's side of event kernels (EDGE, Hetherington et al.; docs/edge.md):
// the Event Kernel Table, the device's deliveries (a NIC writing parameter
// blocks into a submission queue and ringing the doorbell), both launch
// paths' latencies, the pending event-kernel queue, and the completion queue.
//
// An event arrives at its arrival time. If its doorbell has a free
// submission-queue slot (max in flight), the device writes its parameter
// block there and rings the doorbell; otherwise it waits at the device.
//   edge path: the GPU reads the EKT entry and the parameter block
//              (pcie_round_trip_ns + dispatch_cycles) and launches;
//   cpu path:  the device interrupts the host, which launches the kernel
//              (cpu_launch_us, of which cpu_api_us in the API call).
// A launched event kernel of one warp that needs no shared memory goes, under
// edge.scheduling = preempt, to the Pending Event Warp Table of an SM
// (sm/event_warps.h): one where it fits a free warp slot, else one with a
// victim warp to preempt, else it waits in the front end's pending
// event-warp queue. Every other event kernel is queued on the TB dispatcher
// at the highest priority: background TBs in its way leave by
// edge.tb_preemption (drain by default; switch, flush or chimera through the
// dispatcher's preemption mechanisms), or it runs on the reserved SMs.
// When an event completes its completion-queue flag is set and its slot is
// free again.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gpumux/core/engine.h"
#include "gpumux/frontend/events/dynamic_reservation.h"
#include "gpumux/frontend/events/edge_params.h"
#include "gpumux/frontend/tb_dispatcher.h"
#include "gpumux/runtime/events.h"
#include "gpumux/sm/event_warps.h"
#include "gpumux/sm/sm.h"

namespace gpumux::exec {
class AddressSpace;
}

namespace gpumux::frontend {

// One event, in core cycles.
struct EventRecord {
  uint32_t doorbell = 0, app = 0, index = 0;  // index: delivery order on its doorbell
  std::string label;                          // the event kernel
  Cycle arrival = 0;   // the device has the request
  Cycle rung = 0;      // parameter block written, doorbell rung (later than arrival when the queue was full)
  Cycle launched = 0;  // ready for dispatch (after the launch path)
  Cycle started = 0;   // its first warp placed on an SM
  Cycle finished = 0;
  uint32_t sm = 0;
  bool warp_level = false;  // went through a PEWT
  sm::EventWarpRecord warp; // warp_level: the SM's account
  bool done = false;
  Cycle launch_latency() const { return launched - rung; }
  Cycle scheduling_latency() const { return started - launched; }
  Cycle latency() const { return finished - arrival; }
};

class EventEngine : public Component, public sm::EventWarpListener, public CompletionListener {
 public:
  // Builds the kernel launch of one event from its parameter block.
  using KernelFactory = std::function<std::unique_ptr<sm::KernelInstance>(std::vector<uint8_t> params)>;

  EventEngine(Engine& engine, DomainId core, const EdgeParams& p, TbDispatcher& dispatcher, std::vector<sm::Sm*> sms);
  ~EventEngine() override;

  // Enters an event kernel into the EKT; returns its doorbell id (> 0).
  // ApiError when the table is full.
  uint32_t register_kernel(uint32_t app, std::string label, KernelFactory make, exec::AddressSpace& mem,
                           const runtime::Doorbell& bell);
  void unregister_kernel(uint32_t id);
  // Events with these payloads and parameter blocks arrive at now + arrivals_ps[i].
  void deliver(uint32_t id, std::vector<runtime::EventBlock> blocks, const std::vector<uint64_t>& arrivals_ps);
  // Every event delivered on doorbell `id` has completed.
  bool idle(uint32_t id) const;
  // The first device fault of an event of doorbell `id`, if any.
  std::exception_ptr fault(uint32_t id) const;
  const std::vector<EventRecord>& records() const { return records_; }
  void register_stats(StatRegistry& reg);

  Cycle tick(Cycle now) override;
  std::string describe_wait() const override;
  void event_warp_done(sm::KernelInstance& k, const sm::EventWarpRecord& r) override;
  void kernel_completed(const sm::KernelInstance& k, const KernelRecord& r) override;

 private:
  struct Pending {  // an event the device holds (not rung yet)
    Cycle arrival = 0;
    size_t record = 0;
    runtime::EventBlock block;
  };
  struct Entry {  // EKT entry
    bool used = false;
    uint32_t app = 0;
    std::string label;
    KernelFactory make;
    exec::AddressSpace* mem = nullptr;
    runtime::Doorbell bell;
    std::deque<Pending> waiting;      // arrivals in order
    std::vector<int64_t> slot_event;  // record in each SQ slot (-1: free)
    uint32_t next_slot = 0, in_flight = 0;
    uint64_t delivered = 0, completed = 0;
    std::exception_ptr fault;
  };
  struct Launch {  // rung, on the launch path
    Cycle ready = 0;
    uint32_t doorbell = 0, slot = 0;
    size_t record = 0;
  };

  void ring(Entry& e, uint32_t id, Pending p, Cycle now);
  void launch(const Launch& l, Cycle now);
  // A warp-level event kernel goes to an SM's PEWT; false: none can take it now.
  bool submit_warp(std::unique_ptr<sm::KernelInstance>& k, size_t record);
  void complete(size_t record, Cycle now);
  Cycle launch_path_cycles() const;
  void resize_reservation(Cycle now, Cycle& next);

  EdgeParams p_;
  TbDispatcher& dispatcher_;
  std::vector<sm::Sm*> sms_;
  std::vector<Entry> ekt_;
  std::vector<EventRecord> records_;
  std::deque<Launch> launching_;  // by ready cycle (constant latency: arrival order)
  // The pending event-warp queue: launched, no PEWT could take them yet.
  std::deque<std::pair<std::unique_ptr<sm::KernelInstance>, size_t>> pending_warps_;
  // Event kernels on SMs or on the dispatcher, by kernel id -> record.
  std::vector<std::pair<std::unique_ptr<sm::KernelInstance>, size_t>> in_pewt_;
  std::vector<std::pair<uint32_t, size_t>> on_dispatcher_;  // (kernel id, record)
  size_t next_sm_ = 0;
  std::unique_ptr<DynamicReservation> dynamic_;  // reserve-dynamic only
  Counter events_, events_preempting_, event_cycles_, scheduling_cycles_, reserved_sm_cycles_;
  Cycle reserved_since_ = 0;  // reserve-dynamic: the current reservation's start
};

}  // namespace gpumux::frontend
