#include "gpumux/gpu/gpu.h"

#include <cstdlib>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/sm/device_addresses.h"

namespace gpumux::gpu {

Gpu::Gpu(const GpuConfig& cfg, std::unique_ptr<frontend::SharingPolicy> policy)
    : cfg_(cfg), clocks_(add_gpu_clocks(engine_, cfg.clock)), paged_data_(cfg.vm.migration_bytes) {
  memory_ = std::make_unique<mem::MemorySystem>(engine_, clocks_, cfg_, stats_);
  // Demand paging: the applications' paged data starts on the host (all of
  // their data unless they allocate managed memory explicitly, paged_data.h);
  // the device's own areas (local memory, context saves) are resident.
  if (cfg_.vm.demand_paging) {
    memory_->mmu()->set_host_residence([this](uint64_t addr) { return paged_data_.paged(addr); });
    memory_->mmu()->report_host_writes();  // the runtime reports them (TimingBackend::paging)
  }
  // Fault-aware scheduling vacates an SM by switching out TBs that wait for
  // faults: their faulted instructions must be squashable and replayable.
  const std::string& mode = cfg_.sm.fault_pipeline.mode;
  if (policy && policy->fault_aware() &&
      (!cfg_.vm.demand_paging || (mode != "replay-queue" && mode != "operand-log")))
    throw LoadError(fmt::format("[policy] fault_aware (policy {}) needs vm.demand_paging = true and "
                                "sm.fault_pipeline.mode = \"replay-queue\" or \"operand-log\"",
                                policy->name()));
  if (policy)
    if (std::optional<frontend::HardwareInstances> hw = policy->partition_hardware(cfg_.gpu)) partition_memory(*hw);
  dispatcher_ = std::make_unique<frontend::TbDispatcher>(engine_, clocks_.core, cfg_.frontend, std::move(policy));
  dispatcher_->register_stats(stats_);
  copy_engine_ = std::make_unique<frontend::CopyEngine>(engine_, clocks_.core, cfg_.pcie);
  std::vector<sm::Sm*> ptrs;
  for (uint32_t i = 0; i < cfg_.gpu.num_sms; ++i) {
    sms_.push_back(std::make_unique<sm::Sm>(engine_, clocks_.core, i, cfg_.sm, *memory_, stats_, *dispatcher_));
    memory_->connect_sm(i, *sms_.back());
    if (mem::Mmu* mmu = memory_->mmu()) mmu->set_translation_listener(i, sms_.back().get());
    ptrs.push_back(sms_.back().get());
  }
  dispatcher_->attach(std::move(ptrs));
  // Peak DRAM bandwidth over the SMs: what a context save can expect (thesis 5.3, table 5.2).
  const mem::DramParams& d = cfg_.dram;
  double dram_bytes_per_core_cycle = double(cfg_.gpu.num_partitions) * d.bus_bytes * d.data_rate *
                                     cfg_.clock.dram_mhz / cfg_.clock.core_mhz;
  dispatcher_->set_preemption_clock(cfg_.clock.core_mhz, dram_bytes_per_core_cycle / cfg_.gpu.num_sms);
  engine_.set_watchdog(clocks_.core, cfg_.sim.watchdog_cycles);
}

Gpu::~Gpu() = default;

// Each address to its instance: an application's range (data and context
// saves) to the application's, a warp slot's local memory to its SM's.
void Gpu::partition_memory(const frontend::HardwareInstances& hw) {
  constexpr uint32_t kNone = ~0u;
  std::vector<uint32_t> by_app(sm::kMaxApps, kNone), by_sm(cfg_.gpu.num_sms, kNone);
  std::vector<mem::PartitionRange> ranges;
  for (const auto& [app, instance] : hw.instance_by_app) by_app.at(app) = instance;
  for (uint32_t i = 0; i < hw.instances.size(); ++i) {
    const frontend::MigInstance& in = hw.instances[i];
    for (uint32_t s = in.first_sm; s < in.first_sm + in.sms; ++s) by_sm.at(s) = i;
    ranges.push_back({in.first_partition, in.partitions});
  }
  const uint64_t slot_bytes_per_sm = uint64_t(cfg_.sm.warp_slots) << sm::kLocalSlotShift;
  memory_->partition_by_instance(
      [by_app = std::move(by_app), by_sm = std::move(by_sm), slot_bytes_per_sm](uint64_t addr) {
        uint32_t instance = kNone;
        if (addr >= sm::kLocalBase) {
          uint64_t s = (addr - sm::kLocalBase) / slot_bytes_per_sm;
          if (s < by_sm.size()) instance = by_sm[s];
        } else if (addr >> sm::kAppShift < sm::kMaxApps) {
          instance = by_app[addr >> sm::kAppShift];
        }
        if (instance == kNone)
          throw std::logic_error(fmt::format("address {:#x} belongs to no GPU instance (policy mig)", addr));
        return instance;
      },
      std::move(ranges));
}

void Gpu::enable_qos(std::unique_ptr<QosManager> manager, std::optional<QosGoals> tb_adjustment) {
  std::vector<sm::Sm*> sms;
  for (auto& s : sms_) {
    s->enable_quotas();
    sms.push_back(s.get());
  }
  std::unique_ptr<TbAdjustment> adjustment;
  if (tb_adjustment) {
    adjustment = std::make_unique<TbAdjustment>(cfg_.qos.tb_adjustment, std::move(*tb_adjustment), *dispatcher_, sms);
    adjustment->register_stats(stats_);
  }
  epoch_controller_ = std::make_unique<EpochController>(engine_, clocks_.core, cfg_.qos.epoch_cycles, std::move(sms),
                                                        *dispatcher_, std::move(manager), std::move(adjustment));
  dispatcher_->set_activation_listener(epoch_controller_.get());
}

frontend::EventEngine& Gpu::events() {
  if (!events_) {
    std::vector<sm::Sm*> sms;
    for (auto& s : sms_) sms.push_back(s.get());
    events_ = std::make_unique<frontend::EventEngine>(engine_, clocks_.core, cfg_.edge, *dispatcher_, std::move(sms));
    events_->register_stats(stats_);
  }
  return *events_;
}

void Gpu::run_until(const std::function<bool()>& done) {
  while (!done()) {
    engine_.run();
    if (!done() && engine_.idle())
      throw SimulationError("simulation stalled: no component has work but the awaited kernels are not done\n" +
                            report());
  }
}

uint64_t Gpu::warp_instructions() const {
  uint64_t n = 0;
  for (const auto& s : sms_) n += s->stats().warp_insts.total().value();
  return n;
}

namespace {

// A preset of the user's own folder $GPUMUX_CONFIGS.
std::optional<std::filesystem::path> user_preset(const std::string& name) {
  const char* env = std::getenv("GPUMUX_CONFIGS");
  if (!env || !*env) return std::nullopt;
  std::filesystem::path p = std::filesystem::path(env) / (name + ".toml");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(p, ec)) return std::nullopt;
  return p;
}

}  // namespace

bool is_preset(const std::string& name) { return user_preset(name) || find_builtin_preset(name); }

Config load_config(const std::string& preset_or_file, std::span<const std::string> overrides) {
  std::error_code ec;
  std::optional<std::filesystem::path> file;
  // A path names a file, whether or not it exists (then: cannot open it).
  const bool path = preset_or_file.find('/') != std::string::npos || preset_or_file.ends_with(".toml");
  if (path || std::filesystem::is_regular_file(preset_or_file, ec)) file = preset_or_file;
  if (!file) file = user_preset(preset_or_file);
  if (file) return Config::build(file, overrides);
  const Preset* preset = find_builtin_preset(preset_or_file);
  if (!preset)
    throw LoadError(fmt::format("no config file or preset named '{}' (built-in presets: {}; more in $GPUMUX_CONFIGS)",
                                preset_or_file, builtin_preset_names()));
  Config c;
  c.apply_preset(*preset);
  for (const std::string& o : overrides) c.set(o);
  c.validate();
  return c;
}

}  // namespace gpumux::gpu
