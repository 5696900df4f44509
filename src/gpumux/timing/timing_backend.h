// The cycle-level execution backend of the runtime: launches are queued
// asynchronously (like CUDA) on the simulated GPU's streams, and
// synchronize(ctx) simulates until that context's queued work is done.
// Memory copies and memsets are functional and take no simulated time
// (no PCIe/copy-engine model yet); they synchronize first (default stream).
//
//   auto dev = timing::make_device(gpu::load_config("gtx980").values());
//   auto& ctx = dev->create_context("app0");   // ... launch, memcpy_d2h
//   auto& tb = timing::backend_of(*dev);
//   for (const auto& k : tb.kernels()) fmt::print("{} {} cycles\n", k.label, k.cycles());
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gpumux/gpu/gpu.h"
#include "gpumux/runtime/runtime.h"
#include "gpumux/sm/inst_timing.h"

namespace gpumux::timing {

class TimingBackend : public runtime::LaunchBackend {
 public:
  // `policy` null: fcfs (frontend::make_sharing_policy).
  explicit TimingBackend(const GpuConfig& cfg, std::unique_ptr<frontend::SharingPolicy> policy = nullptr);
  ~TimingBackend() override;

  void launch(Launch& l) override;
  void synchronize(runtime::Context& ctx) override;
  double now_ms() const override { return gpu_.now_ms(); }
  uint64_t warp_instructions() const override { return gpu_.warp_instructions(); }

  gpu::Gpu& gpu() { return gpu_; }
  const std::vector<frontend::KernelRecord>& kernels() const { return gpu_.dispatcher().records(); }
  // Core cycles from the first launch's activation to the last kernel's end.
  Cycle busy_cycles() const;

 private:
  const sm::ModuleTiming& timing_of(const exec::LoadedModule& m);

  mutable gpu::Gpu gpu_;
  std::map<const exec::LoadedModule*, std::unique_ptr<sm::ModuleTiming>> timings_;
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
