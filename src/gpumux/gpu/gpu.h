// A whole simulated GPU built from a configuration: the engine and its clock
// domains, the memory system, one SM per configured SM, and the front end
// (kernel queues and TB dispatcher with its sharing policy, copy engines).
//
//   gpu::Gpu g(config.values());
//   g.dispatcher().enqueue(...);      // usually through timing::TimingBackend
//   g.run_until([&] { return g.dispatcher().app_idle(0); });
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpumux/core/config.h"
#include "gpumux/core/engine.h"
#include "gpumux/core/gpu_clocks.h"
#include "gpumux/core/stats.h"
#include "gpumux/frontend/copy_engine.h"
#include "gpumux/frontend/events/event_engine.h"
#include "gpumux/frontend/tb_dispatcher.h"
#include "gpumux/gpu/paged_data.h"
#include "gpumux/gpu/qos/epoch_controller.h"
#include "gpumux/mem/memory_system.h"
#include "gpumux/sm/sm.h"

namespace gpumux::gpu {

class Gpu {
 public:
  explicit Gpu(const GpuConfig& cfg, std::unique_ptr<frontend::SharingPolicy> policy = nullptr);  // null: fcfs
  ~Gpu();
  Gpu(const Gpu&) = delete;
  Gpu& operator=(const Gpu&) = delete;

  const GpuConfig& config() const { return cfg_; }
  Engine& engine() { return engine_; }
  const GpuClocks& clocks() const { return clocks_; }
  StatRegistry& stats() { return stats_; }
  StatKeys& keys() { return keys_; }
  mem::MemorySystem& memory() { return *memory_; }
  // Which data demand paging moves (vm.demand_paging; the MMU asks it).
  PagedData& paged_data() { return paged_data_; }
  frontend::TbDispatcher& dispatcher() { return *dispatcher_; }
  frontend::CopyEngine& copy_engine() { return *copy_engine_; }
  uint32_t num_sms() const { return uint32_t(sms_.size()); }
  sm::Sm& sm(uint32_t i) { return *sms_[i]; }
  // QoS management inside the SMs (docs/qos.md): quota counters in every
  // SM's warp schedulers and an epoch controller calling `manager` every
  // qos.epoch_cycles. Call before the first launch; without it no QoS code runs.
  // `tb_adjustment`: the goals of the TB adjustment between epochs
  // (qos/tb_adjustment.h; needs the sharing policy smk-symmetric); none: no adjustment.
  void enable_qos(std::unique_ptr<QosManager> manager, std::optional<QosGoals> tb_adjustment = std::nullopt);
  // Event kernels (docs/edge.md): created with the first registration, which
  // gives every SM its Pending Event Warp Table; before it, no event code runs.
  frontend::EventEngine& events();
  const frontend::EventEngine* events_if_any() const { return events_.get(); }
  // Null unless enable_qos() was called.
  const EpochController* epoch_controller() const { return epoch_controller_.get(); }
  const sm::Sm& sm(uint32_t i) const { return *sms_[i]; }

  // Simulates until done() holds. Throws WatchdogError when no component
  // makes progress for sim.watchdog_cycles, or SimulationError if every
  // component sleeps while done() is still false; both carry report().
  void run_until(const std::function<bool()>& done);
  // Core cycle in progress and simulated time.
  Cycle core_cycle() const { return engine_.cycle(clocks_.core); }
  double now_ms() const { return double(engine_.now()) * 1e-9; }
  // Warp instructions issued so far on all SMs.
  uint64_t warp_instructions() const;
  // What every component (SM warps, queues) holds and waits for.
  std::string report() const { return engine_.describe_waits(); }

 private:
  void partition_memory(const frontend::HardwareInstances& hw);
  GpuConfig cfg_;
  Engine engine_;
  GpuClocks clocks_;
  StatRegistry stats_;
  StatKeys keys_;
  std::unique_ptr<mem::MemorySystem> memory_;
  PagedData paged_data_;
  std::unique_ptr<frontend::TbDispatcher> dispatcher_;
  std::unique_ptr<frontend::CopyEngine> copy_engine_;
  std::vector<std::unique_ptr<sm::Sm>> sms_;
  std::unique_ptr<EpochController> epoch_controller_;
  std::unique_ptr<frontend::EventEngine> events_;
};

// Stops a run in which nothing is left to do but the awaited work is not done.
class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A TOML file, or a preset name: $GPUMUX_CONFIGS/<name>.toml if there is one,
// else the built-in preset (configs/<name>.toml compiled in, core/presets.h);
// then "path.key=value" overrides.
Config load_config(const std::string& preset_or_file, std::span<const std::string> overrides = {});
// Whether load_config() finds `name` as a preset.
bool is_preset(const std::string& name);

}  // namespace gpumux::gpu
