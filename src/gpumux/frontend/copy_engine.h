// The host link (PCIe) and the GPU's copy engine(s): when each cudaMemcpy
// starts and ends.
//
// With pcie.copy_engines = 1 every copy waits in one queue; with 2,
// host-to-device copies (and device-to-device ones) use engine 0 and
// device-to-host copies engine 1, so opposite directions overlap. An idle
// engine takes the oldest waiting copy (CopyOrder::Fcfs, the default) or the
// one of the highest application priority, the oldest among equals
// (CopyOrder::Priority; set_ordering(), from a workload's [policy]). A copy
// takes
//   latency + bytes / bandwidth
// on its engine. With chunk_bytes = C > 0 it moves in chunks of C bytes, the
// first also paying the latency, and the engine chooses again after each
// chunk, so a copy of higher priority submitted meanwhile goes first; each
// chunk's time is rounded up to a picosecond.
// (pcie.latency_us and pcie.bandwidth_gbps for host<->device copies;
// pcie.d2d_latency_us and pcie.d2d_bandwidth_gbps for device-to-device ones,
// which do not use PCIe). Copies do not interfere with the memory system: the
// device-side DRAM traffic of a copy is not modeled.
//
// Times are exact to the picosecond: a copy submitted while the engine is idle
// starts at the tick of the first edge of the component's domain after the
// current one (as TbDispatcher::enqueue); the next copy in the queue starts
// exactly when its predecessor finishes. The component is ticked at the first
// domain edge at or after a finish; it then marks the copy done, calls
// engine().note_progress() and engine().stop() so that the host side, which
// polls done() whenever run() returns, sees the completion.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpumux/core/engine.h"
#include "gpumux/frontend/pcie_params.h"

namespace gpumux::frontend {

enum class CopyDir : uint8_t { HostToDevice, DeviceToHost, DeviceToDevice };
std::string_view to_string(CopyDir d);  // "H2D", "D2H", "D2D"

// Which waiting copy an idle engine takes next, and in what pieces.
enum class CopyOrder : uint8_t {
  Fcfs,      // the oldest
  Priority,  // the one of the highest application priority, the oldest among equals
};
struct CopyOrdering {
  CopyOrder order = CopyOrder::Fcfs;
  uint64_t chunk_bytes = 0;  // 0: a copy holds its engine to its end
  bool operator==(const CopyOrdering&) const = default;
};

// One copy; times in ticks (picoseconds).
struct CopyRecord {
  uint64_t id = 0;  // index in CopyEngine::records()
  uint32_t app = 0;
  CopyDir dir = CopyDir::HostToDevice;
  uint64_t bytes = 0;
  Tick submitted = 0, started = 0, finished = 0;  // started/finished valid once it reached its queue's head
  bool done = false;
  uint32_t engine = 0;  // hardware copy engine (queue) it used
  int priority = 0;     // its application's (pcie.copy_order = priority)
};

class CopyEngine : public Component {
 public:
  CopyEngine(Engine& e, DomainId domain, const PcieParams& p);

  // Before the first copy: how waiting copies are ordered (default FCFS, whole copies).
  void set_ordering(const CopyOrdering& o) { ordering_ = o; }
  // Queues a copy of `bytes` for application `app`, of priority `priority`
  // (higher first under CopyOrder::Priority), on its direction's engine;
  // returns its id.
  uint64_t submit(uint32_t app, CopyDir dir, uint64_t bytes, int priority = 0);
  bool done(uint64_t id) const { return records_.at(id).done; }
  const std::vector<CopyRecord>& records() const { return records_; }

  // How long a copy takes once it started (latency + transfer), in ticks.
  Tick duration(CopyDir dir, uint64_t bytes) const { return latency(dir) + transfer(dir, bytes); }
  // The engine (queue) copies in direction `dir` use.
  uint32_t engine_of(CopyDir dir) const;
  // No queued or running copy (of `app`).
  bool idle() const;
  bool app_idle(uint32_t app) const;

  Cycle tick(Cycle now) override;
  std::string describe_wait() const override;

 private:
  static constexpr uint64_t kNone = UINT64_MAX;
  struct Queue {
    std::vector<uint64_t> waiting;  // copies submitted and not on the link
    uint64_t running = kNone;       // the copy whose segment (chunk, or rest) is on the link
    Tick segment_end = 0;
  };

  Tick latency(CopyDir dir) const;
  Tick transfer(CopyDir dir, uint64_t bytes) const;
  // Puts the next copy of `q` on the link, from `at` or, when every waiting
  // copy was submitted later, from the first submission.
  void start_next(Queue& q, Tick at);

  PcieParams p_;
  CopyOrdering ordering_;
  std::vector<Queue> queues_;  // per engine
  std::vector<CopyRecord> records_;
  std::vector<uint64_t> bytes_left_;  // per copy: not yet on the link
  std::vector<uint64_t> pending_per_app_;
};

}  // namespace gpumux::frontend
