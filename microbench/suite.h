// The microbenchmark suite (microbench/microbench.cu): runs each kernel on
// the timing model of a GPU configuration and turns the %clock64 spans its
// kernels record into one figure per measurement (docs/calibration.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpumux/core/config.h"

namespace gpumux::microbench {

struct Measurement {
  std::string name;    // stable key, e.g. "l1_hit_latency" (published.toml uses it)
  std::string unit;    // "cycles", "GB/s", "ops/cycle/SM", "B/cycle/SM"
  double value = 0;
  std::string method;  // what the kernel does, in a few words
  std::string detail;  // what else the run showed (e.g. DRAM row hits), may be empty
};

// Every measurement of the suite, in a fixed order. `scale` multiplies the
// iteration counts and data sizes (1: the smallest, what the tests run).
std::vector<Measurement> run_suite(const GpuConfig& cfg, unsigned scale = 1);

}  // namespace gpumux::microbench
