// Parameters of event kernels (EDGE, Hetherington et al.; docs/edge.md): the
// Event Kernel Table, both launch paths' latencies, how event kernels are
// scheduled against background work, and warp-level preemption.
#pragma once

#include <cstdint>
#include <string>

#include "gpumux/core/params.h"

namespace gpumux {

enum class EventLaunchPath : uint8_t { Edge, Cpu };
// How event kernels get room on SMs busy with background kernels.
enum class EventScheduling : uint8_t {
  Preempt,  // warp-level events: a free warp slot, else preempt one victim warp; others as drain
  Drain,    // stop placing background TBs until the event's TBs fit
  Reserve,  // a fraction of the SMs runs events only
  ReserveDynamic,  // as Reserve, the fraction following the measured event rate
};
enum class VictimPolicy : uint8_t { Oldest, Newest };

struct EdgeParams {
  uint32_t ekt_entries = 32;
  uint32_t pewt_entries = 4;  // per SM
  EventLaunchPath launch_path = EventLaunchPath::Edge;
  uint32_t dispatch_cycles = 300;      // doorbell -> EKT read -> pending event queue (core cycles)
  double pcie_round_trip_ns = 700.0;   // the device's doorbell write and the GPU's parameter read
  double cpu_launch_us = 5.0;          // CPU path: from the device's interrupt to the kernel being ready
  double cpu_api_us = 2.0;             // of which the host's launch API call
  EventScheduling scheduling = EventScheduling::Preempt;
  double reserved_fraction = 0.5;      // Reserve: of the SMs (at least one); ReserveDynamic: the most
  double reserve_window_us = 2.0;      // ReserveDynamic: how often the reservation is resized
  double events_per_reserved_sm = 4.0; // ReserveDynamic: events per window for each reserved SM
  // preempt and drain: how background TBs leave an SM for an event kernel's
  // TB that does not fit (a preemption mechanism of docs/preemption.md).
  std::string tb_preemption = "drain";
  VictimPolicy victim = VictimPolicy::Oldest;
  // Flush optimizations of warp-level preemption, each switchable.
  bool raise_victim_priority = true;
  bool flush_ibuffer = true;
  bool skip_barrier = true;
  bool replay_loads = true;
  uint32_t ibuffer_entries = 2;   // instructions a victim issues before it stops, without flush_ibuffer
  uint32_t replay_cycles = 28;    // a resumed victim's dropped loads are sent again: its restart delay
  // A victim whose registers do not cover the event's may still be preempted
  // when the register file has enough free registers for the event (paper IV-D).
  bool free_registers_beyond_victim = false;

  // Reserve and ReserveDynamic keep SMs for event kernels only.
  bool reserves_sms() const {
    return scheduling == EventScheduling::Reserve || scheduling == EventScheduling::ReserveDynamic;
  }

