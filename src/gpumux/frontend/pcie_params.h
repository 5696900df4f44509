// Parameters of the host link and copy engines (frontend/copy_engine.h):
// how long a cudaMemcpy takes.
#pragma once

#include <cstdint>

#include "gpumux/core/params.h"

namespace gpumux {

struct PcieParams {
  // Fixed cost of each host<->device copy: driver and command processing plus
  // the PCIe round trip, before the first byte moves (~5 us measured for small
  // pinned cudaMemcpyAsync on PCIe 3).
  double latency_us = 5.0;
  // Sustained PCIe bandwidth per direction (GB/s = 1e9 bytes/s). PCIe 3.0 x16
  // peaks at 15.75 GB/s; ~12 GB/s is what pinned copies reach.
  double bandwidth_gbps = 12.0;
  // 1: one copy engine, one FCFS queue for every copy; 2: one engine per
  // direction (host-to-device copies overlap device-to-host ones).
  uint32_t copy_engines = 1;
  // Device-to-device copies do not use PCIe: they run on the copy engine
  // (the host-to-device one when there are two) at device-memory speed.
  double d2d_latency_us = 2.0;
  double d2d_bandwidth_gbps = 100.0;  // about half the DRAM bandwidth: every byte is read and written

  static void declare(ParamDecl<PcieParams>& d) {
    d.param("latency_us", &PcieParams::latency_us, "us",
            "fixed cost of each host<->device copy (driver, command processing, PCIe round trip)")
        .range_float(0, 1e6);
    d.param("bandwidth_gbps", &PcieParams::bandwidth_gbps, "GB/s",
            "sustained PCIe bandwidth per direction (1 GB = 1e9 bytes; ~12 for PCIe 3.0 x16)")
        .range_float(1e-3, 1e6);
    d.param("copy_engines", &PcieParams::copy_engines, "engines",
            "1: one FCFS queue for all copies; 2: one engine per direction, H2D and D2H overlap")
        .range(1, 2);
    d.param("d2d_latency_us", &PcieParams::d2d_latency_us, "us", "fixed cost of each device-to-device copy")
        .range_float(0, 1e6);
    d.param("d2d_bandwidth_gbps", &PcieParams::d2d_bandwidth_gbps, "GB/s",
            "device-to-device copy bandwidth (no PCIe; bytes copied per second)")
        .range_float(1e-3, 1e6);
  }
};

}  // namespace gpumux
