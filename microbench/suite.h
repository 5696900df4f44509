// The microbenchmark suite (microbench/microbench.cu): runs each kernel on
// the timing model of a GPU configuration and turns the %clock64 spans its
// kernels record into one figure per measurement (docs/calibration.md).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gpumux/core/config.h"

namespace gpumux::microbench {

struct Measurement {
  std::string name;  // stable key, e.g. "l1_hit_latency" (published.toml uses it)
  std::string unit;  // "cycles", "GB/s", "ops/cycle/SM", "MACs/cycle/SM", "B/cycle/SM"
  double value = 0;
  std::string method;  // what the kernel does, in a few words
  std::string detail;  // what else the run showed (e.g. DRAM row hits), may be empty
};

// The names of every measurement, in the suite's order.
const std::vector<std::string>& measurement_names();

// The measurements of the suite, in a fixed order: all of them, or those
// named in `only` (measurements taken together, like the shared-memory
// strides, come as a group). `scale` multiplies the iteration counts and data
// sizes (1: the smallest, what the tests run). An unknown name in `only` is an
// ApiError.
std::vector<Measurement> run_suite(const GpuConfig& cfg, unsigned scale = 1, std::span<const std::string> only = {});

}  // namespace gpumux::microbench
