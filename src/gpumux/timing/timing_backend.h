// The cycle-level execution backend of the runtime: launches are queued
// asynchronously (like CUDA) on the simulated GPU's streams, and
// synchronize(ctx) simulates until that context's queued work is done.
// Memory copies and memsets synchronize first (default stream), take effect
// functionally, then take their time on the copy engine (PCIe model).
//
// A device fault ends the faulting launch only (its TBs are aborted); the
// context is then broken like a CUDA context: its next synchronization and
// every later one rethrow the fault, while other contexts run on.
//
// Waiting is delegated: alone, the backend simulates until the awaited work
// is done; with a HostWaiter (the multi-application host scheduler), the
// waiting host program blocks and other programs run meanwhile.
//
//   auto dev = timing::make_device(gpu::load_config("gtx980").values());
//   auto& ctx = dev->create_context("app0");   // ... launch, memcpy_d2h
//   auto& tb = timing::backend_of(*dev);
//   for (const auto& k : tb.kernels()) fmt::print("{} {} cycles\n", k.label, k.cycles());
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gpumux/gpu/gpu.h"
#include "gpumux/runtime/runtime.h"
#include "gpumux/sm/inst_timing.h"

namespace gpumux::timing {

// Blocks the calling host program in simulated time until ready() holds.
class HostWaiter {
 public:
  virtual ~HostWaiter() = default;
  virtual void wait_until(const std::function<bool()>& ready) = 0;
};

class TimingBackend : public runtime::LaunchBackend {
 public:
  // `policy` null: fcfs (frontend::make_sharing_policy).
  explicit TimingBackend(const GpuConfig& cfg, std::unique_ptr<frontend::SharingPolicy> policy = nullptr);
  ~TimingBackend() override;

  void launch(Launch& l) override;
  // A child grid queued in the front end (TbDispatcher::enqueue_child).
  std::string launch_from_device(Launch& l, const exec::DeviceLaunchRequest& r) override;
  // Event kernels on the GPU's EventEngine (docs/edge.md).
  uint32_t register_event(const RegisteredEvent& e) override;
  void unregister_event(runtime::Context& ctx, uint32_t id) override;
  void deliver_events(const RegisteredEvent& e, std::vector<runtime::EventBlock> blocks,
                      std::vector<uint64_t> arrivals_ps) override;
  void wait_events(runtime::Context& ctx, uint32_t id) override;
  void synchronize(runtime::Context& ctx) override;
  void transfer(runtime::Context& ctx, runtime::Transfer kind, uint64_t bytes) override;
  // Demand paging (vm.demand_paging; nothing without it): residency changes in
  // the MMU, their migrations timed on the copy engine like copies.
  void paging(runtime::Context& ctx, const runtime::Paging& p) override;
  std::vector<uint32_t> device_sms(const runtime::Context& ctx) override {
    return gpu_.dispatcher().policy().device_sms(ctx.app());
  }
  void released(runtime::Context& ctx, runtime::DevPtr base, uint64_t bytes) override;
  void created(runtime::Context& ctx) override { gpu_.dispatcher().client_connected(ctx.app()); }
  void release(runtime::Context& ctx) override;
  void set_waiter(HostWaiter* w) { waiter_ = w; }
  // ka-fair: each application's isolated issue rate (the fraction of
  // warp-scheduler cycles its kernels issued alone), by app id; each launch
  // gets its KernelInstance::fair_weight from it.
  void set_isolated_issue_rates(std::vector<double> by_app) { issue_rates_ = std::move(by_app); }
  double now_ms() const override { return gpu_.now_ms(); }
  uint64_t warp_instructions() const override { return gpu_.warp_instructions(); }

  gpu::Gpu& gpu() { return gpu_; }
  const std::vector<frontend::KernelRecord>& kernels() const { return gpu_.dispatcher().records(); }
  // Core cycles from the first launch's activation to the last kernel's end.
  Cycle busy_cycles() const;

 private:
  // The kernel instance of a launch (ApiError if its TB never fits an SM).
  std::unique_ptr<sm::KernelInstance> make_kernel(const Launch& l);
  const sm::ModuleTiming& timing_of(const runtime::Context& ctx, const exec::LoadedModule& m);
  void wait(const std::function<bool()>& ready);
  void throw_if_faulted(const runtime::Context& ctx);
  // Statistics key of the application's host-side work (prefetches, host writes).
  StatKey host_key(const runtime::Context& ctx);

  mutable gpu::Gpu gpu_;
  HostWaiter* waiter_ = nullptr;
  struct TimingEntry {
    const runtime::Context* ctx;
    std::unique_ptr<sm::ModuleTiming> timing;
  };
  std::map<const exec::LoadedModule*, TimingEntry> timings_;
  std::map<const runtime::Context*, std::exception_ptr> faults_;  // broken contexts
  std::map<const runtime::Context*, std::vector<size_t>> launches_;  // records of unsynchronized launches
  std::vector<double> issue_rates_;  // by app id (ka-fair)
  std::map<std::pair<uint32_t, std::string>, uint32_t> kernel_numbers_;  // (app, name) -> stats kernel id
  uint32_t next_launch_ = 0;
};

// Device limits matching the configured GPU.
runtime::DeviceLimits limits_for(const GpuConfig& cfg);
// A device whose launches run on the timing model of `cfg`, TBs placed under
// the sharing `policy` (null: fcfs).
std::unique_ptr<runtime::Device> make_device(const GpuConfig& cfg,
                                             std::unique_ptr<frontend::SharingPolicy> policy = nullptr);
// The timing backend of a device made by make_device().
TimingBackend& backend_of(runtime::Device& dev);

}  // namespace gpumux::timing
