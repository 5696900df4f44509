// The host link (PCIe) and the GPU's copy engine(s): when each cudaMemcpy
// starts and ends.
//
// With pcie.copy_engines = 1 every copy waits in one FCFS queue; with 2,
// host-to-device copies (and device-to-device ones) use engine 0 and
// device-to-host copies engine 1, so opposite directions overlap. A copy starts
// when it reaches the head of its engine's queue and takes
//   latency + bytes / bandwidth
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
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "gpumux/core/engine.h"
#include "gpumux/frontend/pcie_params.h"

namespace gpumux::frontend {

enum class CopyDir : uint8_t { HostToDevice, DeviceToHost, DeviceToDevice };
std::string_view to_string(CopyDir d);  // "H2D", "D2H", "D2D"

// One copy; times in ticks (picoseconds).
struct CopyRecord {
  uint64_t id = 0;  // index in CopyEngine::records()
  uint32_t app = 0;
  CopyDir dir = CopyDir::HostToDevice;
  uint64_t bytes = 0;
  Tick submitted = 0, started = 0, finished = 0;  // started/finished valid once it reached its queue's head
  bool done = false;
  uint32_t engine = 0;  // hardware copy engine (queue) it used
};

class CopyEngine : public Component {
 public:
  CopyEngine(Engine& e, DomainId domain, const PcieParams& p);

  // Queues a copy of `bytes` for application `app` on its direction's engine
  // (FCFS); returns its id.
  uint64_t submit(uint32_t app, CopyDir dir, uint64_t bytes);
  bool done(uint64_t id) const { return records_.at(id).done; }
  const std::vector<CopyRecord>& records() const { return records_; }

  // How long a copy takes once it started (latency + transfer), in ticks.
  Tick duration(CopyDir dir, uint64_t bytes) const;
  // The engine (queue) copies in direction `dir` use.
  uint32_t engine_of(CopyDir dir) const;
  // No queued or running copy (of `app`).
  bool idle() const;
  bool app_idle(uint32_t app) const;

  Cycle tick(Cycle now) override;
  std::string describe_wait() const override;

 private:
  void start(uint64_t id, Tick at);

  PcieParams p_;
  std::vector<std::deque<uint64_t>> queues_;  // per engine; the front copy is running
  std::vector<CopyRecord> records_;
  std::vector<uint64_t> pending_per_app_;
};

}  // namespace gpumux::frontend
