// Parameters of the interconnect between SMs and memory partitions.
#pragma once

#include <cstdint>

#include "gpumux/core/params.h"

namespace gpumux::mem {

struct IcntParams {
  uint32_t latency = 8;        // cycles
  uint32_t port_bytes = 32;    // bytes per cycle per port
  uint32_t header_bytes = 8;   // bytes of address/command per packet
  uint32_t input_queue = 16;   // packets
  uint32_t output_queue = 16;  // packets

  static void declare(ParamDecl<IcntParams>& d) {
    d.param("latency", &IcntParams::latency, "cycles", "traversal latency after a packet wins arbitration").range(1, 10000);
    d.param("port_bytes", &IcntParams::port_bytes, "bytes/cycle", "bandwidth of each input and output port").range(1, 4096);
    d.param("header_bytes", &IcntParams::header_bytes, "bytes", "address and command bytes of every packet").range(0, 256);
    d.param("input_queue", &IcntParams::input_queue, "packets", "queue of each input port (per SM or partition)")
        .range(1, 4096);
    d.param("output_queue", &IcntParams::output_queue, "packets", "buffer of each output port, reserved at arbitration")
        .range(1, 4096);
  }
};

}  // namespace gpumux::mem
