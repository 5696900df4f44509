// A timing-model device on a preset with overrides, and the kernels of
// tests/timing/kernels/timing_tests.cu, for the timing validation tests.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gpumux/gpu/gpu.h"
#include "gpumux/timing/timing_backend.h"

namespace gpumux::test {

struct TimedDevice {
  explicit TimedDevice(const std::string& preset = "gtx980", std::vector<std::string> overrides = {})
      : config(Config::build(std::string(GPUMUX_SOURCE_DIR) + "/configs/" + preset + ".toml", overrides)),
        dev(timing::make_device(config.values())),
        ctx(dev->create_context("test")),
        mod(ctx.load_module_file(std::string(GPUMUX_SOURCE_DIR) + "/tests/timing/kernels/timing_tests.ptx")) {}

  timing::TimingBackend& backend() { return timing::backend_of(*dev); }
  gpu::Gpu& gpu() { return backend().gpu(); }
  StatRegistry& stats() { return gpu().stats(); }
  // Core cycles of the last launch, from activation to completion.
  Cycle last_kernel_cycles() {
    ctx.synchronize();
    return backend().kernels().back().cycles();
  }

  Config config;
  std::unique_ptr<runtime::Device> dev;
  runtime::Context& ctx;
  runtime::Module& mod;
};

}  // namespace gpumux::test