  static void declare(ParamDecl<EdgeParams>& d) {
    d.param("ekt_entries", &EdgeParams::ekt_entries, "entries", "Event Kernel Table size (registered event kernels)")
        .range(1, 4096);
    d.param("pewt_entries", &EdgeParams::pewt_entries, "entries",
            "Pending Event Warp Table size per SM (warp-level events waiting for or being given a warp slot)")
        .range(1, 64);
    d.choice("launch_path", &EdgeParams::launch_path, {{"edge", EventLaunchPath::Edge}, {"cpu", EventLaunchPath::Cpu}},
             "edge: the device rings a doorbell, the GPU launches (dispatch_cycles + pcie_round_trip_ns); cpu: the "
             "device interrupts the host, which launches (cpu_launch_us)");
    d.param("dispatch_cycles", &EdgeParams::dispatch_cycles, "core cycles",
            "EDGE: doorbell to the event kernel in the pending queue (EKT read, parameter load)")
        .range(0, 1 << 30);
    d.param("pcie_round_trip_ns", &EdgeParams::pcie_round_trip_ns, "ns",
            "EDGE: the device's doorbell write and the GPU's read of the parameter block")
        .range_float(0, 1e9);
    d.param("cpu_launch_us", &EdgeParams::cpu_launch_us, "us",
            "CPU path: from the device's request to the kernel ready for dispatch (interrupt, driver, launch)")
        .range_float(0, 1e9);
    d.param("cpu_api_us", &EdgeParams::cpu_api_us, "us",
            "CPU path: the part of cpu_launch_us spent in the launch API call (reported separately)")
        .range_float(0, 1e9);
    d.choice("scheduling", &EdgeParams::scheduling,
             {{"preempt", EventScheduling::Preempt}, {"drain", EventScheduling::Drain},
              {"reserve", EventScheduling::Reserve}, {"reserve-dynamic", EventScheduling::ReserveDynamic}},
             "preempt: warp-level events take a free warp slot or preempt a victim warp; drain: background TBs "
             "stop being placed until the event's TBs fit; reserve: reserved_fraction of the SMs run events only; "
             "reserve-dynamic: the reserved SMs follow the event rate (reserve_window_us, events_per_reserved_sm), "
             "at most reserved_fraction of them");
    d.param("reserved_fraction", &EdgeParams::reserved_fraction, "",
            "reserve: fraction of the SMs kept for event kernels (at least one); reserve-dynamic: the largest fraction")
        .range_float(0, 1);
    d.param("reserve_window_us", &EdgeParams::reserve_window_us, "us",
            "reserve-dynamic: the reservation is resized at the end of every window, from the events rung in it")
        .range_float(0.001, 1e6);
    d.param("events_per_reserved_sm", &EdgeParams::events_per_reserved_sm, "events",
            "reserve-dynamic: events per window that one reserved SM serves (reserved SMs = ceil(events / this), at "
            "least one)")
        .range_float(0.001, 1e6);
    d.param("tb_preemption", &EdgeParams::tb_preemption, "",
            "preempt and drain: how background TBs make room on an SM for an event kernel's TB that fits none "
            "(event kernels of several warps or with shared memory): drain (they finish first), switch (context "
            "switch), flush or chimera, the mechanisms of docs/preemption.md")
        .choices({"drain", "switch", "flush", "chimera"});
    d.check([](const EdgeParams& p) -> std::string {
      if (p.reserves_sms() && p.tb_preemption != "drain")
        return "edge.tb_preemption: only with edge.scheduling = preempt or drain (reserved SMs run event kernels "
               "only; no background TB is in their way)";
      return "";
    });
    d.choice("victim", &EdgeParams::victim, {{"oldest", VictimPolicy::Oldest}, {"newest", VictimPolicy::Newest}},
             "warp-level preemption: which eligible warp is preempted");
    d.param("raise_victim_priority", &EdgeParams::raise_victim_priority, "",
            "flush optimization: the victim issues at the highest priority until it stops");
    d.param("flush_ibuffer", &EdgeParams::flush_ibuffer, "",
            "flush optimization: the victim's fetched instructions are discarded (refetched on resume) instead of "
            "issued first (ibuffer_entries)");
    d.param("skip_barrier", &EdgeParams::skip_barrier, "",
            "flush optimization: a victim waiting at a barrier is preempted at once instead of after the barrier");
    d.param("replay_loads", &EdgeParams::replay_loads, "",
            "flush optimization: the victim's in-flight loads are dropped and replayed on resume (replay_cycles) "
            "instead of waited for");
    d.param("ibuffer_entries", &EdgeParams::ibuffer_entries, "instructions",
            "without flush_ibuffer: instructions the victim issues before it stops")
        .range(0, 64);
    d.param("replay_cycles", &EdgeParams::replay_cycles, "core cycles",
            "with replay_loads: delay before a resumed victim that had loads dropped issues again")
        .range(0, 1 << 20);
    d.param("free_registers_beyond_victim", &EdgeParams::free_registers_beyond_victim, "",
            "warp-level preemption: a warp with fewer registers than the event may be the victim when the register "
            "file has free registers for the whole event (the event waits for them if they are taken meanwhile)");
  }
};

}  // namespace gpumux
