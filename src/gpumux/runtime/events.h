// Event kernels (EDGE, Hetherington et al.; docs/edge.md): a kernel registered
// once with its launch shape, then launched by an external device (a NIC)
// writing a parameter block into a circular submission queue in GPU memory
// and ringing a doorbell, with no CPU on the path. Completions are flags in a
// completion queue in GPU memory.
//
//   Doorbell bell = ctx.register_event(kernel, {1}, {32}, 0, 8);
//   ctx.deliver_events(bell, blocks, ArrivalProcess{...}, payloads);  // the NIC's stream of requests
//   ctx.wait_events(bell);                                  // every delivered event completed
//   ctx.unregister_event(bell);
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpumux::runtime {

using DevPtr = uint64_t;

// When a device's requests arrive, deterministic in `seed`.
struct ArrivalProcess {
  enum class Kind : uint8_t { Periodic, Poisson, Bursts };
  Kind kind = Kind::Periodic;
  double interval_us = 10.0;  // mean time between events (bursts: between bursts' first events)
  uint32_t burst = 1;         // Bursts: events arriving back to back (burst_gap_ns apart)
  double burst_gap_ns = 10.0;
  uint32_t events = 0;        // events the application's driver delivers (0: its default for the size)
  double start_us = 0.0;      // first arrival after delivery starts
  uint64_t seed = 1;
};
const char* arrival_kind_name(ArrivalProcess::Kind k);
bool parse_arrival_kind(std::string_view s, ArrivalProcess::Kind& out);
// The arrival times of `n` events, in picoseconds after delivery starts (non-decreasing).
std::vector<uint64_t> arrival_times_ps(const ArrivalProcess& p, size_t n);

// An event's request data (packets, keys) that the device itself writes into
// GPU memory before its parameter block (a NIC's DMA, as with GPUDirect): it
// does not pass through the host or its copy engines.
struct EventPayload {
  DevPtr dst = 0;
  std::vector<uint8_t> bytes;
};
// What the device writes for one event: its payload, then its packed
// parameter block into the submission queue.
struct EventBlock {
  std::vector<uint8_t> params;
  EventPayload payload;
};

// What register_event returns: where the device writes parameter blocks and
// reads completion flags.
struct Doorbell {
  uint32_t id = 0;                 // Event Kernel Table entry (0-based) + 1; 0: none
  DevPtr submission_queue = 0;     // slots * param_bytes
  DevPtr completion_queue = 0;     // slots * 4 bytes: 1 once the event of that slot completed
  uint32_t slots = 0;              // the maximum number of events in flight
  uint32_t param_bytes = 0;        // the kernel's parameter layout, packed
};

}  // namespace gpumux::runtime
